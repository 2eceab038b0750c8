/**
 * A `Tokenizer` backed by js-tiktoken (pure JS BPE). Claude's tokenizer is not public; an
 * OpenAI BPE is only a proxy whose ratio to Claude's counts (~1.2 on code and English) is
 * learned by the estimator (calibration.ts). The default encoding is cl100k_base, chosen by
 * measurement on the real fixture (`npm run bench -- estimate <file> --encoding o200k_base`
 * runs the comparison):
 *
 * - accuracy is a tie: the anchored estimator's error is median 0.025 % / p95 0.22 % with
 *   cl100k_base and 0.023 % / 0.19 % with o200k_base (unbiased variant: 0.010 / 0.077 vs
 *   0.009 / 0.075); both count this session within 0.5 % of each other;
 * - cl100k_base costs half: 1.1 MB of ranks instead of 2.3 MB in dist/tokenizer.js, ~0.3 s
 *   instead of ~0.55 s to build js-tiktoken's rank table, ~30 MB less heap. (That table is no
 *   longer built: parts are merged on a byte trie, byteTrie.ts — for cl100k_base 6.6 MB of
 *   typed arrays, built in ~0.05–0.2 s, as `npm run bench -- tokenizer` prints.)
 *
 * This is the only module of src/core that imports js-tiktoken, and nothing in src/core
 * imports this module statically: the host loads it through dist/tokenizer.js
 * (src/host/tokenizerBundle.ts, src/host/tokenizerLoader.ts).
 */
import { Tiktoken, type TiktokenBPE } from 'js-tiktoken/lite';
import cl100kBase from 'js-tiktoken/ranks/cl100k_base';
import type { Tokenizer } from '../platform/platformPorts';
import { buildByteTrie } from './byteTrie';
import { BytePartMemo, hashBytes } from './bytePartMemo';
import { TrieMerger } from './trieMerge';

/** The encodings this module bundles. Others can be passed as `TiktokenRanks`. */
export type BundledEncoding = 'cl100k_base';

/** Rank data of another js-tiktoken encoding (e.g. `js-tiktoken/ranks/o200k_base`), with its name. */
export interface TiktokenRanks {
  readonly name: string;
  readonly ranks: TiktokenBPE;
}

/**
 * The most UTF-8 bytes of one piece BPE is given. Byte-pair merging is quadratic in the bytes
 * of one piece, so a long run without spaces — a minified file, base64, CJK, emoji sequences,
 * combining marks — would stall the extension host; longer pieces are counted in parts of at
 * most this many bytes (never inside a character). Cutting can only add tokens (never fewer),
 * which suits an estimate.
 */
const PIECE_BYTES = 32;

/** Distinct parts whose counts are remembered without a trie (cleared when full). */
const MEMO_LIMIT = 50_000;

/** The largest piece buffer kept between counts (a longer piece gets one of its own). */
const BUFFER_KEPT = 1 << 16;

/**
 * A rank table as a byte trie (byteTrie.ts) with its merger (trieMerge.ts) and a memo of part
 * counts by their bytes (bytePartMemo.ts), and the encoding's pre-tokenizer. js-tiktoken's own
 * merge (`encode`) rescans every pair and re-joins their bytes at each step — cubic in a
 * piece's bytes, 12 s for 200 KB of CJK — and its table is a Map of comma-joined byte strings,
 * so parts are merged on the trie instead. When the rank data is not in the expected format
 * (another js-tiktoken version; a unit test fails then), js-tiktoken's `encode` counts each
 * part (`fallback`, `memo`).
 */
interface Encoder {
  readonly merger: TrieMerger | undefined;
  /** Counts of parts merged on the trie, by their bytes. */
  readonly parts: BytePartMemo;
  /** A piece's UTF-8 bytes (grown as needed up to BUFFER_KEPT). */
  buffer: Uint8Array;
  readonly fallback: () => Tiktoken;
  readonly pattern: RegExp;
  readonly memo: Map<string, number>;
}

const encoders = new WeakMap<TiktokenBPE, Encoder>();
const utf8 = new TextEncoder();

function encoderFor(ranks: TiktokenBPE): Encoder {
  let e = encoders.get(ranks);
  if (!e) {
    const trie = buildByteTrie(ranks);
    let enc: Tiktoken | undefined;
    e = {
      merger: trie && new TrieMerger(trie),
      parts: new BytePartMemo(PIECE_BYTES),
      buffer: new Uint8Array(1024),
      fallback: () => (enc ??= new Tiktoken(ranks)),
      pattern: new RegExp(ranks.pat_str, 'gu'),
      memo: new Map(),
    };
    encoders.set(ranks, e);
  }
  return e;
}

