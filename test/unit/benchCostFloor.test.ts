import { strict as assert } from 'node:assert';
import { policy } from '../../bench/policies';
import { priceRequest } from '../../bench/pricing';
import { replay } from '../../bench/replayCore';
import { rowOf, totalCost } from '../../bench/replayReport';
import { assistant, at, prepare, toolSession, usage, user, words } from './support/benchTranscripts';

const OVERHEAD = 6_000;

describe('bench replay: the unseen system prompt and the cost floor', () => {
  it('learns the unseen overhead and reads it from cache after a compaction, as the extension’s system breakpoint does', async () => {
    const t = prepare(toolSession(40, OVERHEAD));
    assert.ok(Math.abs(t.overhead - OVERHEAD) <= 50, `overhead ${t.overhead}`);
    const r = await replay(t, { window: 100_000, policy: policy('baseline') });
    assert.equal(r.invalidCount, 0);
    const after = r.trace.findIndex((x, i) => i > 0 && x.tokens < (r.trace[i - 1]?.tokens ?? 0));
    assert.ok(after > 0, 'the baseline compacted');
    const u = r.trace[after]!.usage;
    assert.ok(
      u.cache_read_input_tokens >= OVERHEAD - 50,
      `the request after the compaction reads the system prompt from cache (read ${u.cache_read_input_tokens})`,
    );
    assert.ok(
      u.cache_creation_input_tokens < r.trace[after]!.tokens - OVERHEAD + 50,
      'and writes only the new history',
    );
  });

  it('prices the floor as the system prompt read from cache, each message written once, and the output', () => {
    const model = 'claude-sonnet-4-5';
    const t = prepare([
      user(words(3000)),
      usage({ prompt: 3000 + OVERHEAD, read: 0, at: at(0), model, output: 100 }),
      assistant(words(100, 'a')),
      user(words(500, 'q')),
      usage({ prompt: 3600 + OVERHEAD, read: 3000 + OVERHEAD, at: at(1), model, output: 50 }),
    ]);
    const first = { input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 100 };
    const second = { input_tokens: 0, cache_read_input_tokens: t.overhead, output_tokens: 50 };
    const w1 = t.floor.usd;
    const expected1 = priceRequest(model, { ...first, cache_creation_input_tokens: 0 }, '5m');
    const expected2 = priceRequest(model, { ...second, cache_creation_input_tokens: 0 }, '5m');
    assert.ok(expected1.known && expected2.known);
    // Beside the reads and the outputs, the floor writes the messages once (3 600 words, with their framing) and the overhead.
    const writes = w1 - expected1.usd - expected2.usd;
    const perWrite = (3.75 / 1e6) * (3600 + t.overhead);
    assert.ok(writes >= perWrite && writes < 1.1 * perWrite, `floor writes $${writes} vs $${perWrite}`);
  });

  it('stays below every policy’s cost, and its ratio to the baseline is reported in the row', async () => {
    const t = prepare(toolSession(40, OVERHEAD));
    const base = totalCost(await replay(t, { window: 100_000, policy: policy('baseline') }));
    assert.ok(base !== null && base > 0);
    for (const name of ['default', 'baseline', 'claude-code'] as const) {
      const r = await replay(t, { window: 100_000, policy: policy(name) });
      const cost = totalCost(r);
      assert.ok(cost !== null && t.floor.usd < cost, `${name}: floor $${t.floor.usd} < $${cost}`);
      const row = rowOf(r, base);
      assert.equal(row.floor_ratio, Math.round((t.floor.usd / base) * 1e4) / 1e4);
    }
  });
});
