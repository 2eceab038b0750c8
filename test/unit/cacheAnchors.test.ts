import { strict as assert } from 'node:assert';
import {
  CACHE_LOOKBACK_BLOCKS,
  MAX_BREAKPOINTS,
  planCacheAnchors,
  type AnchorPlanInput,
} from '../../src/core/cache/cacheAnchors';

function input(overrides: Partial<AnchorPlanInput> = {}): AnchorPlanInput {
  return {
    toolsTokens: 3_000,
    systemTokens: 2_000,
    messages: Array.from({ length: 10 }, (_, i) => ({ id: `m${i}`, tokens: 1_000, blocks: 2 })),
    minCacheableTokens: 1024,
    now: 1_000_000,
    ...overrides,
  };
}

describe('planCacheAnchors', () => {
  it('places tools, system and last-message breakpoints in prefix order', () => {
    const a = planCacheAnchors(input());
    assert.deepEqual(
      a.map((x) => x.target),
      [{ at: 'tools' }, { at: 'system' }, { at: 'message', messageIndex: 9 }],
    );
    assert.deepEqual(
      a.map((x) => x.prefixTokens),
      [3_000, 5_000, 15_000],
    );
    for (const x of a) assert.equal(x.score, x.prefixTokens * x.hitProbability);
  });

  it('never places a breakpoint on a prefix shorter than the minimum cacheable length', () => {
    const a = planCacheAnchors(
      input({ toolsTokens: 500, systemTokens: 300, messages: [{ id: 'm0', tokens: 100, blocks: 1 }] }),
    );
    assert.deepEqual(a, []);
    const b = planCacheAnchors(
      input({ toolsTokens: 500, systemTokens: 600, messages: [{ id: 'm0', tokens: 100, blocks: 1 }] }),
    );
    assert.deepEqual(
      b.map((x) => x.target.at),
      ['system', 'message'],
      'tools alone (500) are too short; tools+system (1100) are not',
    );
  });

  it('adds a read breakpoint at the previous position when more than 20 blocks were added', () => {
    const messages = Array.from({ length: 30 }, (_, i) => ({ id: `m${i}`, tokens: 500, blocks: 1 }));
    const previous = { messageId: 'm5', sentAt: 1_000_000 - 60_000, ttl: '5m' as const, prefixTokens: 0 };
    const a = planCacheAnchors(input({ messages, previous }));
    assert.equal(a.length, MAX_BREAKPOINTS);
    assert.deepEqual(
      a.map((x) => x.target),
      [{ at: 'tools' }, { at: 'system' }, { at: 'message', messageIndex: 5 }, { at: 'message', messageIndex: 29 }],
    );
    assert.match(a[2]!.reason, new RegExp(`${24} blocks`));
    // Within the lookback the final breakpoint finds the old entry by itself: no extra one.
    const near = planCacheAnchors(
      input({
        messages,
        previous: { messageId: `m${29 - CACHE_LOOKBACK_BLOCKS + 1}`, sentAt: 999_000, ttl: '5m', prefixTokens: 0 },
      }),
    );
    assert.equal(near.filter((x) => x.target.at === 'message').length, 1);
  });

  it('ranks by tokens × hit probability and keeps at most 4', () => {
    const messages = Array.from({ length: 40 }, (_, i) => ({ id: `m${i}`, tokens: 500, blocks: 1 }));
    // A cold previous entry (older than the TTL) is worth little; it loses to the stable prefixes only when its score is lower.
    const cold = planCacheAnchors(
      input({ messages, previous: { messageId: 'm2', sentAt: 1_000_000 - 400_000, ttl: '5m', prefixTokens: 0 } }),
    );
    const prev = cold.find((x) => x.target.at === 'message' && x.target.messageIndex === 2);
    assert.ok(prev, 'still chosen: there are only 4 candidates');
    assert.ok(prev.hitProbability < 0.1);
    const sorted = [...cold].sort((x, y) => y.score - x.score);
    assert.equal(sorted.at(-1), prev, 'the cold entry ranks last');
  });

  it('handles an empty conversation and no tools', () => {
    assert.deepEqual(
      planCacheAnchors(input({ toolsTokens: 0, systemTokens: 2_000, messages: [] })).map((x) => x.target),
      [{ at: 'system' }],
    );
  });
});
