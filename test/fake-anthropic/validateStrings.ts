/**
 * The API's JSON parser is strict about UTF-16: a string holding half of a surrogate pair
 * (which `JSON.stringify` writes as a lone `\udXXX` escape, and Node's `JSON.parse` accepts)
 * is refused before any other check with
 *
 *   400 invalid_request_error "The request body is not valid JSON: no low surrogate in string:
 *   line 1 column 195621 (char 195620)"
 *
 * (a high surrogate without its low half), or "… invalid high surrogate in string: …" (a low
 * surrogate without a high one before it). These are the messages the real API answers, as
 * reported in anthropics/claude-code#2108, #6273, #60394 ("no low surrogate") and #6199
 * ("invalid high surrogate"); the second's exact trigger is inferred from the parser's wording.
 * The position is the escape's offset in the compact JSON the SDK sends (`JSON.stringify`).
 */
import { invalid } from './reject';

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Refuses `body` when any string in it (object keys included) holds a lone surrogate. */
export function checkWellFormedStrings(body: unknown): void {
  if (!hasLoneSurrogate(body)) return;
  const text = JSON.stringify(body);
  const at = firstLoneEscape(text);
  const kind = at.high ? 'no low surrogate in string' : 'invalid high surrogate in string';
  invalid(
    'lone_surrogate',
    `The request body is not valid JSON: ${kind}: line 1 column ${at.index + 1} (char ${at.index})`,
  );
}

function hasLoneSurrogate(v: unknown): boolean {
  if (typeof v === 'string') return LONE.test(v);
  if (Array.isArray(v)) return v.some(hasLoneSurrogate);
  if (typeof v === 'object' && v !== null)
    return Object.entries(v).some(([k, x]) => LONE.test(k) || hasLoneSurrogate(x));
  return false;
}

/** The first `\udXXX` escape in compact JSON (`JSON.stringify` escapes only lone surrogates that way). */
function firstLoneEscape(text: string): { index: number; high: boolean } {
  for (let i = text.indexOf('\\'); i !== -1; i = text.indexOf('\\', i + 2)) {
    if (text[i + 1] !== 'u') continue;
    const code = Number.parseInt(text.slice(i + 2, i + 6), 16);
    if (code >= 0xd800 && code <= 0xdfff) return { index: i, high: code <= 0xdbff };
    i += 4;
  }
  return { index: 0, high: true };
}
