/**
 * The shape of an Anthropic API key, checked when the key is set and every time it is read
 * (from secret storage or ANTHROPIC_API_KEY) before it goes into a request header. A key
 * with a control character (a NUL) would make the HTTP library fail with an error that
 * quotes the whole key. Pure; no message ever contains the key.
 */

function codePoint(ch: string): string {
  return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Why `key` cannot go into a request header, or undefined when its characters are fine:
 * printable ASCII (U+0021–U+007E) only, so no whitespace, control characters (a NUL) or
 * non-ASCII. Checked on every read (the stored key or ANTHROPIC_API_KEY, also for a proxy
 * whose keys look different); the message names the character's code point and position,
 * never the key.
 */
export function apiKeyCharProblem(key: string): string | undefined {
  if (/\s/.test(key)) return 'An API key has no spaces or line breaks.';
  const chars = [...key];
  const odd = chars.findIndex((ch) => ch < '\u0021' || ch > '\u007e');
  if (odd < 0) return undefined;
  const ch = chars[odd] as string;
  const what =
    ch < '\u0020' || ch === '\u007f' || (ch >= '\u0080' && ch <= '\u009f')
      ? 'a control character'
      : 'a character that is not plain ASCII';
  return `An API key is printable ASCII only; this one has ${what} (${codePoint(ch)}) at position ${odd + 1}.`;
}

/**
 * Why `value` is not an Anthropic API key, or undefined when it looks right (the Set API Key
 * prompt's check). `value` is trimmed first; empty is fine (it clears the stored key).
 * Beyond apiKeyCharProblem: starts with `sk-ant-` and is at least 20 characters long.
 */
export function apiKeyProblem(value: string): string | undefined {
  const key = value.trim();
  if (!key) return undefined;
  const chars = apiKeyCharProblem(key);
  if (chars) return chars;
  if (!key.startsWith('sk-ant-')) return 'Anthropic API keys start with "sk-ant-".';
  if (key.length < 20) return 'This key is too short to be an Anthropic API key.';
  return undefined;
}
