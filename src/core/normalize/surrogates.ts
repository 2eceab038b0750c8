/**
 * Lone UTF-16 surrogates: half of a surrogate pair with its other half missing. JavaScript
 * strings may hold them (a cut in the middle of an emoji, a bad decoder), but the JSON the
 * API parses may not: it answers 400 "The request body is not valid JSON: no low surrogate in
 * string". These helpers find them and replace each by U+FFFD without touching valid pairs,
 * and never allocate when there is nothing to replace.
 */

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_ALL = new RegExp(LONE.source, 'g');

/** The replacement character every lone surrogate becomes. */
export const REPLACEMENT_CHARACTER = '\uFFFD';

/** Whether `text` holds at least one lone surrogate. O(length), no allocation. */
export function hasLoneSurrogate(text: string): boolean {
  return LONE.test(text);
}

/** `text` with every lone surrogate replaced by U+FFFD; the same string when there is none. */
export function replaceLoneSurrogates(text: string): string {
  return LONE.test(text) ? text.replace(LONE_ALL, REPLACEMENT_CHARACTER) : text;
}

/**
 * A JSON-like value with lone surrogates replaced in every string, object keys included, at
 * any depth. Returns the very same value (no copy) when nothing needed replacing; otherwise
 * copies only the path to each change. Non-JSON values (functions, class instances) are
 * returned as they are.
 */
export function replaceLoneSurrogatesDeep(value: unknown): unknown {
  if (typeof value === 'string') return replaceLoneSurrogates(value);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const fixed = replaceLoneSurrogatesDeep(item);
      if (fixed !== item) (out ??= value.slice())[i] = fixed;
    }
    return out ?? value;
  }
  if (isPlainObject(value)) {
    let out: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const fixedKey = replaceLoneSurrogates(key);
      const fixed = replaceLoneSurrogatesDeep(item);
      if (fixedKey === key && fixed === item) continue;
      out ??= { ...value };
      if (fixedKey !== key) delete out[key];
      out[fixedKey] = fixed;
    }
    return out ?? value;
  }
  return value;
}

/** A plain object (`{}` literal or null prototype), as JSON.parse makes them. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
