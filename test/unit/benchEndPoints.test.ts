import { strict as assert } from 'node:assert';
import { endPointRows, endPoints } from '../../bench/endPoints';
import { policy } from '../../bench/policies';
import { replay } from '../../bench/replayCore';
import { totalCost } from '../../bench/replayReport';
import { prepare, toolSession } from './support/benchTranscripts';

const trace = (...usd: (number | null)[]) => usd.map((costSoFarUsd) => ({ costSoFarUsd }));

describe('bench replay: where the session ends', () => {
  it('counts the end points from the first request at which the two bills part, and the share over the baseline', () => {
    // Requests 1–2 are the same; the policy compacts at 3 (it costs more), then pays back from 5 on.
    const row = endPoints('t', 100_000, trace(1, 2, 3.5, 4.2, 4.8, 5.2), trace(1, 2, 3, 4, 5, 6));
    assert.ok(row);
    assert.equal(row.ends, 4);
    assert.equal(row.at_end, 5.2 / 6);
    assert.equal(row.min, 5.2 / 6);
    assert.equal(row.max, 3.5 / 3);
    assert.equal(row.median, (4.8 / 5 + 4.2 / 4) / 2);
    assert.equal(row.over, 0.5);
  });

  it('has no end points when a request is unpriced, the bills never part or the traces differ', () => {
    assert.equal(endPoints('t', 1, trace(1, null), trace(1, 2)), null);
    assert.equal(endPoints('t', 1, trace(1, 2), trace(1, 2)), null);
    assert.equal(endPoints('t', 1, trace(1, 2), trace(1)), null);
    assert.equal(endPoints('t', 1, [], []), null);
  });

  it('runs the bill request by request to the replay’s whole cost, summariser included', async () => {
    const t = prepare(toolSession(120, 6_000));
    const results = [];
    for (const name of ['default', 'baseline'] as const) {
      const r = await replay(t, { window: 40_000, policy: policy(name) });
      assert.ok(r.summariserCalls > 0, `${name} summarises in this session`);
      const last = r.trace.at(-1)?.costSoFarUsd;
      assert.ok(typeof last === 'number');
      assert.ok(Math.abs(last - (totalCost(r) as number)) < 1e-9, `${name}: ${last} vs ${totalCost(r)}`);
      for (let i = 1; i < r.trace.length; i++)
        assert.ok(
          (r.trace[i]?.costSoFarUsd as number) > (r.trace[i - 1]?.costSoFarUsd as number),
          'every request costs',
        );
      results.push(r);
    }
    const [row] = endPointRows(results);
    assert.ok(row);
    assert.ok(Math.abs(row.at_end - (totalCost(results[0]!) as number) / (totalCost(results[1]!) as number)) < 1e-9);
    assert.ok(row.min <= row.median && row.median <= row.max);
  });
});
