import { strict as assert } from 'node:assert';
import { cachedPrefixes, nextBreakpoint } from '../../src/core/cache/breakpointMemory';
import { planCacheAnchors, type CacheAnchor, type PreviousBreakpoint } from '../../src/core/cache/cacheAnchors';
import { PRIOR_GAP_STATS } from '../../src/core/cache/replyGaps';
import { chooseTtls, type TimedAnchor } from '../../src/core/cache/ttlChoice';
import type { Message } from '../../src/core/conversation/conversationModel';
import { planningPrices } from '../../src/core/models/modelFacts';
import type { RequestTokens } from '../../src/core/tokens/requestTokens';
import { Build } from './support/builders';

const MIN = 60_000;
const NOW = 10_000_000;
const b = new Build('cp');
/** 40 messages of one block and 1,000 tokens each, after 10k of tools and system. */
const messages: Message[] = Array.from({ length: 40 }, (_, i) =>
  b.message(i % 2 === 0 ? 'user' : 'assistant', [b.text(`m${i}`, i % 2 === 0 ? 'user' : 'assistant')], 1),
);
const ids = messages.map((m) => m.id);
const tokens: RequestTokens = {
  tools: 4_000,
  system: 6_000,
  messages: messages.map(() => 1_000),
  total: 50_000,
  anchored: false,
};
const checkpoint = { messageId: ids[9]!, index: 9, firstId: ids[0]!, sentAt: NOW - 20 * MIN, prefixTokens: 20_000 };
const previous = (sentAt: number, cp = checkpoint): PreviousBreakpoint => ({
  messageId: ids[37]!,
  sentAt,
  ttl: '5m',
  prefixTokens: 48_000,
  checkpoint: cp,
});
const plan = (prev: PreviousBreakpoint) =>
  planCacheAnchors({
    toolsTokens: 4_000,
    systemTokens: 6_000,
    messages: messages.map((m) => ({ id: m.id, tokens: 1_000, blocks: 1 })),
    minCacheableTokens: 1024,
    now: NOW,
    previous: prev,
  });

describe('1-hour checkpoints: what a pause leaves cached (core/cache/breakpointMemory.ts)', () => {
  it('after a pause the checkpoint is a breakpoint again, so the request reads it; while warm it is not needed', () => {
    const paused = plan(previous(NOW - 20 * MIN));
    const at = paused.find((a) => a.target.at === 'message' && a.target.messageIndex === 9);
    assert.ok(at, 'the checkpoint 30 blocks back is anchored');
    assert.match(at.reason, /1-hour checkpoint/);
    assert.ok(at.hitProbability > 0.5);
    const warm = plan(previous(NOW - MIN));
    const behind = warm.find((a) => a.target.at === 'message' && a.target.messageIndex === 9);
    assert.ok(!behind || behind.hitProbability < 0.1, 'a longer prefix is warm: the checkpoint is worth little');
  });

  it('counts what is cached: the previous prefix while warm, else the checkpoint; none once the prefix changed', () => {
    assert.deepEqual(cachedPrefixes(messages, tokens, NOW, previous(NOW - MIN)), {
      readTokens: 48_000,
      checkpointTokens: 20_000,
    });
    assert.deepEqual(cachedPrefixes(messages, tokens, NOW, previous(NOW - 20 * MIN)), {
      readTokens: 20_000,
      checkpointTokens: 20_000,
    });
    // A compaction replaced the first messages: the checkpoint's prefix is gone.
    const compacted = [b.message('user', [b.text('summary')], 1), ...messages.slice(5)];
    assert.equal(cachedPrefixes(compacted, tokens, NOW, previous(NOW - 20 * MIN)).checkpointTokens, 0);
    // Over an hour old: expired.
    const old = { ...checkpoint, sentAt: NOW - 61 * MIN };
    assert.equal(cachedPrefixes(messages, tokens, NOW, previous(NOW - 20 * MIN, old)).checkpointTokens, 0);
  });

  it('a tail written for an hour becomes the checkpoint; a 5-minute one carries the live checkpoint on', () => {
    const tail = (ttl: '5m' | '1h'): TimedAnchor => ({
      target: { at: 'message', messageIndex: 39 },
      prefixTokens: 50_000,
      hitProbability: 0.8,
      score: 40_000,
      reason: 'r',
      ttl,
      ttlReason: 'r',
    });
    const hour = nextBreakpoint(messages, tokens, [tail('1h')], NOW, previous(NOW - MIN));
    assert.deepEqual(hour?.checkpoint, {
      messageId: ids[39],
      index: 39,
      firstId: ids[0],
      sentAt: NOW,
      prefixTokens: 50_000,
    });
    const five = nextBreakpoint(messages, tokens, [tail('5m')], NOW, previous(NOW - MIN));
    assert.deepEqual(five?.checkpoint, checkpoint);
    assert.equal(five?.ttl, '5m');
  });

  it('a tail close to the live checkpoint stays at 5 minutes: a pause would cost only what came since', () => {
    const anchors: CacheAnchor[] = [
      { target: { at: 'system' }, prefixTokens: 10_000, hitProbability: 0.95, score: 9_500, reason: 'r' },
      {
        target: { at: 'message', messageIndex: 39 },
        prefixTokens: 50_000,
        hitProbability: 0.8,
        score: 40_000,
        reason: 'r',
      },
    ];
    const input = {
      lifetime: 'auto' as const,
      gaps: { ...PRIOR_GAP_STATS, turnEnd: 0.1, longReply: 0.3, replies: 5, longReplies: 2 },
      prices: planningPrices('claude-sonnet-4-5'),
      readTokens: 49_000,
      missRate: 0,
    };
    assert.equal(chooseTtls(anchors, input)[1]?.ttl, '1h', 'no checkpoint: a pause would write 40k again');
    assert.equal(chooseTtls(anchors, { ...input, checkpointTokens: 48_000 })[1]?.ttl, '5m', 'a checkpoint 2k back');
  });
});

describe('a compaction that keeps the message ids is not read as a warm prefix', () => {
  it('a mask shrank what comes before the previous breakpoint: nothing is warm, the checkpoint is gone', () => {
    const masked: RequestTokens = { ...tokens, messages: tokens.messages.map((t, i) => (i < 5 ? 100 : t)) };
    assert.deepEqual(cachedPrefixes(messages, masked, NOW, previous(NOW - MIN)), {
      readTokens: 0,
      checkpointTokens: 0,
    });
    const tail: TimedAnchor = {
      target: { at: 'message', messageIndex: 39 },
      prefixTokens: 45_500,
      hitProbability: 0.8,
      score: 36_000,
      reason: 'r',
      ttl: '5m',
      ttlReason: 'r',
    };
    assert.equal(nextBreakpoint(messages, masked, [tail], NOW, previous(NOW - MIN))?.checkpoint, undefined);
  });
});
