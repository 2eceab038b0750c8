import { strict as assert } from 'node:assert';
import { applyUserMessage, assembleUserMessage } from '../../src/core/conversation/assemble';
import { markRegions } from '../../src/core/compaction/regions';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { ConversationState, Injection, Message } from '../../src/core/conversation/conversationModel';
import { Build, emptyState, fakeClock } from './support/builders';
import { tokensOf } from './support/compactionFixtures';

const dir = '/session/s1';

/** Eight plain turns; turn 3's user message carries `pending` (assembled like a real send). */
function conversation(pending: Injection[]): { state: ConversationState; turn3: Message } {
  const b = new Build('pin');
  const clock = fakeClock();
  let state = emptyState();
  let turn3: Message | undefined;
  for (let turn = 1; turn <= 8; turn++) {
    if (turn === 3) state = { ...state, pending };
    const r = assembleUserMessage(
      state,
      { userText: `question ${turn} ${'words '.repeat(50)}`, pasteDirectory: dir },
      { clock, ids: b.ids },
    );
    assert.ok(r.ok);
    state = applyUserMessage(state, r.value);
    if (turn === 3) turn3 = r.value.message;
    state = {
      ...state,
      messages: [
        ...state.messages,
        b.message('assistant', [b.text(`answer ${turn} ${'prose '.repeat(80)}`, 'assistant')], turn),
      ],
    };
  }
  assert.ok(turn3);
  return { state, turn3 };
}

const selection = (pinned?: boolean): Extract<Injection, { kind: 'ide_selection' }> => ({
  kind: 'ide_selection',
  path: 'src/greet.js',
  startLine: 1,
  endLine: 2,
  text: 'function greet() {\n  return 1;',
  ...(pinned === undefined ? {} : { pinned }),
});
const keep = { keepRecentTurns: 2, keepRecentTokens: 0, tokensOf };

describe('pinned selection injections', () => {
  it('become a pinned ide_selection block; other injections stay unpinned', () => {
    const b = new Build();
    const state = emptyState({
      pending: [
        { kind: 'ide_opened_file', path: 'src/greet.js' },
        selection(true),
        { ...selection(false), startLine: 5, endLine: 5, text: 'x' },
      ],
    });
    const r = assembleUserMessage(
      state,
      { userText: 'what does this do?', pasteDirectory: dir },
      { clock: fakeClock(), ids: b.ids },
    );
    assert.ok(r.ok);
    const blocks = r.value.message.blocks;
    assert.deepEqual(
      blocks.map((x) => [x.meta.source, x.meta.pinned]),
      [
        ['ide_opened_file', false],
        ['ide_selection', true],
        ['ide_selection', false],
        ['user', false],
      ],
    );
    const pinned = blocks[1];
    assert.ok(pinned?.type === 'text');
    assert.match(
      pinned.text,
      /^<ide_selection>The user selected the lines 1 to 2 from src\/greet\.js:\nfunction greet\(\) \{/,
    );
    assert.deepEqual(checkInvariants(applyUserMessage(state, r.value)), []);
  });

  it('keeps the message holding the pinned block out of every compaction region', () => {
    const { state, turn3 } = conversation([selection(true)]);
    const regions = markRegions(state, keep);
    assert.ok(regions.length > 0, 'other turns can still be compacted');
    for (const r of regions)
      assert.ok(!r.messageIds.includes(turn3.id), 'the message holding the pinned block is never in a region');
    assert.deepEqual(
      regions.map((r) => [r.firstTurn, r.lastTurn]),
      [
        [1, 2],
        [3, 6],
      ],
      "the pinned message stays; its turn's answer may be summarised with what follows",
    );
  });

  it('an unpinned selection is compactable like the rest of its turn', () => {
    const { state, turn3 } = conversation([selection()]);
    const regions = markRegions(state, keep);
    assert.deepEqual(
      regions.map((r) => [r.firstTurn, r.lastTurn]),
      [[1, 6]],
    );
    assert.ok(regions[0]?.messageIds.includes(turn3.id));
  });
});
