/**
 * Small string helpers that respect UTF-16 surrogate pairs, so a cut never leaves half a
 * character (which would be invalid JSON for the API).
 */

/** Largest index ≤ `index` that does not fall between the halves of a surrogate pair. */
export function safeCutIndex(text: string, index: number): number {
  if (index <= 0) return 0;
  if (index >= text.length) return text.length;
  const code = text.charCodeAt(index);
  const prev = text.charCodeAt(index - 1);
  const isLow = code >= 0xdc00 && code <= 0xdfff;
  const prevHigh = prev >= 0xd800 && prev <= 0xdbff;
  return isLow && prevHigh ? index - 1 : index;
}

/** The first `maxChars` characters of `text`, never splitting a surrogate pair. */
export function headChars(text: string, maxChars: number): string {
  return text.slice(0, safeCutIndex(text, maxChars));
}

/** Counts lines the way an editor shows them (a trailing newline does not add a line). */
export function lineCount(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

/** A human size like `10.0 MB` or `812 B` (decimal units). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** A token count in a few characters: `950`, `124k`, `1M`, `1.5M` (a window or a prompt in the status bar, a model's window). */
export function shortTokens(n: number): string {
  if (n >= 1_000_000) return `${+(n / 1_000_000).toFixed(1)}M`;
  return n >= 1000 ? `${Math.round(n / 1000)}k` : String(Math.round(n));
}

/** UTF-8 byte length of a string, without allocating a buffer. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** The replacement character that stands in for a lone surrogate (as `String.prototype.toWellFormed` does). */
export const REPLACEMENT_CHARACTER = '\ufffd';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** Whether `text` holds no lone UTF-16 surrogate (every high half is followed by a low half and vice versa). */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/**
 * `text` with every lone UTF-16 surrogate replaced by U+FFFD, valid pairs kept: the result is
 * valid Unicode, so JSON carrying it is accepted by the API (which rejects "no low surrogate
 * in string"). Same length as `text`; returns `text` itself when it is already well formed.
 */
export function toWellFormed(text: string): string {
  return isWellFormed(text) ? text : text.replace(LONE_SURROGATES, REPLACEMENT_CHARACTER);
}

/**
 * A JSON-like value (strings, arrays, plain objects; other values pass through) with every
 * string — object keys included — made well formed by `toWellFormed`. Returns the very same
 * value when nothing needed cleaning, so callers can tell by identity whether it changed.
 */
export function toWellFormedDeep<T>(value: T): T {
  return cleanValue(value) as T;
}

function cleanValue(value: unknown): unknown {
  if (typeof value === 'string') return toWellFormed(value);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const c = cleanValue(item);
      if (c !== item) (out ??= [...value])[i] = c;
    });
    return out ?? value;
  }
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  let changed = false;
  const entries = Object.entries(value).map(([k, v]) => {
    const ck = toWellFormed(k);
    const cv = cleanValue(v);
    changed ||= ck !== k || cv !== v;
    return [ck, cv] as const;
  });
  return changed ? Object.fromEntries(entries) : value;
}
