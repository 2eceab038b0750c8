import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { capOutput, joinHeadTail } from '../../src/core/tools/limits';
import { OutputCollector } from '../../src/host/tools/outputCollector';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text rich in surrogate pairs and line breaks, always well-formed. */
const text = fc
  .array(
    fc.oneof(
      fc.constantFrom('😀', '👩‍💻', '𝒳', '\n', 'a', 'é', ' ', '\r\n'),
      fc.string({ unit: 'grapheme', maxLength: 8 }),
    ),
    { maxLength: 600 },
  )
  .map((parts) => parts.join(''));

describe('tools: output caps', () => {
  it('capOutput returns text that fits unchanged', () => {
    assert.equal(capOutput('short', 1000), 'short');
    assert.equal(capOutput('', 10), '');
  });

  it('capOutput keeps head and tail on line boundaries with a notice', () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n');
    const out = capOutput(lines, 1000);
    assert.ok(out.length <= 1000, `length ${out.length}`);
    assert.ok(out.startsWith('line 0\nline 1\n'));
    assert.ok(out.endsWith('line 999'));
    const [head, tail] = out.split(/\n\[… .* …\]\n/);
    assert.ok(head !== undefined && tail !== undefined, out);
    for (const l of [...head.split('\n'), ...tail.split('\n')])
      assert.match(l, /^line \d+$/, 'no partial line is kept');
    assert.match(
      out,
      /\[… [\d,]+ characters \([\d,]+ line breaks\) cut from the middle: output is capped at 1,000 characters …\]/,
    );
  });

  it('capOutput never splits a surrogate pair, stays under the cap, and keeps a true head and tail (property)', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 400, max: 3000 }), (s, max) => {
        const out = capOutput(s, max);
        assert.ok(out.length <= max, `length ${out.length} > ${max}`);
        assert.ok(!LONE_SURROGATE.test(out), 'a surrogate pair was split');
        if (s.length <= max) assert.equal(out, s);
        else {
          const at = out.indexOf('[… ');
          assert.ok(at >= 0, 'the notice is there');
          const head = out.slice(0, at).replace(/\n$/, '');
          const tail = out.slice(out.indexOf(' …]\n') + 4);
          assert.ok(s.startsWith(head) && s.endsWith(tail), 'head and tail come from the text');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('capOutput with a tiny cap keeps only the start, surrogate-safe', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 399 }), (s, max) => {
        const out = capOutput(s, max);
        assert.ok(out.length <= max && s.startsWith(out) && !LONE_SURROGATE.test(out));
      }),
    );
  });

  it('joinHeadTail counts a gap the collector already dropped', () => {
    const out = joinHeadTail('head\n', 'tail\n', 1234, 56, 1000);
    assert.equal(
      out,
      'head\n[… 1,234 characters (56 line breaks) cut from the middle: output is capped at 1,000 characters …]\ntail\n',
    );
  });

  it('OutputCollector keeps a true head and tail of the stream and counts what it dropped (property)', () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 8 }), fc.integer({ min: 400, max: 1500 }), (chunks, max) => {
        const c = new OutputCollector(max);
        for (const chunk of chunks) c.push(chunk);
        const all = chunks.join('');
        const out = c.text();
        assert.equal(c.length, all.length);
        assert.ok(out.length <= max && !LONE_SURROGATE.test(out));
        if (all.length <= max) assert.equal(out, all);
        else {
          const at = out.indexOf('[… ');
          const head = out.slice(0, at).replace(/\n$/, '');
          const tail = out.slice(out.indexOf(' …]\n') + 4);
          assert.ok(all.startsWith(head) && all.endsWith(tail));
          const cut = /\[… ([\d,]+) characters/.exec(out)?.[1]?.replace(/,/g, '');
          assert.equal(
            Number(cut) + head.length + tail.length,
            all.length,
            'the notice counts exactly what is missing',
          );
        }
      }),
      { numRuns: 200 },
    );
  });
});
