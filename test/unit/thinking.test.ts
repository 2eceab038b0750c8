import { strict as assert } from 'node:assert';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { resolveConfig } from '../../src/core/pipeline/config';
import type { Message, ThinkingBlock } from '../../src/core/conversation/conversationModel';
import { serializeRequest } from '../../src/core/pipeline/serialize';
import { midTurnWithoutThinking, thinkingMode, thinkingParams } from '../../src/core/models/thinking';
import { thinkingSignature } from '../fake-anthropic/ids';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic';
import { rawPost } from '../fake-anthropic/testkit';
import { Build, emptyState, testConfig } from './support/builders';

const thinking = (b: Build, text: string, signature?: string): ThinkingBlock => ({
  type: 'thinking',
  thinking: text,
  ...(signature ? { signature } : {}),
  meta: { ...b.text('x', 'assistant').meta },
});

function toolTurn(withThinking: boolean): { b: Build; messages: Message[] } {
  const b = new Build('th');
  const use = b.toolUse('read_file', { path: 'a.ts' });
  const assistant = b.message(
    'assistant',
    [...(withThinking ? [thinking(b, 'I should read a.ts', 'sig-1')] : []), use],
    1,
  );
  return {
    b,
    messages: [
      b.message('user', [b.text('Read a.ts')], 1),
      assistant,
      b.message('user', [b.toolResult(use.id, 'const a = 1;')], 1),
    ],
  };
}

describe('extended thinking: request parameters', () => {
  it('maps each model to adaptive, budget or none', () => {
    assert.equal(thinkingMode('claude-sonnet-4-6'), 'adaptive');
    assert.equal(thinkingMode('claude-opus-4-6-20260101'), 'adaptive');
    assert.equal(thinkingMode('claude-opus-4-7'), 'adaptive');
    assert.equal(thinkingMode('claude-sonnet-4-5-20250929'), 'budget');
    assert.equal(thinkingMode('claude-opus-4-5'), 'budget');
    assert.equal(thinkingMode('claude-haiku-4-5'), 'budget');
    assert.equal(thinkingMode('claude-sonnet-4-20250514'), 'budget');
    assert.equal(thinkingMode('claude-3-7-sonnet-latest'), 'budget');
    assert.equal(thinkingMode('claude-3-5-haiku'), 'none');
    assert.equal(thinkingMode('my-proxy-alias'), 'none');
  });

  it('sends adaptive + effort, or a budget kept under max_tokens, or nothing', () => {
    assert.deepEqual(thinkingParams('claude-sonnet-4-6', 'high', 32_000, []), {
      thinking: { type: 'adaptive', display: 'summarized' },
      output_config: { effort: 'high' },
    });
    assert.deepEqual(thinkingParams('claude-sonnet-4-5', 'low', 32_000, []), {
      thinking: { type: 'enabled', budget_tokens: 4_000 },
    });
    assert.deepEqual(thinkingParams('claude-sonnet-4-5', 'high', 16_000, []), {
      thinking: { type: 'enabled', budget_tokens: 14_976 },
    });
    assert.deepEqual(thinkingParams('claude-sonnet-4-5', 'medium', 2_000, []), {});
    assert.deepEqual(thinkingParams('claude-sonnet-4-5', 'off', 32_000, []), {});
    assert.deepEqual(thinkingParams('claude-sonnet-4-5', undefined, 32_000, []), {});
    assert.deepEqual(thinkingParams('claude-3-5-haiku', 'high', 8_000, []), {});
  });

  it('leaves thinking out mid tool-use turn when the calling message has no signed thinking (the API refuses it)', () => {
    assert.equal(midTurnWithoutThinking(toolTurn(false).messages), true);
    assert.equal(midTurnWithoutThinking(toolTurn(true).messages), false);
    assert.deepEqual(thinkingParams('claude-sonnet-4-5', 'high', 32_000, toolTurn(false).messages), {});
    assert.ok(thinkingParams('claude-sonnet-4-5', 'high', 32_000, toolTurn(true).messages).thinking);
  });

  it('the setting resolves into the config (default off) and the serializer sends it with the signed thinking block first', () => {
    const off = resolveConfig({});
    assert.ok(off.ok && off.config.thinking === undefined);
    const on = resolveConfig({ thinking: 'medium', model: 'claude-sonnet-4-5' });
    assert.ok(on.ok && on.config.thinking === 'medium');
    const { messages } = toolTurn(true);
    const params = serializeRequest(
      emptyState({ messages, config: testConfig({ model: 'claude-sonnet-4-5', thinking: 'medium' }) }),
    );
    assert.deepEqual(params.thinking, { type: 'enabled', budget_tokens: 10_000 });
    const sent = params.messages[1] as MessageParam;
    assert.deepEqual(Array.isArray(sent.content) ? sent.content[0] : undefined, {
      type: 'thinking',
      thinking: 'I should read a.ts',
      signature: 'sig-1',
    });
    assert.equal(serializeRequest(emptyState({ messages, config: testConfig() })).thinking, undefined);
  });
});

describe('fake Anthropic: thinking rules', () => {
  let server: FakeAnthropic;
  before(async () => {
    server = await startFakeAnthropic({});
  });
  after(() => server.close());

  const sig = thinkingSignature('I should read a.ts');
  const history = (first: object[]) => [
    { role: 'user', content: 'Read a.ts' },
    {
      role: 'assistant',
      content: [...first, { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } }],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'const a = 1;' }] },
  ];
  const post = (messages: object[], thinkingParam: object = { type: 'enabled', budget_tokens: 1024 }) =>
    rawPost(server, '/v1/messages', {
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      thinking: thinkingParam,
      messages,
    });

  it('accepts a tool-use continuation with its thinking block unchanged', async () => {
    assert.equal(
      (await post(history([{ type: 'thinking', thinking: 'I should read a.ts', signature: sig }]))).status,
      200,
    );
  });

  it('refuses an altered thinking block and a dropped one (thinking enabled)', async () => {
    const altered = await post(history([{ type: 'thinking', thinking: 'I should read b.ts', signature: sig }]));
    assert.equal(altered.status, 400);
    assert.match(JSON.stringify(altered.json), /cannot be modified/);
    const dropped = await post(history([]));
    assert.equal(dropped.status, 400);
    assert.match(JSON.stringify(dropped.json), /must start with a thinking block/);
    assert.equal((await post(history([]), { type: 'adaptive' })).status, 200);
    assert.equal((await post(history([]), { type: 'adaptive', budget_tokens: 2000 })).status, 400);
  });

  it('streams thinking with its signature_delta', async () => {
    server.script({ thinking: 'Let me think.', text: 'Done.' });
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'test', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'claude-sonnet-4-5',
        max_tokens: 4096,
        stream: true,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    const text = await res.text();
    assert.match(text, /thinking_delta/);
    assert.ok(text.includes(`"signature":"${thinkingSignature('Let me think.')}"`));
  });
});
