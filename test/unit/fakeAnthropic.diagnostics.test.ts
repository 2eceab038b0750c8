import { strict as assert } from 'node:assert';
import type { MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { AnthropicLlmClient } from '../../src/host/anthropic/anthropicClient';
import { filler, rawPost } from '../fake-anthropic/testkit';
import { useFakeAnthropic } from './support/fakeServer';

describe('fake Anthropic: cache diagnostics', () => {
  const fake = useFakeAnthropic();

  const system = filler(1500);
  const body = (
    messages: MessageParam[],
    over: Partial<MessageCreateParamsNonStreaming> = {},
  ): MessageCreateParamsNonStreaming => ({
    model: 'claude-sonnet-4-6',
    max_tokens: 256,
    system: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }],
    messages,
    ...over,
  });
  const first: MessageParam[] = [{ role: 'user', content: 'first question' }];

  it('no diagnostics field without the opt-in; null on the opt-in and when only messages were appended', async () => {
    const plain = await fake.client.messages.create(body(first));
    assert.equal('diagnostics' in plain, false);
    const a = await fake.client.messages.create(body(first, { diagnostics: { previous_message_id: null } }));
    assert.equal(a.diagnostics, null);
    const b = await fake.client.messages.create(
      body([...first, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'more' }], {
        diagnostics: { previous_message_id: a.id },
      }),
    );
    assert.equal(b.diagnostics, null);
  });

  it('names the first divergence with the missed tokens: system, then an edited message, then an unknown id', async () => {
    const a = await fake.client.messages.create(body(first, { diagnostics: { previous_message_id: null } }));
    const b = await fake.client.messages.create({
      ...body(first),
      system: 'another prompt',
      diagnostics: { previous_message_id: a.id },
    });
    assert.equal(b.diagnostics?.cache_miss_reason?.type, 'system_changed');
    const missed =
      b.diagnostics?.cache_miss_reason && 'cache_missed_input_tokens' in b.diagnostics.cache_miss_reason
        ? b.diagnostics.cache_miss_reason.cache_missed_input_tokens
        : 0;
    assert.ok(missed >= 1500, `missed ${missed}`);
    const c = await fake.client.messages.create(
      body([{ role: 'user', content: 'edited question' }], { diagnostics: { previous_message_id: b.id } }),
    );
    assert.equal(c.diagnostics?.cache_miss_reason?.type, 'system_changed');
    const d = await fake.client.messages.create(
      body([{ role: 'user', content: 'edited again' }], { diagnostics: { previous_message_id: c.id } }),
    );
    assert.equal(d.diagnostics?.cache_miss_reason?.type, 'messages_changed');
    const e = await fake.client.messages.create(
      body(first, { model: 'claude-opus-4-6', diagnostics: { previous_message_id: d.id } }),
    );
    assert.equal(e.diagnostics?.cache_miss_reason?.type, 'model_changed');
    const f = await fake.client.messages.create(body(first, { diagnostics: { previous_message_id: 'msg_unknown' } }));
    assert.deepEqual(f.diagnostics, { cache_miss_reason: { type: 'previous_message_not_found' } });
  });

  it('reports `unavailable` when only thinking differs, and refuses a malformed diagnostics object', async () => {
    const a = await fake.client.messages.create(body(first, { diagnostics: { previous_message_id: null } }));
    const b = await fake.client.messages.create(
      body(first, {
        max_tokens: 4096,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        diagnostics: { previous_message_id: a.id },
      }),
    );
    assert.deepEqual(b.diagnostics, { cache_miss_reason: { type: 'unavailable' } });
    const bad = await rawPost(fake.server, '/v1/messages', { ...body(first), diagnostics: { previous_message_id: 3 } });
    assert.equal(bad.status, 400);
    const extra = await rawPost(fake.server, '/v1/messages', { ...body(first), diagnostics: { previous: 'x' } });
    assert.equal(extra.status, 400);
  });

  it('our streaming client returns the message id and the parsed cache miss reason', async () => {
    const llm = new AnthropicLlmClient({ apiKey: async () => 'test', baseUrl: fake.server.url });
    const opts = { signal: new AbortController().signal, onEvent: () => undefined };
    const a = await llm.stream(body(first, { diagnostics: { previous_message_id: null } }), opts);
    assert.ok(a.ok);
    assert.match(a.result.messageId ?? '', /^msg_/);
    assert.equal(a.result.cacheMissReason, undefined); // diagnostics: null — nothing diverged
    const b = await llm.stream(
      {
        ...body(first),
        tools: [{ name: 't', description: 'd', input_schema: { type: 'object' } }],
        diagnostics: { previous_message_id: a.result.messageId ?? null },
      },
      opts,
    );
    assert.ok(b.ok);
    assert.equal(b.result.cacheMissReason?.type, 'tools_changed');
  });
});
