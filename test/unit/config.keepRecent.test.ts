import { strict as assert } from 'node:assert';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import { planCompaction } from '../../src/core/compaction/plan';
import { defaultKeepRecentTokens, KEEP_RECENT_MAX_SHARE, resolveConfig } from '../../src/core/pipeline/config';
import type { PipelineConfig } from '../../src/core/conversation/conversationModel';
import { Convo, lines, tokensOf } from './support/compactionBuilders';

/** A resolved config, or the test fails. */
function config(settings: Parameters<typeof resolveConfig>[0]): PipelineConfig {
  const r = resolveConfig(settings);
  assert.ok(r.ok, r.ok ? '' : r.error);
  return r.config;
}

describe('keepRecentTokens in a small window', () => {
  it('is capped at a share of the effective window, with a warning naming the setting', () => {
    const r = resolveConfig({ contextWindow: 24_000, keepRecentTokens: 20_000 });
    assert.ok(r.ok);
    const eff = r.config.contextWindow - r.config.outputReserve;
    assert.equal(r.config.keepRecentTokens, Math.floor(KEEP_RECENT_MAX_SHARE * eff));
    assert.match(r.warnings.join('\n'), /keepRecentTokens.*24,000-token window; keeping 5,400/);
  });

  it('leaves the setting alone when the window has room for it', () => {
    const r = resolveConfig({ keepRecentTokens: 20_000 });
    assert.ok(r.ok);
    assert.equal(r.config.keepRecentTokens, 20_000);
    assert.deepEqual(r.warnings, []);
    assert.equal(config({ contextWindow: 100_000 }).keepRecentTokens, 12_000, 'the default fits a 100k window');
  });

  it('by default keeps 12,000 tokens, or 8 % of a larger window up to 20,000; capped silently in a small one', () => {
    assert.equal(config({ contextWindow: 100_000 }).keepRecentTokens, 12_000);
    assert.equal(config({ contextWindow: 200_000 }).keepRecentTokens, 16_000);
    assert.equal(config({ contextWindow: 250_000 }).keepRecentTokens, 20_000);
    assert.equal(config({ contextWindow: 1_000_000 }).keepRecentTokens, 20_000, 'at most 20,000 by default');
    assert.equal(defaultKeepRecentTokens(150_000), 12_000);
    for (const unset of [undefined, null]) {
      const r = resolveConfig({ contextWindow: 24_000, keepRecentTokens: unset });
      assert.ok(r.ok);
      assert.equal(r.config.keepRecentTokens, Math.floor(KEEP_RECENT_MAX_SHARE * (24_000 - r.config.outputReserve)));
      assert.deepEqual(
        r.warnings.filter((w) => w.includes('keepRecentTokens')),
        [],
        'no warning about a value the user did not set',
      );
    }
    assert.equal(config({ contextWindow: 200_000, keepRecentTokens: 0 }).keepRecentTokens, 0, 'an explicit 0 stays 0');
  });

  it('lets the hard threshold compact a long turn in a 24k window (no overflow)', () => {
    // One user request, then read rounds of ~2 000 tokens each until the prompt is over the hard threshold.
    const cfg = config({ contextWindow: 24_000, keepRecentTokens: 20_000, keepRecentTurns: 3 });
    const eff = cfg.contextWindow - cfg.outputReserve;
    const convo = new Convo().user('Audit every module under src/.');
    let tokens = 0;
    for (let i = 1; tokens < cfg.hardThreshold * eff; i++) {
      convo.read(`src/mod${i}.ts`, lines(200, 40, `mod${i}`));
      tokens = convo.messages.reduce((n, m) => n + tokensOf(m), 0);
    }
    const plan = planCompaction(convo.state(cfg), {
      tokensOf,
      fixedTokens: 0,
      settings: DEFAULT_COMPACTION_SETTINGS,
      cacheWarm: true,
      mode: 'auto',
    });
    assert.equal(plan.pressure.level, 'hard');
    assert.notEqual(plan.action, 'none', plan.reason);
    assert.ok(
      plan.expectedAfter < cfg.hardThreshold * eff,
      `the plan brings ${plan.tokensBefore} tokens under the hard threshold (expected ${plan.expectedAfter})`,
    );
  });
});
