import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { ttlMs as cacheTtlMs } from '../../src/core/cache/cacheAnchors';
import { clearedPlaceholder, microcompact } from '../../src/core/compaction/microcompact';
import { assertReversible, Convo, layerCtx, lines, results, text } from './support/compactionBuilders';

const MIN = 60_000;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const big = (tag: string) => lines(10, 50, tag);

/** Five long results and one short one in turn 1, then three recent long results in turn 2. */
function session(): Convo {
  const c = new Convo().user();
  for (let i = 0; i < 5; i++) c.call('run_command', { command: `c${i}` }, big(`o${i}`));
  c.call('run_command', { command: 'short' }, 'x'.repeat(200)).say();
  return c.user().read('a.ts', big('r1')).read('b.ts', big('r2')).read('c.ts', big('r3')).say();
}

describe('compaction guards: microcompact', () => {
  it('uses the cache TTL of the config: 5 min or 1 h', () => {
    assert.equal(cacheTtlMs('5m'), 5 * MIN);
    assert.equal(cacheTtlMs('1h'), 60 * MIN);
  });

  it('does nothing while the cache is warm, or without an idle time', () => {
    const state = session().state();
    for (const idleMs of [undefined, 0, 4 * MIN, 5 * MIN]) {
      const r = microcompact(state, layerCtx(0.1, idleMs === undefined ? {} : { idleMs }));
      assert.equal(r.state, state);
      assert.equal(r.record, undefined);
    }
    const hour = session().state({ cacheTtl: '1h' });
    assert.equal(
      microcompact(hour, layerCtx(0.1, { idleMs: 30 * MIN })).record,
      undefined,
      '30 min is inside a 1 h TTL',
    );
    assert.ok(microcompact(hour, layerCtx(0.1, { idleMs: 61 * MIN })).record, '61 min is past it');
  });

  it('once the cache is cold, clears old results (> 200 characters) but the 3 most recent, at any utilisation', () => {
    const state = session().state();
    const r = microcompact(state, layerCtx(0.05, { idleMs: 7.5 * MIN }));
    assertReversible(state, r, 'microcompact', 'idle');
    const before = results(state);
    const after = results(r.state);
    after
      .slice(0, 5)
      .forEach((b) =>
        assert.equal(
          text(b),
          '[Old tool result cleared after the prompt cache expired (idle 7 min); run the tool again if needed.]',
        ),
      );
    assert.equal(text(after[0]), clearedPlaceholder(7.5 * MIN));
    assert.equal(after[5], before[5], 'a 200-character result is not worth clearing');
    after.slice(6).forEach((b, i) => assert.equal(b, before[6 + i], 'the 3 most recent results are kept'));
    assert.equal(r.record?.regions.length, 5);
  });

  it('is idempotent, even after a longer idle time', () => {
    const once = microcompact(session().state(), layerCtx(0.5, { idleMs: 6 * MIN }));
    for (const idleMs of [6 * MIN, 90 * MIN]) {
      const again = microcompact(once.state, layerCtx(0.5, { idleMs }));
      assert.equal(again.state, once.state);
      assert.equal(again.record, undefined);
    }
  });

  it('never touches pinned results or results of pinned calls; clears errors keeping isError; clears images', () => {
    const image = { type: 'image' as const, mediaType: 'image/png' as const, data: 'iVBORw0KGgo=' };
    const c = new Convo()
      .user()
      .call('a', {}, big('p'), { pinned: true })
      .call('a', {}, big('u'), { pinUse: true })
      .call('a', {}, big('e'), { isError: true });
    c.call('shot', {}, [{ type: 'text', text: 'ok' }, image])
      .call('a', {}, '1')
      .call('a', {}, '2')
      .call('a', {}, '3')
      .say();
    const state = c.state();
    const r = microcompact(state, layerCtx(0.5, { idleMs: 10 * MIN, trigger: 'manual' }));
    assertReversible(state, r, 'microcompact', 'manual');
    const [pinned, pinnedUse, error, shot] = results(r.state);
    assert.equal(pinned, results(state)[0]);
    assert.equal(pinnedUse, results(state)[1]);
    assert.equal(error?.isError, true);
    assert.match(text(error), /^\[Old tool result cleared/);
    assert.match(text(shot), /^\[Old tool result cleared/);
  });

  it('leaves surrogate pairs of kept results intact and restores exactly (property)', () => {
    const content = fc
      .array(fc.constantFrom('😀', '𝒳', '\n', 'a', 'é'), { minLength: 0, maxLength: 400 })
      .map((p) => p.join(''));
    fc.assert(
      fc.property(
        fc.array(content, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 5, max: 200 }),
        (outs, idleMin) => {
          const c = new Convo().user();
          outs.forEach((o, i) => c.call('t', { i }, o === '' ? '-' : o));
          const state = c.say().state();
          const r = microcompact(state, layerCtx(0.5, { idleMs: idleMin * MIN }));
          for (const b of results(r.state)) assert.ok(!LONE_SURROGATE.test(text(b)));
          const expected = outs.slice(0, Math.max(0, outs.length - 3)).some((o) => o.length > 200);
          assert.equal(r.record !== undefined, expected && idleMin > 5);
          if (r.record) assertReversible(state, r, 'microcompact', 'idle');
        },
      ),
      { numRuns: 100 },
    );
  });
});
