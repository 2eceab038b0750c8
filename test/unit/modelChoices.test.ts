import { strict as assert } from 'node:assert';
import { isModelId, modelChoices, tokenizerRatio } from '../../src/core/models/modelChoices';
import { shortTokens } from '../../src/core/platform/text';
import { MODEL_TABLE } from '../../src/core/models/modelTable';

describe('Choose Model: the choices and what a switch means', () => {
  const base = { current: 'claude-sonnet-4-5', promptTokens: 0, cacheTtl: '5m' as const };

  it('offers the maintained table when the Models API was not reached, the current model first and marked', () => {
    const c = modelChoices(base);
    assert.equal(c[0]?.id, 'claude-sonnet-4-5');
    assert.ok(c[0]?.current && c[0].description.startsWith('current · 200k window · $3 / $15 per MTok'));
    assert.deepEqual(new Set(c.map((x) => x.id)), new Set(MODEL_TABLE.map((m) => m.id)));
    assert.equal(c.filter((x) => x.current).length, 1);
    const opus = c.find((x) => x.id === 'claude-opus-4-6');
    assert.equal(opus?.description, '1M window · $5 / $25 per MTok');
  });

  it("offers the API's list (its names and windows, deprecated marked, retired left out) and keeps an unlisted current model", () => {
    const c = modelChoices({
      ...base,
      current: 'my-proxy-model',
      listed: [
        { id: 'claude-opus-4-6', displayName: 'Claude Opus 4.6', maxInputTokens: 200_000, lifecycle: 'active' },
        { id: 'claude-sonnet-4-5', displayName: 'Claude Sonnet 4.5', lifecycle: 'deprecated' },
        { id: 'claude-3-opus', displayName: 'Claude Opus 3', lifecycle: 'retired' },
        { id: 'claude-new-thing', displayName: 'Claude New Thing', maxInputTokens: 500_000 },
      ],
    });
    assert.deepEqual(
      c.map((x) => x.id),
      ['my-proxy-model', 'claude-opus-4-6', 'claude-sonnet-4-5', 'claude-new-thing'],
    );
    assert.equal(c[0]?.description, 'current · 200k window (assumed) · price unknown');
    assert.equal(c[1]?.description, 'Claude Opus 4.6 · 200k window · $5 / $25 per MTok');
    assert.equal(c[2]?.description, 'Claude Sonnet 4.5 · 200k window · $3 / $15 per MTok · deprecated');
    assert.equal(c[3]?.description, 'Claude New Thing · 500k window · price unknown');
  });

  it('says how much of each window the conversation would fill and what restarting the cache costs', () => {
    const c = modelChoices({ ...base, promptTokens: 150_000 });
    assert.equal(c[0]?.detail, '', 'nothing to say about the current model');
    const opus45 = c.find((x) => x.id === 'claude-opus-4-5');
    // Same tokenizer: 150,000 tokens of a 200k window; 150,000 × $6.25 / M = $0.94.
    assert.equal(
      opus45?.detail,
      'Fills 75 % of its window (≈ 150,000 tokens) · cache starts over: ≈ $0.94 to write it again',
    );
    const opus47 = c.find((x) => x.id === 'claude-opus-4-7');
    // The newer tokenizer: ≈ 1.3 × the tokens, 195,000 of 1M; 195,000 × $6.25 / M = $1.22.
    assert.ok(opus47?.detail.startsWith('Fills 20 % of its window (≈ 195,000 tokens)'), opus47?.detail);
    assert.ok(opus47?.detail.endsWith(': ≈ $1.22 to write it again'), opus47?.detail);
  });

  it('warns when the conversation is larger than the window, and prices the 1h cache when asked', () => {
    const c = modelChoices({ ...base, current: 'claude-opus-4-6', promptTokens: 300_000, cacheTtl: '1h' });
    const haiku = c.find((x) => x.id === 'claude-haiku-4-5');
    assert.ok(
      haiku?.detail.startsWith('Over its window (≈ 300,000 tokens): the next request compacts first · '),
      haiku?.detail,
    );
    // Written at most a window: 200,000 × $2 (Haiku 4.5's 1h write) / M = $0.40.
    assert.ok(haiku?.detail.endsWith(': ≈ $0.40 to write it again'), haiku?.detail);
  });

  it("uses the user's contextWindow setting as every model's window", () => {
    const c = modelChoices({ ...base, promptTokens: 40_000, windowSetting: 80_000 });
    const opus = c.find((x) => x.id === 'claude-opus-4-6');
    assert.ok(opus?.description.startsWith('80k window (your contextWindow setting)'));
    assert.ok(opus?.detail.startsWith('Fills 50 % of its window'));
  });

  it('accepts model ids and refuses anything else', () => {
    for (const ok of [
      'claude-sonnet-4-5-20250929',
      'claude-opus-4-6[1m]',
      'claude-sonnet-4-5@20250929',
      'anthropic/claude-x',
      'a',
    ])
      assert.ok(isModelId(ok), ok);
    for (const bad of ['', ' claude', 'claude sonnet', 'x'.repeat(101), 'claude\n', '-claude', 'claude;rm', '`x`'])
      assert.ok(!isModelId(bad), JSON.stringify(bad));
  });

  it('labels windows and tokenizer ratios', () => {
    assert.deepEqual(
      [shortTokens(1_000_000), shortTokens(1_500_000), shortTokens(200_000), shortTokens(24_000), shortTokens(500)],
      ['1M', '1.5M', '200k', '24k', '500'],
    );
    assert.equal(tokenizerRatio('claude', 'claude'), 1);
    assert.equal(tokenizerRatio('claude', 'claude-2026'), 1.3);
    assert.ok(Math.abs(tokenizerRatio('claude-2026', 'claude') * 1.3 - 1) < 1e-12);
  });
});
