import { strict as assert } from 'node:assert';
import { boundRow, recencyBound, recencyPoint } from '../../bench/recencyBound';
import { prepareTranscript, type PreparedTranscript } from '../../bench/replayCore';
import { readTranscript } from '../../bench/transcript';
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';

/**
 * The recency bound (bench/recencyBound.ts) on a real session: the tail's recall and cost grow
 * with its length, the whole history recalls everything, and the search returns the smallest
 * tail that reaches the target.
 */
describe('bench replay: the recency bound', function () {
  this.timeout(120_000);
  const file = 'test/fixtures/real-session-opus45-pi.transcript.jsonl';
  let t: PreparedTranscript;
  before(() => {
    t = prepareTranscript(file, readTranscript(file), createTiktokenTokenizer());
  });

  it('recall and cost grow with the tail; no tail costs less than the floor', () => {
    const floor = t.floor.total() as number;
    const points = [0, 4_000, 16_000, 64_000].map((k) => recencyPoint(t, k));
    for (const p of points) assert.ok((p.costUsd as number) >= floor, `${p.keep}: ${p.costUsd} ≥ floor ${floor}`);
    for (let i = 1; i < points.length; i++) {
      const [a, b] = [points[i - 1], points[i]] as const;
      assert.ok((b?.frr as number) >= (a?.frr as number), `FRR ${a?.keep} → ${b?.keep}`);
      assert.ok((b?.costUsd as number) > (a?.costUsd as number), `cost ${a?.keep} → ${b?.keep}`);
      assert.ok((b?.averageKept as number) > (a?.averageKept as number));
    }
    assert.ok((points[0]?.frr as number) < 0.9, 'the newest message alone misses much');
  });

  it("where the session's cache was cold (a real full miss, a gap past the TTL) what it keeps is written again, not read", () => {
    // The same session with every request warm: 20 s apart, each reading the cache.
    const warmEvents = t.events.map((e, i) =>
      e.kind === 'usage' && e.usage
        ? {
            ...e,
            at: Date.UTC(2026, 0, 1) + i * 20_000,
            // The same prompt size (the calibration learns from it), all of it read from the cache.
            usage: {
              ...e.usage,
              input_tokens: 0,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens:
                e.usage.input_tokens + e.usage.cache_read_input_tokens + e.usage.cache_creation_input_tokens,
            },
          }
        : e,
    );
    const warm = prepareTranscript(file, warmEvents, createTiktokenTokenizer());
    for (const keep of [4_000, 32_000]) {
      const [real, always] = [recencyPoint(t, keep), recencyPoint(warm, keep)];
      assert.equal(real.frr, always.frr, 'recall does not depend on the cache');
      assert.ok((real.costUsd as number) > (always.costUsd as number), `${keep}: ${real.costUsd} > ${always.costUsd}`);
    }
  });

  it('the whole history recalls every identifier referenced', () => {
    assert.equal(recencyPoint(t, Number.MAX_SAFE_INTEGER).frr, 1);
  });

  it('finds the smallest whole-thousand tail reaching the target, or none', () => {
    const target = 0.93;
    const p = recencyBound(t, target, 200_000);
    assert.ok(p, 'reachable');
    assert.ok((p.frr as number) >= target);
    assert.ok((recencyPoint(t, p.keep - 1_000).frr as number) < target, 'one thousand fewer falls short');
    assert.equal(recencyBound(t, 1.01, 200_000), undefined);
    assert.equal(recencyBound(t, 0.99, 2_000), undefined, 'a tail capped at 2k cannot reach 99 %');
  });

  it("a bound row holds the target (the baseline's FRR less 2 points) and the cost ratio", () => {
    const row = boundRow(t, 100_000, { costUsd: 10, frr: 0.95 });
    assert.equal(row.target_frr, 0.93);
    const p = recencyBound(t, 0.93, 100_000 - t.overhead);
    assert.equal(row.keep_tokens, p?.keep);
    assert.equal(row.cost_ratio, Math.round(((p?.costUsd as number) / 10) * 10_000) / 10_000);
    assert.deepEqual(boundRow(t, 100_000, { costUsd: 10, frr: null }).keep_tokens, null);
  });
});
