import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { isWellFormed, REPLACEMENT_CHARACTER, toWellFormed, toWellFormedDeep } from '../../src/core/platform/text';

/** The engine's own check when it has one (Node 20+), else a plain scan. */
function nativeWellFormed(s: string): boolean {
  const f = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;
  if (f) return f.call(s);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const n = s.charCodeAt(i + 1);
      if (n >= 0xdc00 && n <= 0xdfff) i++;
      else return false;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
  }
  return true;
}

/** Strings rich in surrogates: lone highs, lone lows, valid pairs, reversed pairs, ASCII. */
const unit = fc.oneof(
  fc.integer({ min: 0xd800, max: 0xdbff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xdc00, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('🙂', '𝄞', '\udc00\ud800', 'a', 'é', '\n', '"'),
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
);
const surrogateString = fc.array(unit, { maxLength: 40 }).map((parts) => parts.join(''));

describe('text: well-formed UTF-16', () => {
  it('replaces each lone surrogate with U+FFFD and keeps valid pairs', () => {
    assert.equal(toWellFormed('a\ud800b'), `a${REPLACEMENT_CHARACTER}b`);
    assert.equal(toWellFormed('\udc00x'), `${REPLACEMENT_CHARACTER}x`);
    assert.equal(toWellFormed('end\ud83d'), `end${REPLACEMENT_CHARACTER}`);
    assert.equal(toWellFormed('\udc00\ud800'), REPLACEMENT_CHARACTER.repeat(2), 'a reversed pair is two lone halves');
    assert.equal(toWellFormed('\ud83d\ud83d\ude42'), `${REPLACEMENT_CHARACTER}🙂`, 'a high before a valid pair');
    assert.equal(toWellFormed('🙂 𝄞 é'), '🙂 𝄞 é');
    assert.ok(!isWellFormed('x\ud800') && isWellFormed('x🙂'));
  });

  it('returns the very same string when there is nothing to clean (fast path)', () => {
    const big = 'ok 🙂 '.repeat(100_000);
    assert.ok(Object.is(toWellFormed(big), big));
  });

  it('property: the output is well formed, as long as the input, and equal to it when the input was well formed', () => {
    fc.assert(
      fc.property(fc.oneof(surrogateString, fc.string({ unit: 'grapheme' })), (s) => {
        const out = toWellFormed(s);
        assert.ok(nativeWellFormed(out), JSON.stringify(out));
        assert.equal(out.length, s.length);
        assert.equal(isWellFormed(s), nativeWellFormed(s));
        if (nativeWellFormed(s)) assert.equal(out, s);
        const native = (String.prototype as { toWellFormed?: (this: string) => string }).toWellFormed;
        if (native) assert.equal(out, native.call(s), 'same as the engine');
        // JSON of the output round-trips and holds no escaped lone surrogate.
        assert.equal(JSON.parse(JSON.stringify(out)), out);
      }),
      { numRuns: 1000 },
    );
  });

  it('cleans every string of a JSON value, keys included, and keeps identity when clean', () => {
    const clean = { a: ['x', { b: 'y' }], n: 1, t: true, z: null };
    assert.ok(Object.is(toWellFormedDeep(clean), clean));
    const dirty = { a: ['x', { b: 'y\ud800' }], ['k\udc00']: 2, n: 1 };
    const out = toWellFormedDeep(dirty);
    assert.deepEqual(out, { a: ['x', { b: `y${REPLACEMENT_CHARACTER}` }], [`k${REPLACEMENT_CHARACTER}`]: 2, n: 1 });
    assert.equal(dirty.a[1] && (dirty.a[1] as { b: string }).b, 'y\ud800', 'the input is not mutated');
  });
});
