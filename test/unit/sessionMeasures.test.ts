import { strict as assert } from 'node:assert';
import { MISS_RATE_PRIOR_REQUESTS, SessionMeasures } from '../../src/core/compaction/sessionMeasures';
import { mainRouteUsd } from '../../src/core/compaction/summariserRoute';

const answer = (read: number, output = 100) => ({ output_tokens: output, cache_read_input_tokens: read });

describe('session measures: what the plan prices with', () => {
  it('measures the growth between prompts and ignores a prompt that shrank (a compaction)', () => {
    const m = new SessionMeasures();
    assert.equal(m.growthPerRequest, undefined);
    m.observePrompt(10_000);
    m.observePrompt(11_000);
    assert.equal(m.growthPerRequest, 1_000);
    m.observePrompt(4_000);
    assert.equal(m.growthPerRequest, 1_000, 'a drop is not growth');
    m.observePrompt(6_000);
    assert.equal(m.growthPerRequest, 0.8 * 1_000 + 0.2 * 2_000);
  });

  it('measures the growth after a compaction from the size sent, not the size before it', () => {
    const m = new SessionMeasures();
    m.observePrompt(100_000);
    m.observePrompt(110_000);
    assert.equal(m.growthPerRequest, 10_000);
    m.observeSent(50_000); // this request compacted 110k to 50k
    m.observePrompt(112_000); // and the next one grew back by 62k
    assert.equal(m.growthPerRequest, 0.8 * 10_000 + 0.2 * 62_000, 'not the 2k between the two sizes before');
    m.observeSent(200_000);
    m.observePrompt(113_000);
    assert.equal(m.growthPerRequest, 0.8 * (0.8 * 10_000 + 0.2 * 62_000) + 0.2 * 1_000, 'a larger "sent" is ignored');
  });

  it('takes output beyond what an answer shows as thinking, never negative', () => {
    const m = new SessionMeasures();
    assert.equal(m.thinkingTokens, undefined);
    m.observeAnswer(answer(0, 1_100), 100);
    assert.equal(m.thinkingTokens, 1_000);
    m.observeAnswer(answer(0, 50), 100);
    assert.equal(m.thinkingTokens, 700);
  });

  it('counts a full miss only on a request that expected a cache read, shrunk toward 0 early', () => {
    const m = new SessionMeasures();
    assert.equal(m.cacheMissRate, 0);
    m.observeAnswer(answer(0), 0);
    assert.equal(m.cacheMissRate, 0, 'no read was expected (first request, after an edit, or cold)');
    m.sending(true);
    m.observeAnswer(answer(0), 0);
    assert.equal(m.cacheMissRate, 1 / (1 + MISS_RATE_PRIOR_REQUESTS));
    for (let i = 0; i < 39; i++) {
      m.sending(true);
      m.observeAnswer(answer(i % 4 === 0 ? 0 : 5_000), 0);
    }
    assert.equal(m.cacheMissRate, 11 / (40 + MISS_RATE_PRIOR_REQUESTS), '1 + 10 misses of 40 expected reads');
    m.observeAnswer(answer(0), 0);
    assert.equal(m.cacheMissRate, 11 / (40 + MISS_RATE_PRIOR_REQUESTS), 'an answer without a sending() is not counted');
  });
});

describe('the main route priced with the cache misses seen', () => {
  const inputs = {
    mainModel: 'claude-sonnet-4-5',
    regions: [{ tokens: 20_000, outputTokens: 500 }],
    promptTokens: 40_000,
    uncachedTokens: 2_000,
    cacheTtl: '5m' as const,
  };

  it('mixes the warm and the cold cost by the miss rate; a cold cache is cold whatever the rate', () => {
    const warm = mainRouteUsd({ ...inputs, cacheWarm: true });
    const cold = mainRouteUsd({ ...inputs, cacheWarm: false });
    assert.ok(cold > warm);
    const mixed = mainRouteUsd({ ...inputs, cacheWarm: true, cacheMissRate: 0.25 });
    assert.ok(Math.abs(mixed - (0.75 * warm + 0.25 * cold)) < 1e-12, `${mixed}`);
    assert.equal(mainRouteUsd({ ...inputs, cacheWarm: false, cacheMissRate: 0.25 }), cold);
    assert.equal(mainRouteUsd({ ...inputs, cacheWarm: true, cacheMissRate: 5 }), cold, 'a rate over 1 is 1');
  });
});
