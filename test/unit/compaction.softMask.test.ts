import { strict as assert } from 'node:assert';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import { planCompaction } from '../../src/core/compaction/plan';
import { maskPaysBeforeSummary, paysBack, requestsUntilPays } from '../../src/core/compaction/planEconomics';
import type { ConversationState } from '../../src/core/conversation/conversationModel';
import { testConfig } from './support/builders';
import { Convo, tokensOf } from './support/compactionFixtures';

/** Ten finished turns, each two reads of `resultChars` and an answer of `answerChars`, in a 100k window. */
function history(answerChars: number, resultChars: number): ConversationState {
  const c = new Convo('sm');
  for (let t = 0; t < 10; t++)
    c.add({
      user: `Part ${t}`,
      tools: [0, 1].map((i) => ({
        name: 'Read',
        input: { file_path: `src/p${t}/f${i}.ts` },
        result: `${i}: ${'x'.repeat(resultChars)}`,
      })),
      answer: `Answer ${t}. ${'y'.repeat(answerChars)}`,
    });
  return c.state({
    config: testConfig({ contextWindow: 100_000, outputReserve: 10_000, keepRecentTurns: 0, keepRecentTokens: 2_000 }),
  });
}

const plan = (state: ConversationState, growthPerRequest: number, maskToolResults = true) =>
  planCompaction(state, {
    tokensOf,
    fixedTokens: 35_000,
    settings: { ...DEFAULT_COMPACTION_SETTINGS, maskToolResults },
    cacheWarm: true,
    mode: 'auto',
    growthPerRequest,
  });

describe('over the soft threshold, a mask does not go just before a summary takes the same results', () => {
  it('waits when the summary is due before the mask would pay back (the cache would be written twice)', () => {
    const state = history(4_000, 6_000);
    const p = plan(state, 2_000);
    assert.equal(p.pressure.level, 'soft');
    assert.equal(p.action, 'none', p.reason);
    assert.match(p.reason, /would not yet pay back/);
    assert.match(p.reason, /not cleared first: the summary, due in about \d+ requests/);
    // The figures behind it: the mask alone would pay back within half its cycle, the summary
    // (which frees more) not yet, but it will in fewer requests than the mask needs.
    const summary = planCompaction(state, {
      tokensOf,
      fixedTokens: 35_000,
      settings: DEFAULT_COMPACTION_SETTINGS,
      cacheWarm: true,
      mode: 'manual',
      growthPerRequest: 2_000,
    });
    assert.equal(summary.action, 'summarise');
    assert.ok(!paysBack(summary, 2_000, Infinity), `the summary does not pay back yet (${summary.paybackRequests})`);
    const due = requestsUntilPays(summary, 2_000);
    assert.ok(due > 0 && due < 6, `the summary is due in ${due} requests`);
    // Slower growth: the summary pays back now and runs, with no mask before it.
    assert.equal(plan(state, 1_000).action, 'summarise');
  });

  it('masks when the mask frees as much as the summary would: it stands in for it, lossless and with no summariser', () => {
    const state = history(2_000, 8_000);
    const p = plan(state, 2_000);
    assert.equal(p.pressure.level, 'soft');
    assert.equal(p.action, 'mask', p.reason);
    assert.match(p.reason, /nothing else can be summarised|Older tool results are cleared/);
    assert.equal(plan(state, 2_000, false).action, 'none', 'the summary alone would wait');
  });
});

describe('requestsUntilPays: when a summary that waits for its payback will run', () => {
  it('is the growth after which the payback meets half the cycle', () => {
    const figures = { paybackRequests: 16, expectedSaving: 20_000 };
    const g = 800;
    const k = requestsUntilPays(figures, g);
    const grown = figures.expectedSaving + k * g;
    const payback = (figures.paybackRequests * figures.expectedSaving) / grown;
    assert.ok(k > 0, `${k}`);
    assert.ok(Math.abs(payback - grown / (2 * g)) < 1e-9, `${payback} vs ${grown / (2 * g)}`);
    assert.ok(paysBack({ paybackRequests: payback, expectedSaving: grown + 1 }, g, Infinity));
  });

  it('is 0 for an edit that pays back already, Infinity without growth or payback', () => {
    assert.equal(requestsUntilPays({ paybackRequests: 2, expectedSaving: 20_000 }, 800), 0);
    assert.equal(requestsUntilPays({ paybackRequests: 12, expectedSaving: 20_000 }, undefined), Infinity);
    assert.equal(requestsUntilPays({ paybackRequests: 12, expectedSaving: 20_000 }, 0), Infinity);
    assert.equal(requestsUntilPays({ paybackRequests: Infinity, expectedSaving: 20_000 }, 800), Infinity);
  });
});

describe('maskPaysBeforeSummary: a mask before a summary that takes the same results', () => {
  const mask = { paybackRequests: 8, expectedSaving: 20_000 };
  it('goes with no summary to come, or when it frees as much as the summary', () => {
    assert.ok(maskPaysBeforeSummary(mask, undefined, 0));
    assert.ok(maskPaysBeforeSummary(mask, { expectedSaving: 20_000 }, 0));
  });
  it('otherwise only when it pays back before the summary is due', () => {
    assert.ok(maskPaysBeforeSummary(mask, { expectedSaving: 30_000 }, 8));
    assert.ok(!maskPaysBeforeSummary(mask, { expectedSaving: 30_000 }, 7.9));
  });
});
