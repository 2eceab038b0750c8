import { strict as assert } from 'node:assert';
import { NO_ANSWER } from '../../src/core/normalize/standInAnswers';
import type { Message } from '../../src/core/conversation/conversationModel';
import { planRewind, planRewindRestore, reinsertRewind, rewindStart } from '../../src/core/compaction/rewind';
import { compactionContextValue, compactionDescription, compactionLabel } from '../../src/host/compactionRowText';
import { entryToRecord, recordToEntry } from '../../src/core/session/compactionEntry';
import { encodeEntry } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import { replaySession } from '../../src/core/session/replay';
import { Build } from './support/builders';
import { entriesOf, summaryBlock, summaryReplacement } from './support/sessionSamples';

const ctx = (id = 'cmp_r1') => ({ id, at: 1_800_000_000_000, tokensOf: (m: Message) => m.blocks.length * 10 });

/** Two turns: the second ends with a tool round and a final answer. */
function twoTurns(b = new Build('r')): Message[] {
  const call = b.toolUse('edit_file', { path: 'a.ts' });
  return [
    b.message('user', [b.text('first question')], 1),
    b.message('assistant', [b.text('first answer', 'assistant')], 1),
    b.message('user', [b.text('second question')], 2),
    b.message('assistant', [call], 2),
    b.message('user', [b.toolResult(call.id, 'edited')], 2),
    b.message('assistant', [b.text('done', 'assistant')], 2),
  ];
}

const ids = (ms: readonly Message[]) => ms.map((m) => m.id);

