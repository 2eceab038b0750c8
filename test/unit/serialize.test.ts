import { strict as assert } from 'node:assert';
import { serializeMessage, serializeRequest } from '../../src/core/pipeline/serialize';
import type { ConversationState, ThinkingBlock } from '../../src/core/conversation/conversationModel';
import { Build, emptyState, testConfig } from './support/builders';

function conversation(): { state: ConversationState; b: Build } {
  const b = new Build();
  const t = b.toolUse('read_file', { path: 'a.ts' });
  const state = emptyState({
    system: [b.text('You are a coding agent.', 'system')],
    tools: [
      {
        name: 'read_file',
        description: 'Read a file',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
      },
    ],
    messages: [
      b.message('user', [b.text('read a.ts')], 1),
      b.message('assistant', [b.text('Reading.', 'assistant'), t], 1),
      b.message('user', [b.toolResult(t.id, 'line 1')], 1),
    ],
  });
  return { state, b };
}

describe('serializeRequest', () => {
  it('produces the Messages API shape with max_tokens as the output reserve', () => {
    const { state } = conversation();
    const p = serializeRequest(state);
    assert.equal(p.model, 'claude-sonnet-4-6');
    assert.equal(p.max_tokens, testConfig().outputReserve);
    assert.deepEqual(p.system, [{ type: 'text', text: 'You are a coding agent.' }]);
    assert.equal((p.tools?.[0] as { name?: string } | undefined)?.name, 'read_file');
    assert.deepEqual(
      p.messages.map((m) => m.role),
      ['user', 'assistant', 'user'],
    );
    const result = (p.messages[2]!.content as Array<{ type: string; tool_use_id?: string }>)[0]!;
    assert.equal(result.type, 'tool_result');
    assert.ok(result.tool_use_id?.startsWith('toolu_'));
    assert.ok(!JSON.stringify(p).includes('"meta"'), 'no core metadata leaks into the request');
  });

  it('applies breakpoints on copies, never on the memoised message params', () => {
    const { state } = conversation();
    const p = serializeRequest(state, [{ at: 'tools' }, { at: 'system' }, { at: 'message', messageIndex: 2 }]);
    assert.deepEqual((p.tools?.[0] as { cache_control?: unknown } | undefined)?.cache_control, { type: 'ephemeral' });
    assert.deepEqual((p.system as Array<{ cache_control?: unknown }>)[0]?.cache_control, { type: 'ephemeral' });
    const last = p.messages[2]!.content as Array<{ cache_control?: unknown }>;
    assert.deepEqual(last.at(-1)?.cache_control, { type: 'ephemeral' });
    const again = serializeRequest(state);
    assert.ok(!JSON.stringify(again).includes('cache_control'), 'the memo was not touched');
    assert.equal(again.messages[0], serializeMessage(state.messages[0]!), 'unchanged messages are serialised once');
  });

  it('uses the 1h TTL when configured', () => {
    const { state } = conversation();
    const p = serializeRequest({ ...state, config: testConfig({ cacheTtl: '1h' }) }, [{ at: 'system' }]);
    assert.deepEqual((p.system as Array<{ cache_control?: unknown }>)[0]?.cache_control, {
      type: 'ephemeral',
      ttl: '1h',
    });
  });

  it('leaves out unsigned thinking and never puts a breakpoint on thinking', () => {
    const b = new Build();
    const meta = {
      id: 'th1',
      tier: 2 as const,
      source: 'assistant' as const,
      createdAt: 0,
      pinned: false,
      compactable: true,
    };
    const unsigned: ThinkingBlock = { type: 'thinking', thinking: 'hmm', meta };
    const signed: ThinkingBlock = { type: 'thinking', thinking: 'hmm', signature: 'sig', meta: { ...meta, id: 'th2' } };
    const state = emptyState({
      messages: [
        b.message('user', [b.text('q')], 1),
        b.message('assistant', [unsigned, b.text('answer', 'assistant'), signed], 1),
      ],
    });
    const p = serializeRequest(state, [{ at: 'message', messageIndex: 1 }]);
    const content = p.messages[1]!.content as Array<{ type: string; cache_control?: unknown }>;
    assert.deepEqual(
      content.map((c) => c.type),
      ['text', 'thinking'],
    );
    assert.ok(content[0]!.cache_control, 'the breakpoint moved to the last non-thinking block');
    assert.equal(content[1]!.cache_control, undefined);
  });

  it('serialises a summary as tagged text naming its turns', () => {
    const b = new Build();
    const summary = {
      type: 'summary' as const,
      text: 'We fixed the login bug in auth.ts:42.',
      compactionId: 'c1',
      turnRange: [1, 4] as const,
      meta: {
        id: 's1',
        tier: 0 as const,
        source: 'compactor' as const,
        createdAt: 0,
        pinned: false,
        compactable: false,
      },
    };
    const m = serializeMessage(b.message('user', [summary], 5));
    assert.deepEqual(m.content, [
      {
        type: 'text',
        text: '<conversation_summary turns="1-4">\nWe fixed the login bug in auth.ts:42.\n</conversation_summary>',
      },
    ]);
  });
});
