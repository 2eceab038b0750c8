import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { GUARD_DEFAULTS } from '../../src/core/compaction/guardDefaults';
import {
  guardToolResult,
  guardToolResultContent,
  resultCharLimit,
  type ToolResultGuardOptions,
} from '../../src/core/compaction/toolResultGuard';
import { utf8Length } from '../../src/core/platform/text';
import { lines } from './support/compactionBuilders';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const opts = (o: Partial<ToolResultGuardOptions> = {}): ToolResultGuardOptions => ({
  contextWindow: 200_000,
  spillDirectory: '/s/tool-results/',
  fileName: 'toolu_1.txt',
  toolName: 'run_command',
  ...o,
});
/** ASCII text of exactly `bytes` bytes, in 100-character lines. */
const ascii = (bytes: number): string => lines(Math.ceil(bytes / 100) + 1, 99).slice(0, bytes);
const CUT_NOTICE =
  /\n?\[… ([\d,]+) characters \(([\d,]+) line breaks?\) cut from the middle of this result, from line ([\d,]+): a tool result may hold at most ([\d,]+) characters in this context window; run (\w+) again with narrower arguments .* to see the rest …\]\n/;

/** Text rich in surrogate pairs and line breaks, always well-formed. */
const emojiText = fc
  .array(
    fc.oneof(
      fc.constantFrom('😀', '👩‍💻', '𝒳', '\n', 'a', 'é', ' ', '\r\n', '😀😀😀😀😀😀😀😀'),
      fc.string({ unit: 'grapheme', maxLength: 8 }),
    ),
    { minLength: 200, maxLength: 2500 },
  )
  .map((parts) => parts.join(''));

