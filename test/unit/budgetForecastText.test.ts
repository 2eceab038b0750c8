import { strict as assert } from 'node:assert';
import type { CompactionPlan } from '../../src/core/compaction/plan';
import { parseBudgetToWebview } from '../../src/protocol/budget';
import { forecastText } from '../../src/webview/budget/forecastText';
import { snapshotWithPlan } from './support/budgetSnapshots';
import { Build } from './support/builders';

/** The budget panel's forecast card: the plan's next compaction and what its tail keeps, in words. */
describe('budget panel: forecast text', () => {
  const b = new Build('ft');
  const messages = [
    b.message('user', [b.text('Why does validateToken in src/auth.ts fail?')], 1),
    b.message('assistant', [b.text('Line 42 compares exp without skew.', 'assistant')], 1),
    b.message('user', [b.text('Fix it.')], 2),
    b.message('assistant', [b.text('Done.', 'assistant')], 2),
  ];
  const snap = (plan: Partial<CompactionPlan>, turnPrompts: number[] = [1_000, 2_000, 3_000]) =>
    snapshotWithPlan(
      messages,
      { action: 'none', reason: 'A summary comes later.', nextCompactionAt: 9_000, protectedTokens: 40, ...plan },
      turnPrompts,
    );

  it('says the tail budget, not only what the tail holds, while the whole conversation fits in it', () => {
    const s = snap({});
    assert.ok(parseBudgetToWebview(s).ok, 'a valid protocol message');
    assert.equal(s.nextCompaction?.keepsAll, true);
    assert.equal(
      forecastText(s).next?.text,
      'Next compaction: at about 9,000 tokens (≈ 6 turns at the recent growth; marked on the bar). A summary comes later. It keeps the newest 12,000 tokens verbatim: today that is the whole conversation (40 tokens); your own words are kept verbatim (only if they alone outgrow the window are older long ones cut).',
    );
  });

  it('names the first kept turn and the budget once older history lies outside the tail', () => {
    const s = snap({
      action: 'summarise',
      reason: 'Over 70 %.',
      tokensBefore: 20_000,
      expectedAfter: 13_000,
      protectedFrom: 2,
      protectedTokens: 12_300,
      paybackRequests: 2.2,
    });
    assert.ok(parseBudgetToWebview(s).ok);
    assert.equal(s.nextCompaction?.keepsAll, false);
    const t = forecastText(s);
    assert.equal(t.next?.action, 'summarise');
    assert.equal(
      t.next?.text,
      'Next request summarises older history: 20,000 → about 13,000 tokens. Over 70 %. It keeps the newest 12,300 tokens verbatim (from turn 2: at least its 12,000-token budget, out to where a tool round starts); your own words are kept verbatim (only if they alone outgrow the window are older long ones cut). Pays back its prompt-cache rewrite in about 3 requests.',
    );
  });

  it('says so when no token budget is set (keepRecentTokens 0) instead of a 0-token budget', () => {
    const older = forecastText(snap({ keepRecentTokens: 0, protectedFrom: 2, protectedTokens: 499, tokensBefore: 900 }))
      .next?.text;
    assert.match(older ?? '', /from turn 2: no token budget is set, so the kept turns and the last tool round\)/);
    assert.doesNotMatch(older ?? '', /0-token budget/);
    const all = forecastText(snap({ keepRecentTokens: 0 })).next?.text;
    assert.match(all ?? '', /keeps the newest turns and the last tool round verbatim \(no token budget is set\)/);
    assert.doesNotMatch(all ?? '', /newest 0 tokens/);
  });

  it('forecasts the soft threshold from the growth per turn, or says there is not enough to go by', () => {
    assert.match(forecastText(snap({})).forecast, /^≈ \d+ turns until the soft threshold/);
    assert.match(forecastText(snap({}, [1_000])).forecast, /^Not enough turns yet/);
    assert.equal(forecastText({ ...snap({}), nextCompaction: undefined }).next, undefined);
  });
});
