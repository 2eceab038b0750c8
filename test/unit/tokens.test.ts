import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Message, ToolSchema } from '../../src/core/conversation/conversationModel';
import {
  blockFixedTokens,
  blockRawTokens,
  IMAGE_FRAMING,
  MESSAGE_FRAMING,
  messageRawTokens,
  TEXT_FRAMING,
  TOOL_PARAM_FRAMING,
  TOOL_RESULT_FRAMING,
  TOOL_USE_FRAMING,
  toolsRawTokens,
} from '../../src/core/tokens/blockTokens';
import { chars4Tokenizer } from '../../src/core/tokens/chars4';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100kRanks from 'js-tiktoken/ranks/cl100k_base';
import { ByteTrie } from '../../src/core/tokens/byteTrie';
import { TrieMerger } from '../../src/core/tokens/trieMerge';
import { createTiktokenTokenizer, mergesOnRankTable } from '../../src/core/tokens/tiktoken';
import { createTokenizerLoader } from '../../src/host/tokenizerLoader';
import { countingTokenizer, mk, words } from './support/tokenFakes';
import { pngBase64 } from './support/images';

describe('tokenizers', () => {
  it('chars/4 rounds up', () => {
    assert.equal(chars4Tokenizer.count(''), 0);
    assert.equal(chars4Tokenizer.count('abc'), 1);
    assert.equal(chars4Tokenizer.count('abcd'), 1);
    assert.equal(chars4Tokenizer.count('abcde'), 2);
  });

  it('tiktoken (cl100k_base) counts like tiktoken and treats special tokens as text', () => {
    const tk = createTiktokenTokenizer();
    assert.equal(tk.name, 'cl100k_base');
    assert.equal(tk.count(''), 0);
    assert.equal(tk.count('hello world'), 2);
    assert.ok(tk.count('a <|endoftext|> b') > 3, 'special token strings are counted as text, not rejected');
  });

  it('tiktoken stays linear on any content (minified code, blobs, CJK, emoji, combining marks) and counts like js-tiktoken', function () {
    this.timeout(60_000);
    // A copy of the rank data is a counter of its own: its memo holds nothing other tests counted.
    const tk = createTiktokenTokenizer({ name: 'cl100k_base', ranks: { ...cl100kRanks } });
    assert.equal(
      mergesOnRankTable(),
      true,
      "js-tiktoken's rank data is read into the byte trie (else every part goes through js-tiktoken's slow merge)",
    );
    // What makes it fast, checked without a stopwatch: a rank lookup is a step on the byte
    // trie (ByteTrie.edge: one byte), a memo lookup a Map.get, and their number grows with the
    // text's bytes (long runs are merged in parts of at most 32 bytes; a pair's rank is looked
    // up once and again only when a merge changes it). A merge rescans its part's pairs, so a
    // part merged is at most 32 bytes and each byte is merged at most once (fewer: the memo).
    const utf8 = new TextEncoder();
    const samples: Record<string, string> = {
      letters: 'a'.repeat(50_000),
      spaces: ' '.repeat(50_000),
      punctuation: '='.repeat(50_000),
      random: Array.from({ length: 20_000 }, (_, i) => String.fromCharCode(65 + ((i * 7919) % 26))).join(''),
      cjk: Array.from({ length: 20_000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20_000))).join(''),
      emoji: '👨‍👩‍👧‍👦👩🏽‍💻'.repeat(2_000),
      combining: 'a\u0301\u0302\u0303e\u0308'.repeat(5_000),
    };
    const get = Map.prototype.get;
    const edge = ByteTrie.prototype.edge;
    const merge = TrieMerger.prototype.count;
    for (const [name, text] of Object.entries(samples)) {
      let lookups = 0;
      let steps = 0;
      let merged = 0;
      let longest = 0;
      TrieMerger.prototype.count = function (this: TrieMerger, bytes: Uint8Array, from: number, to: number) {
        merged += to - from;
        longest = Math.max(longest, to - from);
        return merge.call(this, bytes, from, to);
      };
      Map.prototype.get = function (this: Map<unknown, unknown>, key: unknown) {
        lookups++;
        return get.call(this, key);
      };
      ByteTrie.prototype.edge = function (this: ByteTrie, node: number, byte: number) {
        steps++;
        return edge.call(this, node, byte);
      };
      let n: number;
      try {
        n = tk.count(text);
      } finally {
        Map.prototype.get = get;
        ByteTrie.prototype.edge = edge;
        TrieMerger.prototype.count = merge;
      }
      assert.ok(n > 0, name);
      const bytes = utf8.encode(text).length;
      assert.ok(merged > 0 && steps > 0, `${name}: merged on the trie`);
      assert.ok(
        longest <= 32 && merged <= bytes,
        `${name}: ${merged} bytes merged for ${bytes}, parts up to ${longest}`,
      );
      assert.ok(
        lookups + steps <= 6 * bytes,
        `${name}: ${lookups} memo lookups and ${steps} trie steps for ${bytes} bytes`,
      );
    }
    // Cutting long runs only adds tokens, never fewer than a free-running count would give.
    assert.ok(tk.count('x'.repeat(1000)) >= 1000 / 32);
    // Ordinary text and short pieces of any script count exactly as js-tiktoken does.
    const reference = new Tiktoken(cl100kRanks);
    for (const text of [
      'The estimator is anchored on the last reported usage, and calibrated on every turn.',
      'export function capTokens(text: string, maxTokens: number): CappedText {\n  return x;\n}\n',
      '这是一个测试句子，我们用它来衡量。',
      'Съешь же ещё этих мягких французских булок 👩🏽‍💻 e\u0301',
    ])
      assert.equal(tk.count(text), reference.encode(text, [], []).length, text);
  });

  it('a long run counts as js-tiktoken counts its parts of at most 32 UTF-8 bytes, cut between characters', () => {
    const tk = createTiktokenTokenizer();
    const reference = new Tiktoken(cl100kRanks);
    const pattern = new RegExp(cl100kRanks.pat_str, 'gu');
    // The definition, on strings: each piece of the pre-tokenizer in parts of at most 32 bytes.
    const byParts = (text: string): number => {
      let n = 0;
      for (const [piece] of text.matchAll(pattern)) {
        let part = '';
        let bytes = 0;
        for (const ch of piece) {
          const b = new TextEncoder().encode(ch).length;
          if (bytes + b > 32) {
            n += reference.encode(part, [], []).length;
            part = '';
            bytes = 0;
          }
          part += ch;
          bytes += b;
        }
        n += reference.encode(part, [], []).length;
      }
      return n;
    };
    const runs = [
      'abcdefghijklmnopqrstuvwxyz'.repeat(9),
      'QmFzZTY0IGlzIGEgZ3JvdXAgb2YgYmluYXJ5LXRvLXRleHQgZW5jb2Rpbmc'.repeat(7),
      Array.from({ length: 300 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20_000))).join(''),
      '👨‍👩‍👧‍👦👩🏽‍💻🏳️‍🌈'.repeat(40),
      `${'漢字'.repeat(30)}\ud800${'ab'.repeat(40)}\udc00${'é'.repeat(50)}`, // lone surrogates: U+FFFD
      '='.repeat(500),
    ];
    for (const text of runs) assert.equal(tk.count(text), byParts(text), text.slice(0, 40));
    // Repeating a run (its parts remembered) changes nothing.
    for (const text of runs) assert.equal(tk.count(text), byParts(text), text.slice(0, 40));
  });
});

