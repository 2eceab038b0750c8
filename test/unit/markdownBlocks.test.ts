import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { MarkdownBlockSplitter, type SettledBlock, type SplitUpdate } from '../../src/webview/chat/markdownBlocks';
import { md, markdownEnv } from '../../src/webview/chat/markdownParser';

/** The reference render: the whole text at once, as a finished answer is rendered. */
const whole = (text: string): string => md.render(text);
const piece = (source: string, refs: SettledBlock['references']): string => md.render(source, markdownEnv(refs));

/** Streams `deltas` through a splitter; after each push, what the chat shows and what settled so far. */
function stream(deltas: readonly string[]): Array<{ text: string; settled: SettledBlock[]; update: SplitUpdate }> {
  const splitter = new MarkdownBlockSplitter();
  const settled: SettledBlock[] = [];
  return deltas.map((d) => {
    const update = splitter.push(d);
    settled.push(...update.settled);
    return { text: splitter.text, settled: [...settled], update };
  });
}

const settledHtml = (settled: readonly SettledBlock[]): string =>
  settled.map((b) => piece(b.source, b.references)).join('');
const shown = (settled: readonly SettledBlock[], u: SplitUpdate): string =>
  settledHtml(settled) + piece(u.tail, u.references);

/** Cuts `text` at the given points (any order, repeats allowed) into deltas. */
function cut(text: string, points: readonly number[]): string[] {
  const at = [...new Set(points.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of [...at, text.length]) {
    out.push(text.slice(from, p));
    from = p;
  }
  return out;
}

// Pieces that make Markdown interesting: block starts, fences, lists, tables, quotes, setext
// underlines, link definitions and their uses, line breaks of every kind.
const PIECES = [
  'a',
  'foo',
  'Bar baz',
  ' ',
  '  ',
  '\t',
  '\n',
  '\n\n',
  '\r\n',
  '\r',
  '#',
  '## ',
  '- ',
  '* ',
  '+ ',
  '1. ',
  '2) ',
  '> ',
  '    ',
  '```',
  '```ts',
  '~~~',
  '`',
  '**',
  '_',
  '|',
  '| a | b |',
  '|---|---|',
  '---',
  '===',
  '[',
  ']',
  '[ ]',
  '[foo]',
  '[x](http://a.io)',
  '[foo]: /url',
  '[Foo]: http://b.io "t"',
  '"title"',
  '(',
  ')',
  'http://x.io/p',
  '![i](data:image/png;base64,AA==)',
  '<b>',
  '&amp;',
  '\\',
];

// Line by line too: a block marker (or none) and some content, so lists, quotes, tables and fences nest and end.
const LINE_STARTS = [
  '',
  '',
  '- ',
  '  - ',
  '1. ',
  '2. ',
  '> ',
  '>',
  '    ',
  '  ',
  '```',
  '```js',
  '~~~',
  '# ',
  '| ',
  '[a]: /u',
  '*',
];
const LINE_ENDS = ['', 'a', 'b c', '[a]', '[a][]', '*em*', '`x`', '|x|y|', '---', '===', '```', '"t"', 'http://x.io'];
const markdownLines = fc
  .array(fc.tuple(fc.constantFrom(...LINE_STARTS), fc.constantFrom(...LINE_ENDS)), { maxLength: 16 })
  .map((lines) => lines.map(([a, b]) => a + b).join('\n'));
const markdownText = fc.oneof(
  fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((parts) => parts.join('')),
  markdownLines,
);

describe('streamed Markdown: settled blocks and the live tail (markdownBlocks.ts)', () => {
  it('property: for any text and any split into deltas, settled blocks + tail render what the whole text renders, at every step', () => {
    fc.assert(
      fc.property(markdownText, fc.array(fc.nat(), { maxLength: 12 }), (text, points) => {
        const steps = stream(cut(text, points));
        for (const s of steps) assert.equal(shown(s.settled, s.update), whole(s.text), JSON.stringify(s.text));
        assert.equal(steps.at(-1)?.text, text);
      }),
      { numRuns: 1500 },
    );
  });

  it('property: what settled never changes: its render is the start of every later render, and its source the start of the text', () => {
    fc.assert(
      fc.property(markdownText, fc.array(fc.nat(), { maxLength: 12 }), (text, points) => {
        const steps = stream(cut(text, points));
        const final = whole(text);
        for (const s of steps) {
          assert.ok(text.startsWith(s.settled.map((b) => b.source).join('')));
          assert.ok(final.startsWith(settledHtml(s.settled)), JSON.stringify(s.text));
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('one character at a time, a typical answer settles block by block and leaves only the last one live', () => {
    const text = '## Plan\n\nFix **login** in `src/a.ts`.\n\n- one\n- two\n\n```ts\nconst a = 1;\n```\n\nDone.';
    const steps = stream([...text]);
    const last = steps.at(-1);
    assert.ok(last);
    assert.deepEqual(
      last.settled.map((b) => b.source),
      ['## Plan\n\n', 'Fix **login** in `src/a.ts`.\n\n', '- one\n- two\n\n'],
    );
    // The fence is final, but settles only once the line after it is whole (a partial line may still join).
    assert.equal(last.update.tail, '```ts\nconst a = 1;\n```\n\nDone.');
    assert.equal(stream([...`${text}\n`]).at(-1)?.settled.length, 4);
    // While the list is being written it stays live; it settles when the fence starts.
    const inList = steps.find((s) => s.text.endsWith('- tw'));
    assert.equal(inList?.settled.length, 2);
    assert.equal(inList?.update.tail, '- one\n- tw');
  });

  it('a fence not yet closed is the tail, as plain code with its language; closing it ends that', () => {
    const open = stream(['Look:\n\n```ts\nconst a = 1;\nconst b']).at(-1);
    assert.deepEqual(open?.update.openFence, { lang: 'ts', code: 'const a = 1;\nconst b' });
    assert.deepEqual(
      open?.settled.map((b) => b.source),
      ['Look:\n\n'],
    );
    const closed = stream(['```ts\nconst a = 1;\n```']).at(-1);
    assert.equal(closed?.update.openFence, undefined);
    assert.equal(stream(['```\n# not a heading\n']).at(-1)?.update.openFence?.code, '# not a heading\n');
    assert.equal(stream(['```a<b>\nx']).at(-1)?.update.openFence?.lang, '', 'an unsafe language name is dropped');
    assert.equal(stream(['text\n\nmore']).at(-1)?.update.openFence, undefined);
  });

  it('a partial last line never settles the block before it (`#` is a heading, `#x` is not)', () => {
    const steps = stream(['para\n#', 'x\n']);
    assert.equal(steps[0]?.settled.length, 0);
    assert.equal(whole('para\n#x\n'), shown(steps[1]?.settled ?? [], steps[1]?.update as SplitUpdate));
  });

  it('a bracket a later definition could make a link holds the block (and those after) live', () => {
    const steps = stream(['See [foo].\n\nNext.\n\n', 'More.\n\n[foo]: http://a.io\n']);
    assert.equal(steps[0]?.settled.length, 0, 'nothing settles after an unresolved [foo]');
    const last = steps.at(-1);
    assert.ok(last);
    assert.match(shown(last.settled, last.update), /<a href="http:\/\/a.io">foo<\/a>/);
    // A task box `[ ]` cannot be a label: it settles.
    assert.equal(stream(['- [ ] todo\n\nNext\n']).at(-1)?.settled.length, 1);
  });

  it('a definition carries on to the blocks after it, and settles only when a blank line ends it', () => {
    const held = stream(['[foo]: /url\n"ti\nNext\n']).at(-1);
    assert.equal(held?.settled.length, 0);
    const steps = stream(['[foo]: /url\n\n', 'Use [foo].\n\nEnd\n']);
    const last = steps.at(-1);
    assert.ok(last);
    assert.deepEqual(
      last.settled.map((b) => b.source),
      ['[foo]: /url\n\nUse [foo].\n\n'],
    );
    assert.match(settledHtml(last.settled), /<a href="\/url">foo<\/a>/);
  });
});
