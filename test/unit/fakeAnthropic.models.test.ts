import { strict as assert } from 'node:assert';
import Anthropic from '@anthropic-ai/sdk';
import { resolveConfig } from '../../src/core/pipeline/config';
import { AnthropicLlmClient } from '../../src/host/anthropic/anthropicClient';
import { filler, minimalRequest } from '../fake-anthropic/testkit';
import { useFakeAnthropic } from './support/fakeServer';

describe('fake Anthropic: Models API and count_tokens', () => {
  const fake = useFakeAnthropic();

  it('GET /v1/models/{id} answers a ModelInfo with the enforced window and the output limit', async () => {
    fake.server.setWindow(300_000);
    const m = await fake.client.models.retrieve('claude-opus-5-5');
    assert.equal(m.id, 'claude-opus-5-5');
    assert.equal(m.type, 'model');
    assert.equal(m.max_input_tokens, 300_000);
    assert.equal(m.max_tokens, 128_000);
    assert.equal(m.line, 'opus');
    await assert.rejects(fake.client.models.retrieve('gpt-4'), (e: unknown) => e instanceof Anthropic.NotFoundError);
  });

  it('GET /v1/models lists newest first and pages with limit / after_id', async () => {
    const first = await fake.client.models.list({ limit: 2 });
    assert.deepEqual(
      first.data.map((m) => m.id),
      ['fake-claude', 'claude-opus-5-5'],
    );
    assert.equal(first.has_more, true);
    const all: string[] = [];
    for await (const m of fake.client.models.list({ limit: 3 })) all.push(m.id);
    assert.equal(all.length, 9);
    assert.equal(new Set(all).size, 9);
  });

  it('POST /v1/messages/count_tokens counts with the fake tokenizer and validates like /v1/messages', async () => {
    const r = await fake.client.messages.countTokens({
      model: 'claude-sonnet-4-6',
      messages: [{ role: 'user', content: filler(100) }],
    });
    const sent = fake.server.allRequests.at(-1);
    assert.equal(sent?.outcome, 'counted');
    assert.equal(r.input_tokens, sent?.inputTokens);
    assert.ok(r.input_tokens >= 100);
    await assert.rejects(
      fake.client.messages.countTokens({ model: 'claude-sonnet-4-6', messages: [] }),
      (e: unknown) => e instanceof Anthropic.BadRequestError,
    );
  });

  it('the host client resolves limits and exact counts, and never throws when the server refuses', async () => {
    const llm = new AnthropicLlmClient({ apiKey: async () => 'test', baseUrl: fake.server.url });
    const limits = await llm.retrieveModel('claude-sonnet-4-5');
    assert.ok(limits.ok);
    // Asked with the compaction-on-demand beta, the answer also says whether the model takes a compaction request.
    assert.deepEqual(limits.limits, {
      id: 'claude-sonnet-4-5',
      maxInputTokens: 200_000,
      maxTokens: 64_000,
      onDemandCompaction: false,
    });
    const opus = await llm.retrieveModel('claude-opus-4-6');
    assert.ok(opus.ok && opus.limits.onDemandCompaction === true);
    assert.equal(fake.server.allRequests.at(-1)?.headers['anthropic-beta'], 'compact-2026-09-04');
    const opusCfg = resolveConfig({ model: 'claude-opus-4-6' }, opus.limits);
    assert.ok(opusCfg.ok && opusCfg.config.onDemandCompaction === true);
    const cfg = resolveConfig({ model: 'claude-sonnet-4-5' }, limits.limits);
    assert.ok(cfg.ok && cfg.windowSource === 'models-api');
    const missing = await llm.retrieveModel('not-a-model');
    assert.ok(!missing.ok && missing.error.kind === 'not_found');
    const counted = await llm.countTokens(minimalRequest({ messages: [{ role: 'user', content: filler(50) }] }));
    assert.ok(counted.ok);
    assert.equal(counted.inputTokens, fake.server.allRequests.at(-1)?.inputTokens);
    const noKeyRemote = new AnthropicLlmClient({ apiKey: async () => undefined, baseUrl: 'https://proxy.example.com' });
    assert.equal((await noKeyRemote.countTokens(minimalRequest())).ok, false);
  });

  it('without a key, a server on this machine gets a placeholder (the offline test server), any other none', async () => {
    const local = new AnthropicLlmClient({ apiKey: async () => undefined, baseUrl: fake.server.url });
    assert.ok((await local.countTokens(minimalRequest())).ok, 'the local test server answers without a key');
    const anthropic = new AnthropicLlmClient({ apiKey: async () => undefined });
    const r = await anthropic.countTokens(minimalRequest());
    assert.ok(!r.ok && r.error.kind === 'authentication');
  });
});
