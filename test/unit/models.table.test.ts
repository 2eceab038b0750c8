import { strict as assert } from 'node:assert';
import { addCosts, formatUsd, requestCostUsd } from '../../src/core/llm/cost';
import { resolveConfig } from '../../src/core/pipeline/config';
import { modelInfo, planningPrices } from '../../src/core/models/modelFacts';
import { MODEL_TABLE } from '../../src/core/models/modelTable';

const usage = (input: number, read = 0, write = 0, output = 0) => ({
  input_tokens: input,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write,
  output_tokens: output,
});

describe('model table', () => {
  it('knows the current and legacy models the docs list, with windows and output limits', () => {
    for (const id of [
      'claude-fable-5-2',
      'claude-fable-5-1',
      'claude-opus-5-5',
      'claude-sonnet-5-5',
      'claude-haiku-5-5',
      'claude-opus-4-8',
      'claude-opus-4-7',
      'claude-opus-4-6',
      'claude-sonnet-4-6',
    ]) {
      const m = modelInfo(id);
      assert.ok(m.known, id);
      assert.equal(m.contextWindow, 1_000_000, id);
      assert.equal(m.maxOutput, 128_000, id);
    }
    assert.equal(modelInfo('claude-opus-4-5-20251101').contextWindow, 200_000);
    assert.equal(modelInfo('claude-haiku-4-5').maxOutput, 64_000);
    assert.equal(modelInfo('claude-3-5-haiku-latest').outputReserve, 8192);
    assert.equal(modelInfo('claude-opus-4-6[1m]').id, 'claude-opus-4-6');
    assert.equal(modelInfo('claude-opus-5-5').id, 'claude-opus-5-5', 'the longest family wins over claude-opus-5');
    assert.equal(new Set(MODEL_TABLE.map((m) => m.id)).size, MODEL_TABLE.length);
  });

  it('says which tokenizer family a model counts with (Opus 4.7+, Sonnet 5, Fable, Mythos, Haiku 5.5: the newer one)', () => {
    assert.equal(modelInfo('claude-opus-4-7').tokenizer, 'claude-2026');
    assert.equal(modelInfo('claude-sonnet-5').tokenizer, 'claude-2026');
    assert.equal(modelInfo('claude-haiku-5-5').tokenizer, 'claude-2026');
    assert.equal(modelInfo('claude-opus-4-6').tokenizer, 'claude');
    assert.equal(modelInfo('claude-haiku-4-5').tokenizer, 'claude');
  });

  it("prices 5m and 1h cache writes and reads from the model's own rate card", () => {
    // Fable 5.2: $8 in, $40 out, 5m write $10, 1h write $16, read $0.20.
    assert.equal(requestCostUsd('claude-fable-5-2', usage(1_000_000, 1_000_000, 0, 1_000_000)), 48.2);
    assert.equal(requestCostUsd('claude-fable-5-2', usage(0, 0, 1_000_000), '1h'), 16);
    // Sonnet 4.6: $3 in, $15 out, 5m write $3.75, 1h write $6, read $0.30.
    assert.equal(requestCostUsd('claude-sonnet-4-6', usage(1_000_000)), 3);
    assert.equal(requestCostUsd('claude-sonnet-4-6', usage(0, 0, 1_000_000), '5m'), 3.75);
    assert.equal(requestCostUsd('claude-sonnet-4-6', usage(0, 0, 1_000_000), '1h'), 6);
    assert.ok(Math.abs((requestCostUsd('claude-sonnet-4-6', usage(0, 1_000_000)) ?? NaN) - 0.3) < 1e-9);
    // Opus 5.5's cache read is 0.05× input ($0.20), not 0.1×.
    assert.ok(Math.abs((requestCostUsd('claude-opus-5-5', usage(0, 1_000_000)) ?? NaN) - 0.2) < 1e-9);
    // Haiku as summariser.
    assert.equal(requestCostUsd('claude-haiku-4-5', usage(1_000_000, 0, 0, 1_000_000)), 6);
  });

  it('bills Haiku 5.5 prompts over 100,000 tokens at the long-prompt rates, for the whole request', () => {
    assert.ok(
      Math.abs(
        (requestCostUsd('claude-haiku-5-5', usage(100_000, 0, 0, 1000)) ?? NaN) - (100_000 * 0.1 + 1000 * 0.5) / 1e6,
      ) < 1e-12,
    );
    assert.ok(
      Math.abs(
        (requestCostUsd('claude-haiku-5-5', usage(50_001, 50_000, 0, 1000)) ?? NaN) -
          (50_001 * 0.5 + 50_000 * 0.05 + 1000 * 2.5) / 1e6,
      ) < 1e-12,
    );
  });

  it('prices a model it does not know as unknown, never as another model', () => {
    assert.equal(modelInfo('my-proxy-model').prices, undefined);
    assert.equal(requestCostUsd('my-proxy-model', usage(1000)), undefined);
    assert.equal(formatUsd(undefined), '—');
    assert.equal(formatUsd(0.5), '$0.5000');
    assert.equal(addCosts(1, undefined), undefined);
    assert.equal(addCosts(1, 2), 3);
    // Planning still has a scale (not shown as a cost).
    assert.equal(planningPrices('my-proxy-model').input, 3);
  });
});

