import { strict as assert } from 'node:assert';
import type { Message, ThinkingBlock } from '../../src/core/conversation/conversationModel';
import { checksThinkingPrefix } from '../../src/core/models/preservedThinking';
import { bindThinking, dropUnboundThinking, requestPrefixDigest } from '../../src/core/pipeline/thinkingBinding';
import { Build, emptyState, testConfig } from './support/builders';
import { pipeline, refusal } from './support/normalizeFixtures';

const FABLE = testConfig({ model: 'claude-fable-5-1' });

function thinking(b: Build, text: string): ThinkingBlock {
  const meta = {
    id: b.ids.next('blk'),
    tier: 2 as const,
    source: 'assistant' as const,
    createdAt: 0,
    pinned: false,
    compactable: true,
  };
  return { type: 'thinking', thinking: text, signature: `sig-${text.length}`, meta };
}

/** A turn of two tool rounds, each answer bound to the request that produced it, as the turn loop does. */
function boundTurn(config = FABLE) {
  const b = new Build('tb');
  const system = [b.text('You are a coding agent.', 'system')];
  const u1 = b.message('user', [b.text('Read a.ts and b.ts')], 1);
  const c1 = b.toolUse('read_file', { path: 'a.ts' });
  const c2 = b.toolUse('read_file', { path: 'b.ts' });
  let state = emptyState({ system, config, messages: [u1] });
  const a1 = bindThinking(b.message('assistant', [thinking(b, 'read a first'), c1], 1), requestPrefixDigest(state));
  const r1 = b.message('user', [b.toolResult(c1.id, 'export const a = 1;')], 1);
  state = { ...state, messages: [u1, a1, r1] };
  const a2 = bindThinking(b.message('assistant', [thinking(b, 'now b'), c2], 1), requestPrefixDigest(state));
  const r2 = b.message('user', [b.toolResult(c2.id, 'export const b = 2;')], 1);
  return { b, state: { ...state, messages: [u1, a1, r1, a2, r2] }, u1, a1, r1, a2, r2 };
}

const thinkingOf = (messages: readonly Message[]) =>
  messages.flatMap((m) => m.blocks.filter((x) => x.type === 'thinking').map((x) => (x as ThinkingBlock).thinking));

