import { strict as assert } from 'node:assert';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import { CACHE_READ_FACTOR, planCompaction, REWRITE_PREMIUM } from '../../src/core/compaction/plan';
import type { ConversationState } from '../../src/core/conversation/conversationModel';
import { testConfig } from './support/builders';
import { Convo, tokensOf } from './support/compactionFixtures';

/** Two finished turns of 12 reads of ~2,000 tokens each, in a 100k window, well below the soft threshold. */
function history(): ConversationState {
  const c = new Convo('pm');
  for (const t of [1, 2])
    c.add({
      user: `Read the handlers of part ${t}`,
      tools: Array.from({ length: 12 }, (_, i) => ({
        name: 'Read',
        input: { file_path: `src/p${t}/h${i}.ts` },
        result: `${i}: ${'x'.repeat(8_000)}`,
      })),
    });
  return c.state({
    config: testConfig({ contextWindow: 100_000, outputReserve: 10_000, keepRecentTurns: 0, keepRecentTokens: 3_000 }),
  });
}

const plan = (cacheMissRate?: number) =>
  planCompaction(history(), {
    tokensOf,
    fixedTokens: 2_000,
    settings: DEFAULT_COMPACTION_SETTINGS,
    cacheWarm: true,
    mode: 'auto',
    growthPerRequest: 500,
    ...(cacheMissRate !== undefined ? { cacheMissRate } : {}),
  });

/**
 * A request that finds the cache empty writes its whole prompt (1.25× input a token) instead of
 * reading it (0.1×): what an edit frees saves more there, and its rewrite costs nothing extra
 * before a request that would have missed anyway. The plan prices both at the measured rate.
 */
describe('the plan prices the session’s full cache misses', () => {
  it('a freed token saves 0.1 + 1.15·m a request, a rewritten one costs 1.15·(1 − m) more', () => {
    const none = plan();
    const some = plan(0.2);
    assert.equal(none.action, 'mask', none.reason);
    assert.equal(some.expectedSaving, none.expectedSaving);
    assert.equal(some.rewriteTokens, none.rewriteTokens);
    assert.ok(Math.abs(some.expectedCostUsd - none.expectedCostUsd * (1 - 0.2)) < 1e-12, 'no summariser in a mask');
    const ratio = ((1 - 0.2) * CACHE_READ_FACTOR) / (CACHE_READ_FACTOR + 0.2 * REWRITE_PREMIUM);
    assert.ok(Math.abs(some.paybackRequests - none.paybackRequests * ratio) < 1e-9, `${some.paybackRequests}`);
    assert.ok(some.paybackRequests < none.paybackRequests / 3, 'pays back in under a third of the requests');
  });
});