describe('blockRawTokens', () => {
  it('counts each block once: the memo in meta.tokenCount is used', () => {
    const tk = countingTokenizer();
    const b = mk.text('one two three');
    assert.equal(b.meta.tokenCount, undefined);
    assert.equal(blockRawTokens(b, tk), TEXT_FRAMING + 3);
    assert.equal(b.meta.tokenCount, TEXT_FRAMING + 3);
    assert.equal(tk.calls, 1);
    for (let i = 0; i < 5; i++) assert.equal(blockRawTokens(b, tk), TEXT_FRAMING + 3);
    assert.equal(tk.calls, 1, 'not re-counted');
    // The memo wins over recounting (proves it is read, not recomputed).
    b.meta.tokenCount = 999;
    assert.equal(blockRawTokens(b, tk), 999);
  });

  it('messages are summed once per Message object, and only new blocks are counted', () => {
    const tk = countingTokenizer();
    const shared = mk.text('a b c');
    const m1 = mk.message('user', [shared, mk.text('d e')]);
    const r1 = messageRawTokens(m1, tk);
    assert.deepEqual(r1, { text: MESSAGE_FRAMING + 2 * TEXT_FRAMING + 5, fixed: 0 });
    assert.equal(tk.calls, 2);
    assert.equal(messageRawTokens(m1, tk), r1, 'same object back from the memo');
    const m2 = mk.message('user', [shared, mk.text('f')]);
    messageRawTokens(m2, tk);
    assert.equal(tk.calls, 3, 'the shared block was not counted again');
  });

  it('tool_use counts the name and parameter values unescaped, plus framing', () => {
    const tk = countingTokenizer();
    const b = mk.toolUse('edit', { path: 'a.ts', oldText: 'x\ny', limit: 3 });
    // words: edit, path, a.ts, oldText, x, y, limit, 3
    assert.equal(blockRawTokens(b, tk), TOOL_USE_FRAMING + 3 * TOOL_PARAM_FRAMING + 8);
  });

  it('tool_result counts string and text/image parts, images by size', () => {
    const tk = countingTokenizer();
    assert.equal(blockRawTokens(mk.toolResult('one two'), tk), TOOL_RESULT_FRAMING + 2);
    const img = pngBase64(750, 100); // 100 tokens
    const b = mk.toolResult([
      { type: 'text', text: 'see this' },
      { type: 'image', mediaType: 'image/png', data: img },
    ]);
    assert.equal(blockRawTokens(b, tk), TOOL_RESULT_FRAMING + 2 + IMAGE_FRAMING + 100);
    assert.equal(blockFixedTokens(b), 100);
    const m = mk.message('user', [b]);
    assert.deepEqual(messageRawTokens(m, tk), {
      text: MESSAGE_FRAMING + TOOL_RESULT_FRAMING + 2 + IMAGE_FRAMING,
      fixed: 100,
    });
  });

  it('image blocks cost their pixel tokens (fixed) plus framing', () => {
    const tk = countingTokenizer();
    const b = mk.image(pngBase64(1500, 1000)); // 1.5 MP: scaled to ~1.2 MP → capped near 1600
    const n = blockRawTokens(b, tk);
    assert.ok(n - IMAGE_FRAMING > 1500 && n - IMAGE_FRAMING <= 1600, String(n));
    assert.equal(tk.calls, 0, 'images never reach the tokenizer');
  });

  it('thinking counts its text, not the signature; summaries count their text', () => {
    const tk = countingTokenizer();
    const t: Message['blocks'][number] = {
      type: 'thinking',
      thinking: 'a b c',
      signature: 'sig '.repeat(100),
      meta: mk.text('').meta,
    };
    assert.equal(blockRawTokens(t, tk), TEXT_FRAMING + 3);
    const s: Message['blocks'][number] = {
      type: 'summary',
      text: words(10),
      compactionId: 'c1',
      turnRange: [1, 2],
      meta: mk.text('').meta,
    };
    assert.equal(blockRawTokens(s, tk), TEXT_FRAMING + 10);
  });

  it('tool schemas are counted once per object', () => {
    const tk = countingTokenizer();
    const tool: ToolSchema = {
      name: 'read',
      description: 'Read a file',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    };
    const a = toolsRawTokens([tool], tk);
    const b = toolsRawTokens([tool, tool], tk);
    assert.equal(b.text, 2 * a.text);
    assert.equal(tk.calls, 1);
  });
});

