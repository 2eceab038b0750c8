import { strict as assert } from 'node:assert';
import { resolveConfig } from '../../src/core/pipeline/config';
import { modelInfo } from '../../src/core/models/modelFacts';
import { pasteThresholdFor } from '../../src/core/pipeline/window';

describe('resolveConfig', () => {
  it('resolves defaults from the model', () => {
    const r = resolveConfig({});
    assert.ok(r.ok);
    assert.equal(r.config.model, 'claude-sonnet-4-6');
    // Sonnet 4.6: 1M window per its current overview page (see src/core/modelTable.ts).
    assert.equal(r.config.contextWindow, 1_000_000);
    assert.equal(r.windowSource, 'table');
    assert.equal(r.config.minCacheableTokens, 1024);
    assert.deepEqual(r.warnings, []);
  });

  it('refuses a window under 16k tokens and warns under 32k', () => {
    const tiny = resolveConfig({ contextWindow: 8_000 });
    assert.ok(!tiny.ok);
    assert.match(tiny.error, /8,000 tokens is too small/);
    const small = resolveConfig({ contextWindow: 20_000 });
    assert.ok(small.ok);
    assert.match(small.warnings.join(), /small/);
    assert.ok(small.config.outputReserve <= 5_000, 'the reserve shrinks with the window');
  });

  it('takes the answer reserve from the setting, at most half the window', () => {
    const r = resolveConfig({ maxOutputTokens: 8_000 });
    assert.ok(r.ok && r.config.outputReserve === 8_000);
    const capped = resolveConfig({ contextWindow: 20_000, maxOutputTokens: 15_000 });
    assert.ok(capped.ok && capped.config.outputReserve === 10_000 && /too little room/.test(capped.warnings.join()));
  });

  it('keeps the hard threshold above the soft one', () => {
    const r = resolveConfig({ softThreshold: 0.9, hardThreshold: 0.8 });
    assert.ok(r.ok);
    assert.ok(r.config.hardThreshold > r.config.softThreshold);
    assert.equal(r.warnings.length, 1);
  });

  it('knows dated model ids and says when it does not know a model', () => {
    assert.equal(modelInfo('claude-sonnet-4-5-20250929').id, 'claude-sonnet-4-5');
    assert.equal(modelInfo('claude-haiku-4-5').minCacheableTokens, 4096);
    const r = resolveConfig({ model: 'my-proxy-model' });
    assert.ok(r.ok);
    assert.match(r.warnings[0] ?? '', /Unknown model "my-proxy-model"/);
  });

  it('lowers the paste threshold in a small window: a paste may take at most 30 % of it inline', () => {
    const at = (contextWindow: number, pasteThresholdChars?: number) => {
      const r = resolveConfig({ contextWindow, ...(pasteThresholdChars ? { pasteThresholdChars } : {}) });
      assert.ok(r.ok);
      return r.config.pasteThresholdChars;
    };
    assert.equal(at(200_000), 100_000, 'the default where it fits');
    assert.equal(at(24_000), 28_800, '30 % of 24,000 tokens at 4 characters a token');
    assert.equal(at(1_000_000, 500_000), 500_000, 'a larger setting where the window has room for it');
    assert.equal(at(50_000, 500_000), 60_000);
    assert.equal(pasteThresholdFor(500, 200_000), 1_000, 'never under 1,000 characters');
  });
});
