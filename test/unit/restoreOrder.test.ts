import { strict as assert } from 'node:assert';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent } from '../../src/core/agent/events';
import { budgetTrim } from '../../src/core/compaction/budgetTrim';
import type { CompactionRecord } from '../../src/core/compaction/types';
import { counterIds } from '../../src/core/platform/platformPorts';
import { agentDeps } from './support/agentDeps';
import { Convo, layerCtx, lines, results, text } from './support/compactionBuilders';
import { recordToEntry } from '../../src/core/session/compactionEntry';
import type { SessionEntry } from '../../src/core/session/entries';
import { replaySession } from '../../src/core/session/replay';
import { nullSink } from './support/sessionSink';
import { entriesOf } from './support/sessionSamples';

/** A user turn with `n` tool rounds of 40 000-character outputs, then an answer. */
function convo(n: number): Convo {
  const c = new Convo().user();
  for (let i = 0; i < n; i++)
    c.call('run_command', { command: `cmd ${i}` }, lines(400, 99, `out${i}`).slice(0, 40_000));
  return c.say();
}

/**
 * Two budget trims of the same results, kept in place (same message ids): the first to 30 000
 * characters, the second, later, to 15 000. A session over the result, both records active.
 */
function twoTrims() {
  const original = convo(5).state();
  const first = budgetTrim(original, layerCtx(0.55, { ids: counterIds('first') }));
  const second = budgetTrim(first.state, layerCtx(0.75, { ids: counterIds('second') }));
  const a = first.record as CompactionRecord;
  const b = second.record as CompactionRecord;
  assert.ok(a && b, 'both trims made a record');
  const saved: string[] = [];
  const events: AgentEvent[] = [];
  const session = new AgentSession(
    second.state,
    agentDeps({ sink: nullSink({ restore: async (id) => void saved.push(id) }) }),
    (e) => events.push(e),
    [
      { record: a, active: true },
      { record: b, active: true },
    ],
  );
  return { original, first: first.state, second: second.state, a, b, session, saved, events };
}

describe('restore order: a compaction whose messages a later one changed in place', () => {
  it('restoring the older of two in-place edits of the same messages is refused until the later one is restored', async () => {
    const t = twoTrims();
    const r = await t.session.commands.restore(t.a.id);
    assert.equal(r.ok, false, 'refused while the later trim is active');
    assert.match(r.ok ? '' : r.reason, /later compaction/i);
    assert.match(r.ok ? '' : r.reason, /results trimmed/, 'names the kind of the later compaction');
    assert.match(r.ok ? '' : r.reason, /Budget · results trimmed, turn 1\).*Restore that one first\./);
    assert.equal(t.session.state, t.second, 'the conversation is unchanged');
    assert.deepEqual(
      t.session.compactions.map((c) => c.active),
      [true, true],
      'the Compactions view still shows both active',
    );
    assert.deepEqual(t.saved, [], 'nothing was saved');
    assert.ok(!t.events.some((e) => e.type === 'restored' || e.type === 'history_replaced'));

    assert.deepEqual(await t.session.commands.restore(t.b.id), { ok: true }, 'the later one restores');
    assert.deepEqual(t.session.state.messages, t.first.messages, "the first trim's results stand again");
    assert.deepEqual(await t.session.commands.restore(t.a.id), { ok: true }, 'then the older one');
    assert.deepEqual(t.session.state.messages, t.original.messages, 'the untouched results are back');
    assert.ok(results(t.session.state).every((b) => !text(b).includes('trimmed to save context')));
    assert.deepEqual(t.saved, [t.b.id, t.a.id]);
    assert.deepEqual(
      t.session.compactions.map((c) => c.active),
      [false, false],
    );
  });

  it('an older compaction restores once the later one that changed its messages was restored', async () => {
    const t = twoTrims();
    const s = new AgentSession(t.first, agentDeps(), () => undefined, [
      { record: t.a, active: true },
      { record: t.b, active: false },
    ]);
    assert.deepEqual(await s.commands.restore(t.a.id), { ok: true });
    assert.deepEqual(s.state.messages, t.original.messages);
  });

  it('replay skips an undo written out of order (older first), so the reopened session is as its compactions say', () => {
    const t = twoTrims();
    const base = entriesOf(t.original.messages);
    const at = 2e12;
    const compactions: SessionEntry[] = [
      { ...recordToEntry(t.a), at },
      { ...recordToEntry(t.b), at: at + 1 },
    ];
    const restore = (id: string, n: number): SessionEntry => ({ type: 'restore', at: at + n, compactionId: id });

    const inOrder = replaySession([...base, ...compactions, restore(t.b.id, 2), restore(t.a.id, 3)]);
    assert.deepEqual(inOrder.messages, t.original.messages);
    assert.deepEqual(inOrder.problems, []);

    const outOfOrder = replaySession([...base, ...compactions, restore(t.a.id, 2), restore(t.b.id, 3)]);
    assert.deepEqual(outOfOrder.messages, t.first.messages, 'the first trim still stands, as its row says');
    assert.deepEqual(
      outOfOrder.compactions.map((c) => c.active),
      [true, false],
    );
    assert.equal(outOfOrder.problems.length, 1);
    assert.match(
      outOfOrder.problems[0] ?? '',
      new RegExp(`undo of compaction ${t.a.id} was skipped: a later compaction still in effect \\(${t.b.id}\\)`),
    );
    assert.deepEqual(outOfOrder.ignored, [base.length + 2]);
  });
});
