import { strict as assert } from 'node:assert';
import {
  clearAtLeastTokensFor,
  DEFAULT_COMPACTION_SETTINGS,
  minEarlySavingTokens,
  minSoftSavingTokens,
  type CompactionSettings,
} from '../../src/core/compaction/policy';
import { planCompaction } from '../../src/core/compaction/plan';
import type { ConversationState } from '../../src/core/conversation/conversationModel';
import { testConfig } from './support/builders';
import { Convo, tokensOf } from './support/compactionFixtures';

const settings = (over: Partial<CompactionSettings> = {}): CompactionSettings => ({
  ...DEFAULT_COMPACTION_SETTINGS,
  ...over,
});

/** One request in progress: the user's words, then `rounds` tool rounds of `resultChars` each. */
function longTurn(rounds: number, resultChars: number, contextWindow: number): ConversationState {
  const c = new Convo('lw');
  c.add({
    user: 'Audit every handler in src/handlers',
    tools: Array.from({ length: rounds }, (_, i) => ({
      name: 'Read',
      input: { file_path: `src/handlers/h${i}.ts` },
      result: `${i}: ${'x'.repeat(resultChars)}`,
    })),
  });
  const config = testConfig({ contextWindow, outputReserve: 10_000, keepRecentTurns: 0, keepRecentTokens: 3_000 });
  return c.state({ messages: c.messages.slice(0, -1), config });
}

/**
 * What makes a compaction pay does not grow with the window, so the minimum savings that are
 * shares of the window stop growing at a fixed number of tokens: in a 1M-token window a
 * summary no longer waits for 190k tokens of history that every request reads meanwhile.
 */
describe('compaction in a large window', () => {
  it('the share-of-window minimums are capped in tokens; below the caps the shares decide; the user setting wins', () => {
    const s = settings();
    assert.equal(clearAtLeastTokensFor(s, 90_000), 9_000);
    assert.equal(clearAtLeastTokensFor(s, 990_000), 20_000);
    assert.equal(clearAtLeastTokensFor(s, 5_000), 1_000);
    assert.equal(clearAtLeastTokensFor(settings({ clearAtLeastTokens: 50_000 }), 990_000), 50_000);
    assert.equal(minEarlySavingTokens(s, 184_000), Math.round(0.2 * 184_000), '200k window: unchanged');
    assert.equal(minEarlySavingTokens(s, 990_000), 40_000);
    assert.equal(minEarlySavingTokens(settings({ clearAtLeastTokens: 60_000 }), 990_000), 60_000);
    assert.equal(minSoftSavingTokens(s, 184_000), Math.round(0.1 * 184_000));
    assert.equal(minSoftSavingTokens(s, 990_000), 20_000);
  });

  it('summarises a long history early in a 1M window once it pays back, as it would in a 200k one', () => {
    const plan = (window: number, rounds = 60) =>
      planCompaction(longTurn(rounds, 8_000, window), {
        tokensOf,
        fixedTokens: 2_000,
        settings: settings({ maskToolResults: false }),
        cacheWarm: true,
        mode: 'auto',
        growthPerRequest: 500,
      });
    const big = plan(1_000_000);
    assert.equal(big.pressure.level, 'ok', `far below the soft threshold (${big.pressure.utilisation})`);
    assert.equal(big.action, 'summarise', big.reason);
    assert.ok(big.expectedSaving >= 40_000 && /pay back/.test(big.reason), big.reason);
    assert.equal(plan(200_000).action, 'summarise');
    const small = plan(1_000_000, 8);
    assert.equal(small.action, 'none');
    assert.match(small.reason, /frees at least 40,000 tokens \(4 % of the window − reserve\)/);
  });
});
