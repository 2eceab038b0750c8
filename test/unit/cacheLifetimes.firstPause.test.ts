import { strict as assert } from 'node:assert';
import { ReplyGaps, type GapStats } from '../../src/core/cache/replyGaps';
import { chooseTtls } from '../../src/core/cache/ttlChoice';
import { planningPrices } from '../../src/core/models/modelFacts';
import { STABLE, tail } from './support/cacheAnchorFakes';

const MIN = 60_000;

const input = (o: { gaps: GapStats; readTokens: number; turnDepth: number }) => ({
  lifetime: 'auto' as const,
  prices: planningPrices('claude-sonnet-4-5'),
  missRate: 0,
  ...o,
});

describe('no 1-hour write before the first long pause (core/cache/ttlChoice.ts)', () => {
  it("pays no surcharge in a session that has not paused, however the priors price it; from its first long pause, the session's rate decides", () => {
    const gaps = new ReplyGaps();
    let t = 0;
    let prompt = 30_000;
    const send = (gapMs: number, startsTurn: boolean, growth: number) => {
      gaps.observe((t += gapMs), startsTurn);
      const readTokens = prompt;
      prompt += growth;
      return chooseTtls(
        [...STABLE, tail(prompt)],
        input({ gaps: gaps.stats, readTokens, turnDepth: startsTurn ? 1 : 2 }),
      );
    };
    send(0, true, 0);
    // A new question a minute after the answer, writing 300 tokens: on the priors alone (a turn
    // ends one request in ten, a reply in five comes after 5 minutes) an hour would pay —
    // 0.1 × 0.2 × 1.15 × 30k against 0.75 × 300 — but the session has not paused yet.
    const quick = send(MIN, true, 300);
    assert.deepEqual(
      quick.map((a) => a.ttl),
      ['5m', '5m', '5m'],
    );
    assert.match(quick[2]!.ttlReason, /^kept for 5 minutes: no reply in this session has come after 5 minutes yet/);
    const priced = chooseTtls(
      [...STABLE, tail(prompt)],
      input({ gaps: { ...gaps.stats, longReplies: 1 }, readTokens: prompt - 300, turnDepth: 1 }),
    );
    assert.equal(priced[2]!.ttl, '1h', 'the same figures once a reply has come late');
    for (let i = 0; i < 20; i++) assert.equal(send(5_000, false, 100)[2]!.ttl, '5m');
    // The user comes back after 20 minutes: from now on the session's own rate decides.
    send(20 * MIN, true, 300);
    assert.equal(gaps.stats.longReplies, 1);
    const next = send(MIN, true, 300);
    assert.deepEqual(
      next.map((a) => a.ttl),
      ['1h', '1h', '1h'],
    );
    assert.match(next[2]!.ttlReason, /^kept for an hour/);
  });
});
