import { strict as assert } from 'node:assert';
import { restoreRecord } from '../../src/core/compaction/apply';
import { guardTail } from '../../src/core/compaction/tailGuard';
import type { LayerContext } from '../../src/core/compaction/layerContext';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { ConversationState, Message, TextBlock } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { fakeClock, testConfig } from './support/builders';
import { Convo, tokensOf } from './support/compactionFixtures';
import { assertAccepted, pipeline } from './support/normalizeFixtures';

const config = testConfig({ contextWindow: 100_000, outputReserve: 10_000, keepRecentTurns: 0 });
const ctx = (): LayerContext => ({ utilisation: 1, tokensOf, clock: fakeClock(), ids: counterIds('td') });
const words = (s: ConversationState): TextBlock[] =>
  s.messages.flatMap((m) => m.blocks.filter((b): b is TextBlock => b.type === 'text' && b.meta.source === 'user'));
const MARKER = /^\[Left out so the request fits the context window: /;

/** `turns` turns of a short message (600 characters: too short to cut) and a short answer, then a newest question. */
function chatty(turns: number): ConversationState {
  const c = new Convo('cd');
  c.add({ user: 'The task: keep the release notes short.', answer: 'Understood.' });
  for (let i = 1; i <= turns; i++) c.add({ user: `Note ${i}: ${'word '.repeat(120)}`, answer: `Ok ${i}.` });
  c.add({ user: 'Newest question?' });
  return c.state({ messages: c.messages.slice(0, -1), config });
}

/** The same words, as one message after a summary holds them (the shape a rolling summary leaves). */
function summarised(turns: number): ConversationState {
  const s = chatty(turns);
  const [first, ...rest] = s.messages;
  const held = rest.slice(0, -2).flatMap((m) => (m.role === 'user' ? m.blocks : []));
  const summary: Message = {
    ...(first as Message),
    id: 'msg_summary',
    blocks: [...(first as Message).blocks, ...held],
  };
  const ack: Message = {
    id: 'msg_ack',
    role: 'assistant',
    turn: 1,
    blocks: [(rest[0] as Message).blocks[0] as TextBlock],
  };
  return { ...s, messages: [summary, ack, ...rest.slice(-2)] };
}

describe('tail guard: a long session of short messages (leaving the oldest out)', () => {
  it('leaves the oldest out, one marker per message, until the room is made; the task and the newest words stay; restorable', () => {
    const state = chatty(60);
    const before = words(state);
    const out = guardTail(state, ctx(), 3_000);
    assert.ok(out.record, 'a record');
    const after = words(out.state);
    assert.equal(after[0]?.text, before[0]?.text, 'the task statement stays');
    assert.equal(after.at(-1)?.text, before.at(-1)?.text, 'the newest words stay');
    const markers = after.filter((b) => MARKER.test(b.text));
    assert.ok(markers.length > 0 && markers.length < 60, `${markers.length} markers`);
    assert.match(markers[0]?.text ?? '', /an earlier message of the user \(turn 2\)/);
    assert.ok((out.record?.tokensBefore ?? 0) - (out.record?.tokensAfter ?? 0) >= 3_000, 'the room is made');
    assert.match(out.notice ?? '', /the oldest \d+ earlier messages of yours were left out/);
    assert.deepEqual(checkInvariants(out.state), []);
    assertAccepted(pipeline().prepare(out.state).params);
    const back = restoreRecord(out.state, out.record);
    assert.ok(back.ok);
    assert.deepEqual(words(back.state), before, 'restored word for word');
  });

  it('in one message holding the words of many turns, one marker stands for all it left out', () => {
    const state = summarised(60);
    const out = guardTail(state, ctx(), 8_000);
    const held = (out.state.messages[0] as Message).blocks as TextBlock[];
    const markers = held.filter((b) => MARKER.test(b.text));
    assert.equal(markers.length, 1);
    assert.match(markers[0]?.text ?? '', /: \d+ earlier messages of the user\. They can be restored/);
    assert.equal(held[0]?.text, 'The task: keep the release notes short.', 'the first words, the task, stay first');
    assertAccepted(pipeline().prepare(out.state).params);
  });

  it('gives no words up when leaving them all out could not make the room', () => {
    const state = chatty(10);
    const out = guardTail(state, ctx(), 50_000);
    assert.equal(out.record, undefined);
    assert.equal(out.state, state);
  });
});
