/**
 * The fake server's tokenizer: a deterministic word/punctuation counter, deliberately NOT a
 * BPE and not the extension's estimator (js-tiktoken cl100k_base + calibration), so the
 * extension's estimates really are estimates against it. It lands near Claude's real counts
 * (about 4 characters per token on English prose, 2.5–3 on code) and is linear in the input,
 * with no pathological cases (base64 blobs, minified code, long runs).
 *
 * Pieces and what each costs:
 * - a cased word piece (`get`, `Element`, `HTTP`; camelCase splits): ceil(length / 7);
 * - a run of uncased letters (Arabic, Hebrew, Thai, …): ceil(length / 3);
 * - one Han / kana / Hangul character: 1;
 * - a run of digits: ceil(length / 3);
 * - a single space: 0 (it belongs to the next word); 2+ spaces or tabs: ceil(length / 4);
 * - a run of newlines: ceil(length / 2);
 * - a punctuation or symbol character: 1; a run of one repeated symbol (`-----`): ceil(length / 4).
 */

const PIECE =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|\p{Lu}?\p{Ll}+|\p{Lu}+(?!\p{Ll})|\p{L}+|\p{N}+|\n+|[ \t]{2,}|\s|([^\s\p{L}\p{N}])\1*/gu;

const CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]$/u;
const CASED = /^[\p{Lu}\p{Ll}]/u;

/** Number of tokens of `text` under the fake tokenizer (0 for the empty string). */
export function countTokens(text: string): number {
  let n = 0;
  for (const m of text.matchAll(PIECE)) {
    n += pieceTokens(m[0]);
  }
  return n;
}

function pieceTokens(piece: string): number {
  const len = [...piece].length;
  const c = piece[0] ?? '';
  if (c === ' ') return len === 1 ? 0 : Math.ceil(len / 4);
  if (c === '\t') return Math.ceil(len / 4);
  if (c === '\n') return Math.ceil(len / 2);
  if (/\s/u.test(c)) return 1;
  if (CJK.test(piece)) return 1;
  if (/^\p{N}/u.test(piece)) return Math.ceil(len / 3);
  if (/^\p{L}/u.test(piece)) return CASED.test(piece) ? Math.ceil(len / 7) : Math.ceil(len / 3);
  return len === 1 ? 1 : Math.ceil(len / 4);
}