describe('rewind (Retry and Edit of the last message)', () => {
  it('Retry takes every answer and tool round after the last words out, keeping them in the record', () => {
    const ms = twoTurns();
    const plan = planRewind(ms, ms[2]!.id, 'retry', ctx());
    assert.ok(plan.ok);
    assert.deepEqual(ids(plan.messages), ids(ms.slice(0, 3)));
    assert.deepEqual(ids(plan.record.originals), ids(ms.slice(3)));
    assert.deepEqual(plan.record.replacement, []);
    assert.equal(plan.record.after, ms[2]!.id);
    assert.equal(plan.record.layer, 'rewind');
    assert.equal(plan.record.strategy, 'retry');
    assert.equal(plan.record.tokensBefore - plan.record.tokensAfter, 30);
  });

  it('Edit takes the message itself out too; its anchor is the message before it', () => {
    const ms = twoTurns();
    const plan = planRewind(ms, ms[2]!.id, 'edit', ctx());
    assert.ok(plan.ok);
    assert.deepEqual(ids(plan.messages), ids(ms.slice(0, 2)));
    assert.deepEqual(ids(plan.record.originals), ids(ms.slice(2)));
    assert.equal(plan.record.after, ms[1]!.id);
    const first = twoTurns().slice(0, 2);
    const alone = planRewind(first, first[0]!.id, 'edit', ctx());
    assert.ok(alone.ok);
    assert.deepEqual(alone.messages, []);
    assert.equal(alone.record.after, undefined);
  });

  it('a stand-in answer (a failed request, a stop) is an answer Retry takes back', () => {
    const b = new Build('s');
    const ms = [b.message('user', [b.text('hello')], 1), b.message('assistant', [b.text(NO_ANSWER, 'assistant')], 1)];
    const plan = planRewind(ms, ms[0]!.id, 'retry', ctx());
    assert.ok(plan.ok);
    assert.deepEqual(ids(plan.record.originals), [ms[1]!.id]);
  });

  it('refuses a message that is not the last one, an unanswered one for Retry, and says why', () => {
    const ms = twoTurns();
    const older = rewindStart(ms, ms[0]!.id, 'retry');
    assert.deepEqual(older, { ok: false, reason: 'Only your last message can be retried.' });
    const unanswered = ms.slice(0, 3);
    const r = rewindStart(unanswered, unanswered[2]!.id, 'retry');
    assert.ok(!r.ok && /not answered your last message yet/.test(r.reason));
    assert.ok(rewindStart(unanswered, unanswered[2]!.id, 'edit').ok, 'an unanswered message may be edited');
    assert.ok(!rewindStart([], 'x', 'edit').ok);
  });

  it('refuses when the last message was compacted into a summary, or a compaction changed its turn', () => {
    const b = new Build('c');
    const ms = twoTurns(b);
    // The second turn summarised: its messages are gone, the summary stands in their place.
    const summarised = [...ms.slice(0, 2), ...summaryReplacement(b, 'cmp_9', 'They asked a second question.')];
    const gone = rewindStart(summarised, ms[2]!.id, 'edit');
    assert.ok(!gone.ok && /compacted/.test(gone.reason), JSON.stringify(gone));
    // A summary that kept the user's words is not their message as sent.
    const kept = [
      ...ms.slice(0, 2),
      b.message('user', [summaryBlock('cmp_8', 'Summary.', 'blk_s8'), b.text('second question')], 2),
    ];
    const words = rewindStart(kept, kept[2]!.id, 'edit');
    assert.ok(!words.ok && /compacted into a summary/.test(words.reason), JSON.stringify(words));
    // Masked in place (same ids): an active compaction's replacement holds a message of the turn.
    const masked = [{ record: { id: 'cmp_5', layer: 'mask' as const, replacement: [ms[4]!] }, active: true }];
    const r = rewindStart(ms, ms[2]!.id, 'retry', masked);
    assert.ok(!r.ok && /compaction cmp_5/.test(r.reason), JSON.stringify(r));
    const restored = [{ ...masked[0]!, active: false }];
    assert.ok(rewindStart(ms, ms[2]!.id, 'retry', restored).ok, 'a restored compaction no longer blocks it');
  });

  it('Restore swaps the branches: the answer that took its place leaves as a rewind, the originals come back', () => {
    const b = new Build('w');
    const ms = twoTurns(b);
    const plan = planRewind(ms, ms[2]!.id, 'retry', ctx());
    assert.ok(plan.ok);
    const again = [...plan.messages, b.message('assistant', [b.text('another answer', 'assistant')], 2)];
    const back = planRewindRestore(again, plan.record, ctx('cmp_r2'));
    assert.ok(back.ok);
    assert.deepEqual(ids(back.messages), ids(ms));
    assert.deepEqual(ids(back.displaced?.originals ?? []), [again[3]!.id]);
    assert.equal(back.displaced?.after, ms[2]!.id);
    // Nothing followed (an edit whose resend was refused): nothing is displaced.
    const alone = planRewindRestore(plan.messages, plan.record, ctx('cmp_r3'));
    assert.ok(alone.ok && alone.displaced === undefined);
    // The anchor compacted away: refused.
    const lost = planRewindRestore(ms.slice(0, 2), plan.record, ctx('cmp_r4'));
    assert.ok(!lost.ok && /no longer in the conversation/.test(lost.reason));
  });

  it('a session file replays to the same state: rewind, new answer, restore (with the displaced answer first)', () => {
    const b = new Build('f');
    const ms = twoTurns(b);
    const plan = planRewind(ms, ms[2]!.id, 'retry', ctx());
    assert.ok(plan.ok);
    const answer = b.message('assistant', [b.text('another answer', 'assistant')], 2);
    const back = planRewindRestore([...plan.messages, answer], plan.record, ctx('cmp_r2'));
    assert.ok(back.ok && back.displaced);
    const entries = [
      ...entriesOf(ms),
      recordToEntry(plan.record),
      { type: 'message' as const, at: 1, message: answer },
      recordToEntry(back.displaced),
      { type: 'restore' as const, at: 2, compactionId: plan.record.id },
    ];
    // Through the file's own encoding: every line reads back.
    const lines = entries.map((e) => decodeLine(encodeEntry(e)));
    const decoded = lines.map((l) => {
      assert.ok(l.ok, JSON.stringify(l));
      return l.entry;
    });
    const replayed = replaySession(decoded);
    assert.deepEqual(replayed.problems, []);
    assert.deepEqual(ids(replayed.messages), ids(ms));
    const states = replayed.compactions.map((c) => [c.entry.id, c.active]);
    assert.deepEqual(states, [
      ['cmp_r1', false],
      ['cmp_r2', true],
    ]);
    assert.deepEqual(entryToRecord(replayed.compactions[1]!.entry).after, ms[2]!.id);
    // Before the restore: the retried state.
    const mid = replaySession(decoded.slice(0, -2));
    assert.deepEqual(ids(mid.messages), [...ids(plan.messages), answer.id]);
  });

  it('is named in the Compactions view by what made it, and offers Restore while in effect', () => {
    const ms = twoTurns();
    const plan = planRewind(ms, ms[2]!.id, 'edit', ctx());
    assert.ok(plan.ok);
    const entry = { record: plan.record, active: true };
    assert.equal(compactionLabel(entry, '10:42:07'), 'Edit · 10:42:07');
    assert.equal(compactionDescription(entry), '60 → 20 · taken back');
    assert.equal(compactionContextValue(entry), 'compaction-active');
  });

  it('reinsertRewind puts originals back only after their anchor, at the end', () => {
    const ms = twoTurns();
    const plan = planRewind(ms, ms[2]!.id, 'retry', ctx());
    assert.ok(plan.ok);
    assert.deepEqual(ids(reinsertRewind(plan.messages, plan.record) ?? []), ids(ms));
    assert.equal(reinsertRewind(ms.slice(0, 2), plan.record), undefined);
  });
});
