import { strict as assert } from 'node:assert';
import {
  DEFAULT_COMPACTION_SETTINGS,
  effectiveWindow as policyEffectiveWindow,
  pressureOf,
} from '../../src/core/compaction/policy';
import { requestCostUsd } from '../../src/core/llm/cost';
import { withRequest, EMPTY_HEALTH } from '../../src/core/compaction/health';
import { contextPressure, effectiveWindow, PRESSURE_LEVELS } from '../../src/core/pipeline/window';
import { reportedPromptTokens, reportedTotalTokens } from '../../src/core/tokens/promptTokens';
import { requestHistoryOf } from '../../src/core/session/requestHistory';
import { chars4Tokenizer } from '../../src/core/tokens/chars4';
import { TokenEstimator } from '../../src/core/tokens/estimator';
import { BudgetHistory, buildBudgetSnapshot } from '../../src/host/budget/budgetData';
import { statusBarText, type ContextFigures } from '../../src/host/statusBarText';
import { parseBudgetToWebview } from '../../src/protocol/budget';
import { parseChatToWebview } from '../../src/protocol/chat';
import { Build, emptyState, testConfig } from './support/builders';

const usage = { input_tokens: 100, cache_read_input_tokens: 2000, cache_creation_input_tokens: 300, output_tokens: 40 };

describe('prompt tokens of a usage (one home: core/tokens/promptTokens.ts)', () => {
  it('is input + cache reads + cache writes; absent cache fields count 0', () => {
    assert.equal(reportedPromptTokens(usage), 2400);
    assert.equal(reportedPromptTokens({ input_tokens: 7 }), 7);
    assert.equal(reportedPromptTokens({ input_tokens: 7, cache_read_input_tokens: null }), 7);
    assert.equal(reportedTotalTokens(usage), 2440);
  });

  it('is the figure the cache health and the rebuilt request history use', () => {
    assert.equal(withRequest(EMPTY_HEALTH, usage, false).promptTokens, reportedPromptTokens(usage));
    const h = requestHistoryOf([
      { type: 'usage', at: 1, requestIndex: 1, turn: 1, model: 'm', usage, estimatedInputTokens: 1 },
    ]);
    assert.equal(h.requests[0]?.promptTokens, reportedPromptTokens(usage));
    assert.deepEqual(h.turnPrompts, [reportedTotalTokens(usage)]);
  });

  it('selects the rate card of the cost (a long prompt is priced as one)', () => {
    const long = {
      input_tokens: 150_000,
      cache_read_input_tokens: 60_000,
      cache_creation_input_tokens: 0,
      output_tokens: 0,
    };
    const split = { ...long, input_tokens: 150_000 / 2 };
    // Same model, same kinds of tokens: the long prompt (> 200k) costs more per token than half of it.
    const a = requestCostUsd('claude-sonnet-4-5', long);
    const b = requestCostUsd('claude-sonnet-4-5', split);
    assert.ok(a !== undefined && b !== undefined);
    assert.ok(a / reportedPromptTokens(long) > b / reportedPromptTokens(split));
  });
});

describe('effective window and pressure (one home: core/pipeline/window.ts)', () => {
  const cfg = { contextWindow: 200_000, outputReserve: 20_000, softThreshold: 0.7, hardThreshold: 0.9 };

  it('the effective window is window − reserve, at least 1; the policy re-exports the same function', () => {
    assert.equal(effectiveWindow(cfg), 180_000);
    assert.equal(effectiveWindow({ contextWindow: 10, outputReserve: 50 }), 1);
    assert.equal(policyEffectiveWindow, effectiveWindow);
  });

  it('puts the thresholds at fraction × effective window and grades a prompt ok, soft, hard, over', () => {
    const at = (t: number) => contextPressure(t, cfg);
    assert.deepEqual([at(0).softAt, at(0).hardAt, at(0).effectiveWindow], [126_000, 162_000, 180_000]);
    assert.deepEqual(
      [125_999, 126_000, 161_999, 162_000, 180_000, 180_001].map((t) => at(t).level),
      ['ok', 'soft', 'soft', 'hard', 'hard', 'over'],
    );
    assert.equal(at(90_000).utilisation, 0.5);
    assert.deepEqual(PRESSURE_LEVELS, ['ok', 'soft', 'hard', 'over']);
  });
});

