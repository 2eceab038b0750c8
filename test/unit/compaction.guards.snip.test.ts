import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { normalisePath, snip, stalePlaceholder } from '../../src/core/compaction/snip';
import { assertReversible, Convo, layerCtx, lines, results, text } from './support/compactionBuilders';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const file = (name: string) => lines(60, 50, name);

/** Turn 1 reads a.ts and b.ts; turn 2 reads a.ts again; then three more results keep the recent ones out of reach. */
function rereads(): Convo {
  const c = new Convo().user().read('src/a.ts', file('a1')).read('src/b.ts', file('b')).say();
  c.user().read('./src//a.ts', file('a2')).say();
  return c
    .user()
    .call('search', { pattern: 'x' }, 'r1')
    .call('search', { pattern: 'y' }, 'r2')
    .call('search', { pattern: 'z' }, 'r3')
    .say();
}

describe('compaction guards: snip', () => {
  it('normalises paths: leading ./ stripped, // collapsed', () => {
    assert.equal(normalisePath('./src//a.ts'), 'src/a.ts');
    assert.equal(normalisePath('././src///x//y.ts'), 'src/x/y.ts');
    assert.equal(normalisePath('/abs//p'), '/abs/p');
  });

  it('does nothing below 60 %; above, an older read of a file read again later becomes a placeholder', () => {
    const state = rereads().state();
    for (const u of [0.3, 0.59]) {
      const r = snip(state, layerCtx(u));
      assert.equal(r.state, state);
      assert.equal(r.record, undefined);
    }
    const r = snip(state, layerCtx(0.65));
    assertReversible(state, r, 'snip', 'budget');
    const [a1, b, a2] = results(r.state);
    assert.equal(
      text(a1),
      '[Stale: src/a.ts was read again later (turn 2); this older read was removed to save context.]',
    );
    assert.equal(text(a1), stalePlaceholder('src/a.ts', 2));
    assert.equal(b, results(state)[1], 'a file read once is kept');
    assert.equal(a2, results(state)[2], 'the later read is kept');
    const uses = (s: typeof state) => s.messages.flatMap((m) => m.blocks.filter((x) => x.type === 'tool_use'));
    assert.deepEqual(uses(r.state), uses(state));
    uses(r.state).forEach((u, i) => assert.equal(u, uses(state)[i], 'tool_use blocks stay as they are'));
  });

  it('is idempotent', () => {
    const once = snip(rereads().state(), layerCtx(0.7));
    const twice = snip(once.state, layerCtx(0.9));
    assert.ok(once.record);
    assert.equal(twice.state, once.state);
    assert.equal(twice.record, undefined);
  });

  it('a later successful edit makes an older read stale; a failed edit or a failed re-read does not', () => {
    const tail = (c: Convo) => c.user().call('s', {}, '1').call('s', {}, '2').call('s', {}, '3').say();
    const edited = tail(
      new Convo()
        .user()
        .read('a.ts', file('a'))
        .call('edit_file', { path: 'a.ts', old_string: 'x', new_string: 'y' }, 'Edited a.ts')
        .say(),
    ).state();
    const r = snip(edited, layerCtx(0.8));
    assertReversible(edited, r, 'snip', 'budget');
    assert.equal(
      text(results(r.state)[0]),
      '[Stale: a.ts was edited later (turn 1); this older read was removed to save context.]',
    );

    const failedEdit = tail(
      new Convo()
        .user()
        .read('a.ts', file('a'))
        .call('edit_file', { path: 'a.ts' }, 'old_string not found', { isError: true })
        .say(),
    ).state();
    assert.equal(snip(failedEdit, layerCtx(0.8)).record, undefined);
    const failedRead = tail(
      new Convo().user().read('a.ts', file('a')).read('a.ts', 'File not found', {}, { isError: true }).say(),
    ).state();
    assert.equal(snip(failedRead, layerCtx(0.8)).record, undefined);
  });

  it('leaves error results, pinned results and the 3 most recent results alone', () => {
    const tail = (c: Convo) =>
      c
        .user()
        .read('z.ts', file('z1'))
        .read('z.ts', file('z2'))
        .read('z.ts', file('z3'))
        .read('z.ts', file('z4'))
        .say();
    const state = tail(
      new Convo()
        .user()
        .read('e.ts', 'boom', {}, { isError: true })
        .read('e.ts', file('e'))
        .read('p.ts', file('p'), {}, { pinned: true })
        .read('p.ts', file('p'))
        .say(),
    ).state();
    const r = snip(state, layerCtx(0.9));
    assertReversible(state, r, 'snip', 'budget');
    const before = results(state);
    const after = results(r.state);
    assert.equal(after[0], before[0], 'error result kept');
    assert.equal(after[2], before[2], 'pinned result kept');
    assert.match(
      text(after[4]),
      /^\[Stale: z\.ts was read again later \(turn 2\)/,
      'the oldest z.ts read is older than the last 3 results',
    );
    assert.deepEqual(after.slice(5), before.slice(5), 'the 3 most recent results are kept');
    after.slice(5).forEach((b, i) => assert.equal(b, before[5 + i]));
    assert.equal(r.record?.regions.length, 1);
  });

  it('a later read must cover the older read’s lines to make it stale', () => {
    const tail = (c: Convo) => c.user().call('s', {}, '1').call('s', {}, '2').call('s', {}, '3').say();
    const covered = tail(
      new Convo()
        .user()
        .read('a.ts', file('a'), { offset: 500, limit: 100 })
        .read('a.ts', file('a'), { offset: 1 })
        .say(),
    ).state();
    assert.ok(snip(covered, layerCtx(0.8)).record, 'lines 500–599 are inside 1–2000');
    const partial = tail(
      new Convo().user().read('a.ts', file('a')).read('a.ts', file('a'), { offset: 1, limit: 50 }).say(),
    ).state();
    assert.equal(snip(partial, layerCtx(0.8)).record, undefined, 'lines 1–50 do not cover 1–2000');
  });

  it('keeps any path whole in the placeholder, surrogate pairs included (property)', () => {
    const segment = fc.oneof(
      fc.constantFrom('😀', 'src', '𝒳', '.', 'é'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }).filter((s) => !s.includes('/')),
    );
    fc.assert(
      // A blank path names no file (toolKinds.ts reads none from it), so it is not generated.
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 5 }).filter((segs) => segs.join('/').trim() !== ''),
        (segs) => {
          const path = segs.join('/');
          const state = new Convo()
            .user()
            .read(`./${path}`, file('a'))
            .read(path, file('b'))
            .call('s', {}, '1')
            .call('s', {}, '2')
            .call('s', {}, '3')
            .say()
            .state();
          const r = snip(state, layerCtx(0.8));
          assertReversible(state, r, 'snip', 'budget');
          const out = text(results(r.state)[0]);
          assert.equal(out, stalePlaceholder(normalisePath(path), 1));
          assert.ok(!LONE_SURROGATE.test(out));
        },
      ),
      { numRuns: 100 },
    );
  });
});
