import { strict as assert } from 'node:assert';
import type { CompactionRecord } from '../../src/core/compaction/types';
import { chars4Tokenizer } from '../../src/core/tokens/chars4';
import { TokenEstimator } from '../../src/core/tokens/estimator';
import { BudgetHistory, buildBudgetSnapshot } from '../../src/host/budget/budgetData';
import { parseBudgetToWebview } from '../../src/protocol/budget';
import type { CompactionPlan } from '../../src/core/compaction/plan';
import { snapshotWithPlan } from './support/budgetSnapshots';
import { Build, emptyState } from './support/builders';

describe('budget snapshot: compactions', () => {
  const b = new Build('bs');
  const messages = [
    b.message('user', [b.text('Why does validateToken in src/auth.ts fail?')], 1),
    b.message('assistant', [b.text('Line 42 compares exp without skew.', 'assistant')], 1),
  ];
  const record = (lost: string[], id: string): CompactionRecord => ({
    id,
    at: 1_700_000_000_000,
    trigger: 'manual',
    layer: 'summarise',
    strategy: 'summarise',
    regions: [],
    originals: messages,
    replacement: [],
    summary: 'The user asked about auth.',
    tokensBefore: 400,
    tokensAfter: 90,
    costUsd: 0.0012,
    durationMs: 10,
    fallbacks: [],
    retention: { kinds: {} as never, lost, retained: 0.5 },
  });

  it('lists what the retention check says was lost (at most 10 identifiers, with the full count)', () => {
    const lost = Array.from({ length: 12 }, (_, i) => `src/file${i}.ts`);
    const snap = buildBudgetSnapshot({
      session: 's',
      state: emptyState({ messages }),
      tokenizer: chars4Tokenizer,
      estimator: new TokenEstimator(chars4Tokenizer),
      history: new BudgetHistory(),
      compactions: [
        { record: record(lost, 'c1'), active: true },
        { record: record([], 'c2'), active: false },
      ],
      busy: false,
    });
    const rows = snap.compactions;
    const c1 = rows.find((r) => r.id === 'c1');
    const c2 = rows.find((r) => r.id === 'c2');
    assert.equal(c1?.lost, 12);
    assert.deepEqual(c1?.lostIds, lost.slice(0, 10));
    assert.deepEqual([c2?.lost, c2?.lostIds, c2?.active], [0, [], false]);
    assert.ok(parseBudgetToWebview(snap).ok, 'the snapshot is a valid protocol message');
  });

  it('says how many turns of the recent growth remain until the next compaction the plan expects', () => {
    const plan = { action: 'none', reason: 'Later.', nextCompactionAt: 9_000 } as Partial<CompactionPlan>;
    const snap = (turnPrompts: number[], p: Partial<CompactionPlan> = plan) =>
      snapshotWithPlan(messages, p, turnPrompts);
    const growing = snap([1_000, 2_000, 3_000, 4_000]);
    assert.equal(growing.nextCompaction?.atTokens, 9_000);
    assert.equal(growing.nextCompaction?.turns, 5, '5 000 tokens to go at 1 000 a turn');
    assert.ok(parseBudgetToWebview(growing).ok);
    assert.equal(snap([4_000]).nextCompaction?.turns, undefined, 'no growth to go by');
    assert.equal(
      snap([1_000, 2_000], { ...plan, action: 'summarise', tokensBefore: 2_000 }).nextCompaction?.turns,
      undefined,
      'the next request compacts: no turns to count',
    );
  });
});