describe('the surfaces agree on the figures of one state', () => {
  const b = new Build('fig');
  const messages = [
    b.message('user', [b.text('Explain the retry loop in src/client.ts. '.repeat(200))], 1),
    b.message('assistant', [b.text('It backs off exponentially. '.repeat(150), 'assistant')], 1),
  ];

  const snapshotAt = (window: number) => {
    const config = testConfig({ contextWindow: window, outputReserve: 1_000, softThreshold: 0.7, hardThreshold: 0.9 });
    const snap = buildBudgetSnapshot({
      session: 's',
      state: emptyState({ messages, config }),
      tokenizer: chars4Tokenizer,
      estimator: new TokenEstimator(chars4Tokenizer),
      history: new BudgetHistory(),
      compactions: [],
      busy: false,
    });
    return { config, snap };
  };
  // The next request's size does not depend on the window: place it in each band of the bar.
  const size = snapshotAt(1_000_000).snap.nextEstimate;
  const cases = [
    ['ok', 0.5],
    ['soft', 0.8],
    ['hard', 0.95],
    ['over', 1.2],
  ] as const;

  for (const [expected, share] of cases) {
    it(`status bar == budget panel == compaction policy (a prompt at ${share * 100} % of the effective window)`, () => {
      const { config, snap } = snapshotAt(Math.round(size / share) + 1_000);
      assert.ok(parseBudgetToWebview(snap).ok);
      assert.equal(snap.pressure.level, expected);
      const tokens = snap.nextEstimate;
      // The status bar's figures as the host builds them (statusReport.ts).
      const figures: ContextFigures = {
        promptTokens: tokens,
        window: config.contextWindow,
        outputReserve: config.outputReserve,
        softThreshold: config.softThreshold,
        hardThreshold: config.hardThreshold,
        pressure: contextPressure(tokens, config),
        costUsd: 0,
        compactions: 0,
      };
      const bar = statusBarText(figures);
      const policy = pressureOf(tokens, config, DEFAULT_COMPACTION_SETTINGS);
      const tone = { ok: undefined, soft: 'warning', hard: 'error', over: 'error' }[snap.pressure.level];
      assert.equal(bar.tone, tone, 'status bar tone follows the panel level');
      assert.equal(policy.level, expected === 'over' ? 'hard' : expected, 'policy level');
      assert.equal(policy.utilisation, snap.pressure.utilisation);
      const eff = effectiveWindow(config);
      assert.equal(snap.pressure.effectiveWindow, eff);
      assert.match(bar.tooltip, new RegExp(`of ${eff.toLocaleString('en-US')} tokens`));
      assert.equal(snap.forecast.limit, snap.pressure.softAt, 'the forecast runs to the soft threshold the bar marks');
    });
  }

  it('the chat status carries the pressure, optional when the settings are invalid', () => {
    const base = {
      type: 'status',
      version: '1',
      model: 'm',
      contextWindow: 200_000,
      outputReserve: 20_000,
      softThreshold: 0.7,
      hardThreshold: 0.9,
      autoCompact: true,
      apiKey: 'missing',
      busy: false,
      sessionTitle: 't',
      promptTokens: 130_000,
      costUsd: null,
      warnings: [],
    };
    assert.ok(parseChatToWebview(base).ok);
    const pressure = contextPressure(130_000, testConfig({ contextWindow: 200_000, outputReserve: 20_000 }));
    assert.ok(parseChatToWebview({ ...base, pressure: { ...pressure } }).ok);
    assert.ok(!parseChatToWebview({ ...base, pressure: { ...pressure, level: 'panic' } }).ok);
  });
});