describe('thinking bound to its prefix (preserved thinking)', () => {
  it('knows which models check the prefix, in any platform spelling', () => {
    for (const id of [
      'claude-fable-5-1',
      'claude-fable-5-2-20261109',
      'claude-mythos-5-2',
      'claude-opus-5-5',
      'claude-sonnet-5-5',
      'claude-haiku-5-5',
      'us.anthropic.claude-opus-5-5-v1:0',
      'claude-opus-6',
    ])
      assert.ok(checksThinkingPrefix(id), id);
    for (const id of [
      'claude-fable-5',
      'claude-opus-5',
      'claude-sonnet-5',
      'claude-opus-4-8',
      'claude-sonnet-4-6',
      'gpt-5',
    ])
      assert.ok(!checksThinkingPrefix(id), id);
  });

  it('keeps every thinking block while nothing before it changed (the same state back)', () => {
    const t = boundTurn();
    const out = dropUnboundThinking(t.state);
    assert.equal(out.state, t.state);
    assert.deepEqual(out.repairs, []);
  });

  it('after an edit, leaves out the thinking after it and every later block, and keeps what came before', () => {
    const t = boundTurn();
    const masked = { ...t.r1, blocks: [t.b.toolResult((t.a1.blocks[1] as { id: string }).id, '[result masked]')] };
    const out = dropUnboundThinking({ ...t.state, messages: [t.u1, t.a1, masked, t.a2, t.r2] });
    assert.deepEqual(thinkingOf(out.state.messages), ['read a first'], 'the thinking before the edit stays');
    const again = dropUnboundThinking({ ...t.state, messages: [t.u1, t.a1, masked, t.a2, t.r2] });
    assert.ok(
      again.state.messages.every((m, i) => m === out.state.messages[i]),
      'the same message objects each request (the estimator anchors and the serializer memoises by identity)',
    );
    assert.deepEqual(
      out.repairs.map((r) => [r.kind, r.messageId]),
      [['thinking_unbound', t.a2.id]],
    );
    const edited = { ...t.u1, blocks: [t.b.text('Read a.ts')] };
    assert.deepEqual(
      thinkingOf(dropUnboundThinking({ ...t.state, messages: [edited, t.a1, t.r1, t.a2, t.r2] }).state.messages),
      [],
    );
    const system = [t.b.text('You are a careful coding agent.', 'system')];
    assert.deepEqual(thinkingOf(dropUnboundThinking({ ...t.state, system }).state.messages), []);
  });

  it('thinking produced after a request that already left some out is bound to that request, and goes', () => {
    const t = boundTurn();
    const masked = { ...t.r1, blocks: [t.b.toolResult((t.a1.blocks[1] as { id: string }).id, '[result masked]')] };
    const p = pipeline();
    const first = p.prepare({ ...t.state, messages: [t.u1, t.a1, masked, t.a2, t.r2] });
    assert.deepEqual(thinkingOf(first.sent.messages), ['read a first']);
    // The answer to that request, bound to it as the turn loop binds it, then its result.
    const c3 = t.b.toolUse('read_file', { path: 'c.ts' });
    const a3 = bindThinking(
      t.b.message('assistant', [thinking(t.b, 'then c'), c3], 1),
      requestPrefixDigest(first.sent),
    );
    const r3 = t.b.message('user', [t.b.toolResult(c3.id, 'export const c = 3;')], 1);
    const second = p.prepare({ ...t.state, messages: [t.u1, t.a1, masked, t.a2, t.r2, a3, r3] });
    assert.deepEqual(
      thinkingOf(second.sent.messages),
      ['read a first', 'then c'],
      'the new thinking goes; the thinking produced before the edit with the edited result in its prefix does not',
    );
    assert.deepEqual(
      second.repairs.filter((r) => r.kind === 'thinking_unbound').map((r) => r.messageId),
      [t.a2.id],
    );
    const c4 = t.b.toolUse('read_file', { path: 'd.ts' });
    const a4 = bindThinking(
      t.b.message('assistant', [thinking(t.b, 'then d'), c4], 1),
      requestPrefixDigest(second.sent),
    );
    const r4 = t.b.message('user', [t.b.toolResult(c4.id, 'export const d = 4;')], 1);
    const third = p.prepare({ ...t.state, messages: [t.u1, t.a1, masked, t.a2, t.r2, a3, r3, a4, r4] });
    assert.deepEqual(thinkingOf(third.sent.messages), ['read a first', 'then c', 'then d'], 'and keeps going');
  });

  it('leaves out thinking never bound, and later thinking with it; other models keep everything', () => {
    const t = boundTurn();
    const unbound = {
      ...t.a1,
      blocks: t.a1.blocks.map((x) => (x.type === 'thinking' ? { ...x, prefixDigest: undefined } : x)),
    };
    const state = { ...t.state, messages: [t.u1, unbound, t.r1, t.a2, t.r2] };
    assert.deepEqual(thinkingOf(dropUnboundThinking(state).state.messages), []);
    const older = { ...state, config: testConfig({ model: 'claude-sonnet-4-6' }) };
    assert.equal(dropUnboundThinking(older).state, older);
  });

  it('the request for a changed history is valid for the fake API (a thinking-only answer gets a placeholder)', () => {
    const t = boundTurn();
    const edited = { ...t.u1, blocks: [t.b.text('Read a.ts, then b.ts')] };
    const onlyThinking = bindThinking(t.b.message('assistant', [thinking(t.b, 'hmm')], 2), 'stale');
    const next = t.b.message('user', [t.b.text('go on')], 2);
    const state = { ...t.state, messages: [edited, t.a1, t.r1, t.a2, t.r2, onlyThinking, next] };
    const prepared = pipeline().prepare(state);
    assert.equal(refusal(prepared.params), undefined);
    assert.deepEqual(thinkingOf(prepared.sent.messages), []);
    assert.equal(prepared.repairs.filter((r) => r.kind === 'thinking_unbound').length, 3);
  });
});
