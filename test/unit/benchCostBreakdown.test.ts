import { strict as assert } from 'node:assert';
import { partsTotal, writeCause } from '../../bench/costBreakdown';
import { policy } from '../../bench/policies';
import { replay } from '../../bench/replayCore';
import { totalCost } from '../../bench/replayReport';
import { prepare, toolSession } from './support/benchTranscripts';

describe('bench replay: where the money goes', () => {
  it('puts a cache write down to a real miss, then a gap past the TTL, then a compaction, then a server clear, else growth', () => {
    const ttlMs = 300_000;
    assert.equal(writeCause({ flushed: true, gapMs: 999_999, ttlMs, compacted: true }), 'miss');
    assert.equal(writeCause({ flushed: false, gapMs: 300_001, ttlMs, compacted: true }), 'ttl');
    assert.equal(writeCause({ flushed: false, gapMs: 300_000, ttlMs, compacted: true }), 'compaction');
    assert.equal(writeCause({ flushed: false, gapMs: 10, ttlMs, compacted: true, serverEdited: true }), 'compaction');
    assert.equal(writeCause({ flushed: false, gapMs: 10, ttlMs, compacted: false, serverEdited: true }), 'server');
    assert.equal(writeCause({ flushed: false, gapMs: 10, ttlMs, compacted: false }), 'growth');
    assert.equal(writeCause({ flushed: false, gapMs: undefined, ttlMs, compacted: false }), 'growth');
  });

  it('adds up to the replay’s cost, for our policy, the baseline and the API’s clearing', async () => {
    const t = prepare(toolSession(40, 6_000));
    for (const name of ['default', 'baseline', 'server-clear'] as const) {
      const r = await replay(t, { window: 100_000, policy: policy(name) });
      const total = totalCost(r);
      assert.ok(total !== null);
      assert.ok(Math.abs(partsTotal(r.breakdown) - total) < 1e-9, `${name}: ${partsTotal(r.breakdown)} vs ${total}`);
      assert.ok(r.breakdown.write.compaction > 0 || r.compactions === 0, 'a compaction rewrite is counted as such');
      if (name === 'server-clear')
        assert.ok(r.serverClears > 0 && r.breakdown.write.server > 0, "a clear's rewrite is counted as such");
      else assert.equal(r.breakdown.write.server, 0);
      assert.equal(r.breakdown.unpriced, 0);
    }
  });
});