describe('compaction guards: tool-result guard', () => {
  it('a result may hold 30 % of the window at 4 characters per token, between 2 000 and 400 000 characters', () => {
    assert.equal(resultCharLimit(20_000), 24_000);
    assert.equal(resultCharLimit(200_000), 240_000);
    assert.equal(resultCharLimit(1_000_000), GUARD_DEFAULTS.resultMaxChars);
    assert.equal(resultCharLimit(1_000), GUARD_DEFAULTS.resultMinChars);
    assert.equal(resultCharLimit(0), 2_000);
  });

  it('leaves a 29 KB result untouched', () => {
    const content = ascii(29_000);
    const g = guardToolResult(content, opts());
    assert.equal(g.content, content);
    assert.equal(g.cutChars, 0);
    assert.equal(g.spill, undefined);
    assert.equal(g.notice, undefined);
  });

  it('spills a 31 KB result: the file holds it all, the preview shows its first lines and how to read the rest', () => {
    const content = ascii(31_000);
    const g = guardToolResult(content, opts());
    assert.deepEqual(g.spill, { path: '/s/tool-results/toolu_1.txt', content });
    const [header, ...rest] = g.content.split('\n');
    assert.equal(header, g.notice);
    assert.match(
      g.notice ?? '',
      /^\[The run_command result \(31,000 characters, 31\.0 KB, 310 lines\) is too large to show inline; it was saved in full to \/s\/tool-results\/toolu_1\.txt\. .*read it with read_file path=\/s\/tool-results\/toolu_1\.txt offset=(\d+)/,
    );
    const offset = Number(/offset=(\d+)/.exec(header ?? '')?.[1]);
    const preview = rest.slice(0, -1).join('\n') + '\n';
    assert.ok(content.startsWith(preview), 'the preview is the start of the result');
    assert.ok(
      preview.length <= GUARD_DEFAULTS.previewChars && preview.length > 1_500,
      `preview of ${preview.length} characters`,
    );
    assert.equal(
      content.split('\n')[offset - 1],
      content.slice(preview.length).split('\n')[0],
      'offset names the first line not shown',
    );
    assert.equal(
      rest.at(-1),
      `[… ${(31_000 - preview.length).toLocaleString('en-US')} more characters not shown; read them with read_file path=/s/tool-results/toolu_1.txt offset=${offset} …]`,
    );
    assert.equal(g.cutChars, 31_000 - preview.length);
  });

  it('measures the spill size in UTF-8 bytes, not characters', () => {
    const euros = '€'.repeat(11_000); // 11 000 characters, 33 000 bytes
    assert.ok(guardToolResult(euros, opts()).spill, '33 KB of € is spilled');
    assert.equal(guardToolResult('€'.repeat(9_000), opts()).content, '€'.repeat(9_000), '27 KB of € is not');
    const emoji = '😀'.repeat(8_000); // 16 000 UTF-16 units, 32 000 bytes
    const g = guardToolResult(emoji, opts());
    assert.ok(g.spill);
    assert.ok(!LONE_SURROGATE.test(g.content));
  });

  it('cuts a 2 MB result to the limit of a 20k window (24 000 characters) head + tail at line breaks, with a notice', () => {
    const content = lines(20_000, 100);
    assert.ok(content.length > 2_000_000);
    const g = guardToolResult(content, opts({ contextWindow: 20_000, spillDirectory: '' }));
    assert.equal(g.spill, undefined);
    assert.ok(g.content.length <= 24_000 && g.content.length > 23_000, `length ${g.content.length}`);
    const m = CUT_NOTICE.exec(g.content);
    assert.ok(m, g.content.slice(11_000, 12_000));
    assert.equal(`[${g.content.slice(m.index).split('[')[1]?.split('\n')[0]}`, g.notice);
    const head = g.content.slice(0, m.index);
    const tail = g.content.slice(m.index + m[0].length);
    assert.ok(content.startsWith(head) && head.endsWith('\n'), 'the head ends at a line break');
    assert.ok(
      content.endsWith(tail) && content[content.length - tail.length - 1] === '\n',
      'the tail starts at a line',
    );
    assert.equal(Number(m[1]?.replace(/,/g, '')), content.length - head.length - tail.length);
    assert.equal(g.cutChars, content.length - head.length - tail.length);
    assert.equal(m[4], '24,000');
    assert.equal(m[5], 'run_command');
    assert.equal(Number(m[3]), head.split('\n').length, 'the first cut line');
  });

  it('spills rather than cuts when a spill directory is given, so nothing is lost', () => {
    const big = lines(20_000, 100);
    const g = guardToolResult(big, opts({ contextWindow: 20_000 }));
    assert.equal(g.spill?.content, big);
    assert.ok(g.content.length <= 24_000);
    const under30k = ascii(29_000); // under the spill size but over a 20k window's 24 000 characters
    assert.ok(guardToolResult(under30k, opts({ contextWindow: 20_000 })).spill);
    const cut = guardToolResult(under30k, opts({ contextWindow: 20_000, spillDirectory: '' }));
    assert.ok(cut.content.length <= 24_000 && cut.cutChars > 5_000);
  });

  it('never splits a surrogate pair and never exceeds the limit (property)', () => {
    fc.assert(
      fc.property(emojiText, fc.integer({ min: 500, max: 3_000 }), fc.boolean(), (s, window, spill) => {
        const limit = resultCharLimit(window);
        const g = guardToolResult(s, opts({ contextWindow: window, spillDirectory: spill ? '/tmp/x' : '' }));
        assert.ok(g.content.length <= limit, `${g.content.length} > ${limit}`);
        assert.ok(!LONE_SURROGATE.test(g.content), 'a surrogate pair was split');
        if (s.length <= limit && utf8Length(s) <= GUARD_DEFAULTS.spillBytes) return assert.equal(g.content, s);
        if (g.spill) return assert.equal(g.spill.content, s);
        const m = CUT_NOTICE.exec(g.content);
        assert.ok(m);
        const head = g.content.slice(0, m.index);
        const tail = g.content.slice(m.index + m[0].length);
        assert.ok(s.startsWith(head) && s.endsWith(tail), 'head and tail come from the result');
      }),
      { numRuns: 200 },
    );
  });

  it('guards only the text parts of array content; images pass through', () => {
    const image = { type: 'image' as const, mediaType: 'image/png' as const, data: 'iVBORw0KGgo=' };
    const small = { type: 'text' as const, text: 'ok' };
    const same = guardToolResultContent([small, image], opts());
    assert.deepEqual(same.content, [small, image]);
    assert.equal(same.spills.length, 0);

    const big = ascii(40_000);
    const one = guardToolResultContent([{ type: 'text', text: big }, image], opts());
    assert.ok(Array.isArray(one.content));
    assert.equal(one.content[1], image);
    assert.deepEqual(one.spills, [{ path: '/s/tool-results/toolu_1.txt', content: big }]);
    assert.equal(one.notices.length, 1);

    const two = guardToolResultContent([{ type: 'text', text: big }, image, { type: 'text', text: big }], opts());
    assert.deepEqual(
      two.spills.map((s) => s.path),
      ['/s/tool-results/toolu_1-1.txt', '/s/tool-results/toolu_1-2.txt'],
    );

    const str = guardToolResultContent(big, opts());
    assert.equal(str.spills.length, 1);
    assert.equal(typeof str.content, 'string');
  });
});
