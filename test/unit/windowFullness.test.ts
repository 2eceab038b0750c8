import { strict as assert } from 'node:assert';
import { contextPressure, fullnessOf } from '../../src/core/pipeline/window';
import { chars4Tokenizer } from '../../src/core/tokens/chars4';
import { TokenEstimator } from '../../src/core/tokens/estimator';
import { BudgetHistory, buildBudgetSnapshot } from '../../src/host/budget/budgetData';
import { statusBarText, type ContextFigures } from '../../src/host/statusBarText';
import { parseBudgetToWebview } from '../../src/protocol/budget';
import { hardMarkTitle, markLegend, nextMarkTitle, softMarkTitle } from '../../src/webview/shared/windowMarks';
import { Build, emptyState, testConfig } from './support/builders';

const cfg = { contextWindow: 200_000, outputReserve: 32_000, softThreshold: 0.7, hardThreshold: 0.9 };

describe('the one "% full" (core/pipeline/window.ts)', () => {
  it('is of the usable (effective) window, said with what it is of', () => {
    const p = contextPressure(104_000, cfg);
    assert.equal(p.percentFull, 62);
    assert.equal(p.fullness, '62 % of the 168k usable window');
    assert.equal(p.softMark, '70 % (118k)');
    assert.equal(p.hardMark, '90 % (151k)');
    assert.equal(contextPressure(180_000, cfg).percentFull, 107, 'past the usable window it exceeds 100');
    assert.deepEqual(fullnessOf(0, 0), { percentFull: 0, fullness: '0 % of the 0 usable window' });
  });

  it('the status bar shows that figure, not the share of the raw window', () => {
    const figures: ContextFigures = {
      promptTokens: 104_000,
      window: cfg.contextWindow,
      outputReserve: cfg.outputReserve,
      softThreshold: cfg.softThreshold,
      hardThreshold: cfg.hardThreshold,
      pressure: contextPressure(104_000, cfg),
      costUsd: 0,
      compactions: 0,
    };
    const bar = statusBarText(figures);
    assert.equal(bar.text, '$(pulse) 62 % of 168k');
    assert.match(bar.tooltip, /\*\*62 % of the 168k usable window\*\*/);
    assert.equal(statusBarText({ ...figures, estimated: true }).text, '$(pulse) ≈62 % of 168k');
  });

  it('the budget panel gets the same figure for the same prompt, with the soft action for its marks', () => {
    const b = new Build('full');
    const config = testConfig(cfg);
    const state = emptyState({
      config,
      messages: [b.message('user', [b.text('How does the retry loop back off? '.repeat(300))], 1)],
    });
    const snap = buildBudgetSnapshot({
      session: 's',
      state,
      tokenizer: chars4Tokenizer,
      estimator: new TokenEstimator(chars4Tokenizer),
      history: new BudgetHistory(),
      compactions: [],
      busy: false,
      softAction: 'propose',
    });
    assert.ok(parseBudgetToWebview(snap).ok);
    const same = contextPressure(snap.nextEstimate, config);
    assert.equal(snap.pressure.fullness, same.fullness);
    assert.equal(snap.pressure.percentFull, same.percentFull);
    assert.equal(snap.pressure.softAction, 'propose');
    assert.ok(!parseBudgetToWebview({ ...snap, pressure: { ...snap.pressure, softAction: 'sometimes' } }).ok);
  });
});

describe('the window marks say what happens there (src/webview/shared/windowMarks.ts)', () => {
  const p = contextPressure(104_000, cfg);
  it('the soft mark names its action and where it is', () => {
    assert.equal(softMarkTitle({ ...p, softAction: 'auto' }), 'Auto-compact at 70 % (118k)');
    assert.equal(softMarkTitle({ ...p, softAction: 'propose' }), 'Compaction proposed at 70 % (118k)');
    assert.match(
      softMarkTitle({ ...p, softAction: 'off' }),
      /^Soft threshold at 70 % \(118k\) \(nothing happens there/,
    );
    assert.equal(softMarkTitle(p), 'Soft threshold at 70 % (118k)');
  });

  it('the hard and next-compaction marks, and the legend', () => {
    assert.equal(hardMarkTitle(p), 'Must compact at 90 % (151k), before the next request is sent');
    assert.equal(
      nextMarkTitle(130_000, 'the soft threshold'),
      'Next compaction expected at 130,000 tokens — the soft threshold',
    );
    assert.deepEqual(markLegend({ ...p, softAction: 'auto' }), {
      soft: 'auto-compact 70 % (118k)',
      hard: 'must compact 90 % (151k)',
      next: 'next compaction expected',
    });
  });
});