/** Whether a tokenizer made by {@link createTiktokenTokenizer} merges on its own byte trie (see Encoder). */
export function mergesOnRankTable(encoding: BundledEncoding | TiktokenRanks = 'cl100k_base'): boolean {
  return encoderFor(typeof encoding === 'string' ? cl100kBase : encoding.ranks).merger !== undefined;
}

/** Tokens of one part of at most PIECE_BYTES bytes by js-tiktoken's `encode` (no trie), memoised. */
function partTokens(e: Encoder, part: string): number {
  let n = e.memo.get(part);
  if (n !== undefined) return n;
  n = e.fallback().encode(part, [], []).length;
  if (e.memo.size >= MEMO_LIMIT) e.memo.clear();
  e.memo.set(part, n);
  return n;
}

/**
 * Tokens of one piece of the pre-tokenizer: in parts of at most PIECE_BYTES UTF-8 bytes (never
 * inside a character), each merged on the trie ({@link trieTokens}) or, without one, counted
 * by {@link partTokens}.
 */
function pieceTokens(e: Encoder, piece: string): number {
  if (e.merger) return trieTokens(e, e.merger, piece);
  if (piece.length * 3 <= PIECE_BYTES) return partTokens(e, piece);
  let n = 0;
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < piece.length;) {
    const cp = piece.codePointAt(i) ?? 0;
    const b = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + b > PIECE_BYTES) {
      n += partTokens(e, piece.slice(start, i));
      start = i;
      bytes = 0;
    }
    bytes += b;
    i += cp > 0xffff ? 2 : 1;
  }
  return n + partTokens(e, start === 0 ? piece : piece.slice(start));
}

/**
 * Tokens of a piece on the trie: its UTF-8 bytes (a lone surrogate is U+FFFD, as TextEncoder
 * writes it, and as js-tiktoken encodes it) cut into the same parts as {@link pieceTokens}
 * cuts the string — at most PIECE_BYTES bytes, never inside a character — each merged,
 * memoised by its bytes.
 */
function trieTokens(e: Encoder, merger: TrieMerger, piece: string): number {
  const most = piece.length * 3;
  if (e.buffer.length < most && most <= BUFFER_KEPT) e.buffer = new Uint8Array(Math.max(most, 2 * e.buffer.length));
  const bytes = most <= e.buffer.length ? e.buffer : new Uint8Array(most);
  const length = utf8.encodeInto(piece, bytes).written;
  if (length <= PIECE_BYTES) return bytePartTokens(e, merger, bytes, 0, length);
  let n = 0;
  let start = 0;
  for (let i = 0; i < length;) {
    const lead = bytes[i] ?? 0;
    const next = i + (lead < 0xc0 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4);
    if (next - start > PIECE_BYTES) {
      n += bytePartTokens(e, merger, bytes, start, i);
      start = i;
    }
    i = next;
  }
  return n + bytePartTokens(e, merger, bytes, start, length);
}

/** Tokens of the part `bytes[from, to)` of a piece, memoised by its bytes. */
function bytePartTokens(e: Encoder, merger: TrieMerger, bytes: Uint8Array, from: number, to: number): number {
  const hash = hashBytes(bytes, from, to);
  let n = e.parts.get(bytes, from, to, hash);
  if (n < 0) {
    n = merger.count(bytes, from, to);
    e.parts.set(bytes, from, to, hash, n);
  }
  return n;
}

/**
 * Tokens of `text`: split by the encoding's own pre-tokenizer, each piece counted by
 * {@link pieceTokens}. Linear in the length of the text for any content.
 */
function countWith(e: Encoder, text: string): number {
  let total = 0;
  const pattern = e.pattern;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) total += pieceTokens(e, m[0]);
  return total;
}

/**
 * Creates a `Tokenizer` counting with js-tiktoken. `encoding` defaults to cl100k_base (see
 * the module comment for why); pass `{ name, ranks }` to use another rank file. Building the
 * rank table takes a few hundred ms once per rank object (memoised); `count` is then
 * deterministic, linear in the text's length, never throws, and treats special-token strings
 * as ordinary text.
 */
export function createTiktokenTokenizer(encoding: BundledEncoding | TiktokenRanks = 'cl100k_base'): Tokenizer {
  const name = typeof encoding === 'string' ? encoding : encoding.name;
  const ranks = typeof encoding === 'string' ? cl100kBase : encoding.ranks;
  const e = encoderFor(ranks);
  return {
    name,
    count(text: string): number {
      return text.length === 0 ? 0 : countWith(e, text);
    },
  };
}
