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
    const t = forecastText(s).next;
    assert.equal(
      t?.text,
      'Next compaction at about 9,000 tokens (marked on the bar). That is ≈ 6 turns away at the recent growth.',
    );
    assert.equal(
      t?.detail,
      'A summary comes later. It keeps the newest 12,000 tokens verbatim: today that is the whole conversation (40 tokens). Your own words are kept verbatim (only if they alone outgrow the window are older long ones cut).',
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
      'The next request summarises older history. It takes the prompt from 20,000 to about 13,000 tokens.',
    );
    assert.equal(
      t.next?.detail,
      'Over 70 %. It keeps the newest 12,300 tokens verbatim (from turn 2: at least its 12,000-token budget, out to where a tool round starts). Your own words are kept verbatim (only if they alone outgrow the window are older long ones cut). It pays back its prompt-cache rewrite in about 3 requests.',
    );
  });

  it('says so when no token budget is set (keepRecentTokens 0) instead of a 0-token budget', () => {
    const older = forecastText(snap({ keepRecentTokens: 0, protectedFrom: 2, protectedTokens: 499, tokensBefore: 900 }))
      .next?.detail;
    assert.match(older ?? '', /from turn 2: no token budget is set, so the kept turns and the last tool round\)/);
    assert.doesNotMatch(older ?? '', /0-token budget/);
    const all = forecastText(snap({ keepRecentTokens: 0 })).next?.detail;
    assert.match(all ?? '', /keeps the newest turns and the last tool round verbatim \(no token budget is set\)/);
    assert.doesNotMatch(all ?? '', /newest 0 tokens/);
  });

  it('forecasts the soft threshold from the growth per turn, or says there is not enough to go by', () => {
    assert.match(
      forecastText(snap({})).forecast,
      /^The soft threshold \([\d,]+ tokens\) is ≈ \d+ turns away\. The prompt grows [\d,]+ tokens a turn on average\.$/,
    );
    assert.match(
      forecastText(snap({}, [1_000])).forecast,
      /^The soft threshold is at [\d,]+ tokens\. Too few turns yet/,
    );
    assert.equal(forecastText({ ...snap({}), nextCompaction: undefined }).next, undefined);
  });

  it('each line is two short sentences (the why and what is kept follow in the detail)', () => {
    const sentences = (text: string) => text.split(/(?<=\.)\s+(?=[A-Z≈])/);
    const plans: Partial<CompactionPlan>[] = [
      {},
      {
        action: 'mask',
        reason: 'Older tool results.',
        tokensBefore: 20_000,
        expectedAfter: 15_000,
        paybackRequests: 1,
      },
      { action: 'summarise', reason: 'Over 70 %.', tokensBefore: 20_000, expectedAfter: 13_000, protectedFrom: 2 },
    ];
    for (const plan of plans) {
      const t = forecastText(snap(plan));
      for (const line of [t.forecast, t.next?.text ?? '']) {
        assert.equal(sentences(line).length, 2, line);
        assert.ok(line.length <= 120, `short: ${line}`);
      }
    }
    const past = forecastText({ ...snap({}), forecast: { growthPerTurn: 1_000, past: true, limit: 9_000 } }).forecast;
    assert.equal(
      past,
      'Already past the soft threshold (9,000 tokens). The next request compacts or proposes compaction.',
    );
    const far = forecastText({
      ...snap({}),
      forecast: { growthPerTurn: 106, turns: 1_080, past: false, limit: 117_600 },
    });
    assert.equal(
      far.forecast,
      'The soft threshold (117,600 tokens) is ≈ 1,080 turns away. The prompt grows 106 tokens a turn on average.',
    );
  });
});
