import { strict as assert } from 'node:assert';
import type Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, ThinkingBlock } from '@anthropic-ai/sdk/resources/messages';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic';
import { clientFor } from '../fake-anthropic/testkit';

/** The fake API's preserved-thinking prefix check (test/fake-anthropic/thinkingPrefix.ts), driven with the real SDK. */
describe('fake Anthropic: thinking bound to its prefix (preserved thinking)', function () {
  this.timeout(30_000);
  let fake: FakeAnthropic;
  let client: Anthropic;
  beforeEach(async () => {
    fake = await startFakeAnthropic({ port: 0 });
    client = clientFor(fake);
  });
  afterEach(async () => {
    await fake.close();
  });

  /** One answer of `model` with thinking and a tool call, and the history that continues it. */
  async function continuation(model: string) {
    fake.script({ thinking: 'I should read the file first.', toolUses: [{ name: 'read', input: { path: 'a.ts' } }] });
    const system = [{ type: 'text' as const, text: 'You are a coding agent.' }];
    const tools = [{ name: 'read', description: 'Read a file', input_schema: { type: 'object' as const } }];
    const first: MessageParam = { role: 'user', content: [{ type: 'text', text: 'Fix the bug in a.ts' }] };
    const answer = await client.messages.create({ model, max_tokens: 2_000, system, tools, messages: [first] });
    const thinking = answer.content[0] as ThinkingBlock;
    assert.equal(thinking.type, 'thinking');
    const use = answer.content.find((b) => b.type === 'tool_use');
    assert.ok(use?.type === 'tool_use');
    const result: MessageParam = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: use.id, content: 'export const a = 1;' }],
    };
    const history = (firstMessage: MessageParam): MessageParam[] => [
      firstMessage,
      { role: 'assistant', content: answer.content.map((b) => ({ ...b }) as never) },
      result,
    ];
    const send = (messages: MessageParam[], sys = system) =>
      client.messages.create({ model, max_tokens: 2_000, system: sys, tools, messages }).then(
        () => 'ok',
        (e: { status?: number; message?: string }) => `${e.status}: ${e.message}`,
      );
    return { first, history, send, system };
  }

  it('accepts the history unchanged, and with its cache breakpoints moved', async () => {
    const c = await continuation('claude-fable-5-1');
    assert.equal(await c.send(c.history(c.first)), 'ok');
    const marked: MessageParam = {
      role: 'user',
      content: [{ type: 'text', text: 'Fix the bug in a.ts', cache_control: { type: 'ephemeral' } }],
    };
    assert.equal(await c.send(c.history(marked)), 'ok');
  });

  it('refuses the thinking once an earlier message or the system prompt changed', async () => {
    const c = await continuation('claude-opus-5-5');
    const edited: MessageParam = {
      role: 'user',
      content: [{ type: 'text', text: 'Fix the bug in a.ts (summarised)' }],
    };
    assert.match(await c.send(c.history(edited)), /^400: .*messages\.1\.content\.0: .*prefix_binding_mismatch/);
    assert.match(
      await c.send(c.history(c.first), [{ type: 'text', text: 'You are a careful coding agent.' }]),
      /prefix_binding_mismatch/,
    );
    assert.deepEqual(
      fake.invalidRequests.map((r) => r.error?.rule),
      ['thinking_prefix_mismatch', 'thinking_prefix_mismatch'],
    );
  });

  it('accepts a changed history without the thinking, and older models never check', async () => {
    const c = await continuation('claude-fable-5-2');
    const edited: MessageParam = { role: 'user', content: [{ type: 'text', text: 'Fix a.ts' }] };
    const [, assistant, result] = c.history(edited);
    const content = (assistant?.content as { type: string }[]).filter((b) => b.type !== 'thinking');
    assert.equal(
      await c.send([edited, { role: 'assistant', content: content as never }, result as MessageParam]),
      'ok',
    );
    const old = await continuation('claude-sonnet-4-6');
    assert.equal(await old.send(old.history(edited)), 'ok');
  });
});