describe('window source (setting, Models API, table)', () => {
  it('takes only plausible figures from the Models API, and refuses a window setting over the maximum (issue 34 #6)', () => {
    for (const bad of [1e12, Infinity, 15_999, Number.NaN, -1]) {
      const r = resolveConfig({ model: 'claude-sonnet-4-5' }, { id: 'claude-sonnet-4-5', maxInputTokens: bad });
      assert.ok(r.ok, String(bad));
      assert.equal(r.windowSource, 'table', String(bad));
      assert.equal(r.config.contextWindow, modelInfo('claude-sonnet-4-5').contextWindow);
      assert.ok(Number.isFinite(r.config.contextWindow));
      assert.match(r.warnings.join(' '), /not plausible/, String(bad));
    }
    const hugeOutput = resolveConfig({ model: 'claude-sonnet-4-5' }, { id: 'claude-sonnet-4-5', maxTokens: Infinity });
    assert.ok(hugeOutput.ok && Number.isFinite(hugeOutput.config.outputReserve));
    const setting = resolveConfig({ model: 'claude-sonnet-4-5', contextWindow: 1e12 });
    assert.equal(setting.ok, false);
    if (!setting.ok) assert.match(setting.error, /more than the 2,000,000/);
  });

  it('an explicit setting wins, else the Models API, else the table, else an assumption', () => {
    const api = { id: 'claude-sonnet-4-5', maxInputTokens: 1_000_000, maxTokens: 64_000 };
    const set = resolveConfig({ model: 'claude-sonnet-4-5', contextWindow: 150_000 }, api);
    assert.ok(set.ok);
    assert.deepEqual([set.config.contextWindow, set.windowSource], [150_000, 'setting']);
    const fromApi = resolveConfig({ model: 'claude-sonnet-4-5' }, api);
    assert.ok(fromApi.ok);
    assert.deepEqual([fromApi.config.contextWindow, fromApi.windowSource], [1_000_000, 'models-api']);
    const table = resolveConfig({ model: 'claude-sonnet-4-5' }, { ...api, id: 'claude-opus-4-6' });
    assert.ok(table.ok);
    assert.deepEqual(
      [table.config.contextWindow, table.windowSource],
      [200_000, 'table'],
      'limits of another model are ignored',
    );
    const unknown = resolveConfig({ model: 'proxy-x' });
    assert.ok(unknown.ok);
    assert.equal(unknown.windowSource, 'assumed');
    const apiKnowsProxy = resolveConfig(
      { model: 'proxy-x' },
      { id: 'proxy-x', maxInputTokens: 500_000, maxTokens: 8000 },
    );
    assert.ok(apiKnowsProxy.ok);
    assert.deepEqual(
      [
        apiKnowsProxy.config.contextWindow,
        apiKnowsProxy.config.outputReserve,
        apiKnowsProxy.windowSource,
        apiKnowsProxy.warnings.length,
      ],
      [500_000, 8000, 'models-api', 0],
    );
  });
});

describe('estimator prior per tokenizer family', () => {
  it('seeds the newer tokenizer with 1.3× the prior, and restarts calibration when the model changes', async () => {
    const { TokenEstimator } = await import('../../src/core/tokens/estimator');
    const { priorFactorFor, DEFAULT_CALIBRATION_OPTIONS } = await import('../../src/core/tokens/calibration');
    const words = { name: 'words', count: (t: string) => t.split(/\s+/).filter(Boolean).length };
    const est = new TokenEstimator(words);
    assert.equal(priorFactorFor('claude'), DEFAULT_CALIBRATION_OPTIONS.priorFactor);
    assert.ok(Math.abs(priorFactorFor('claude-2026') - DEFAULT_CALIBRATION_OPTIONS.priorFactor * 1.3) < 1e-12);
    assert.equal(
      est.useModel('claude-opus-5-5', priorFactorFor('claude-2026')),
      false,
      'the first model only sets the prior',
    );
    assert.ok(Math.abs(est.calibration.factor - priorFactorFor('claude-2026')) < 1e-12);
    const req = { system: [], tools: [], messages: [] };
    est.observe(req, { input_tokens: 500 });
    assert.equal(est.anchorTokens, 500);
    assert.equal(est.useModel('claude-opus-5-5', priorFactorFor('claude-2026')), false, 'same model: nothing restarts');
    assert.equal(est.useModel('claude-haiku-4-5', priorFactorFor('claude')), true);
    assert.equal(est.anchorTokens, undefined);
    assert.equal(est.calibration.factor, priorFactorFor('claude'));
  });
});