describe('tokenizer loader', () => {
  it('falls back to chars/4 and reports why when the bundle cannot be loaded', async () => {
    let loads = 0;
    const load = createTokenizerLoader(() => {
      loads++;
      throw new Error('Cannot find module tokenizer.js');
    });
    const r = await load();
    assert.equal(r.tokenizer.name, 'chars/4');
    assert.match(r.fallbackReason ?? '', /Cannot find module/);
    assert.equal(await load(), r, 'memoised');
    assert.equal(loads, 1);
  });

  it('rejects a module without the factory, and loads a good one', async () => {
    const bad = await createTokenizerLoader(() => ({}))();
    assert.equal(bad.tokenizer.name, 'chars/4');
    assert.ok(bad.fallbackReason);
    const good = await createTokenizerLoader(() => ({ createTiktokenTokenizer }))();
    assert.equal(good.tokenizer.name, 'cl100k_base');
    assert.equal(good.fallbackReason, undefined);
  });
});

describe('tiktoken stays off the activation path', () => {
  const src = join(__dirname, '..', '..', 'src');
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
    });
  /** Specifiers of value (not `import type`) imports, re-exports and requires. */
  const valueImports = (code: string): string[] =>
    [
      ...code.matchAll(
        /^\s*(?:import|export)\s+(?!type\b)[^'"]*?from\s*['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)|import\(\s*['"]([^'"]+)['"]\s*\)/gm,
      ),
    ].map((m) => m[1] ?? m[2] ?? m[3] ?? '');

  it('only tokens/tiktoken.ts imports js-tiktoken, and only the tokenizer bundle imports it', () => {
    const all = files(src);
    assert.ok(all.length > 10);
    for (const f of all) {
      const where = relative(src, f).split('\\').join('/');
      for (const s of valueImports(readFileSync(f, 'utf8'))) {
        if (s.startsWith('js-tiktoken')) assert.equal(where, 'core/tokens/tiktoken.ts', `${where} imports ${s}`);
        if (/(^|\/)tiktoken$/.test(s))
          assert.equal(where, 'host/tokenizerBundle.ts', `${where} imports ${s} statically`);
        if (/(^|\/)tokenizerBundle$/.test(s)) assert.fail(`${where} imports the tokenizer bundle statically`);
      }
    }
    assert.deepEqual(
      valueImports(`import type { A } from './tiktoken';\nimport { B } from "./tiktoken";`),
      ['./tiktoken'],
      'the checker sees value imports only',
    );
  });
});
