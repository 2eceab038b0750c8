import * as v from 'valibot';

/** Outcome of validating an incoming message: the typed value, or a readable reason. */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/** Upper bound on any single string a webview may send (a 10 MB paste is allowed, more is not). */
export const MAX_WEBVIEW_STRING = 16 * 1024 * 1024;

/** Longest link the webview may ask the host to open. */
export const MAX_LINK_HREF = 2048;

/**
 * Validates `input` against `schema` without throwing; the error names the first failing
 * path and the expectation, e.g. `text: Invalid type: Expected string but received 42`.
 */
export function parseWith<S extends v.GenericSchema>(schema: S, input: unknown): Parsed<v.InferOutput<S>> {
  const result = v.safeParse(schema, input);
  if (result.success) return { ok: true, value: result.output };
  const issue = result.issues[0];
  const path = issue?.path?.map((p) => String(p.key)).join('.') ?? '';
  return { ok: false, error: `${path ? `${path}: ` : ''}${issue?.message ?? 'invalid message'}` };
}

/**
 * Whether `s` is non-empty standard base64 (`A–Z a–z 0–9 + /`), with at most two `=` of
 * padding at its end. One pass, not a regular expression: a regex's backtracking stack can
 * overflow on a 5 MB string (a RangeError instead of an answer).
 */
export function isBase64Text(s: string): boolean {
  let end = s.length;
  if (end > 0 && s.charCodeAt(end - 1) === 61) end--;
  if (end > 0 && s.charCodeAt(end - 1) === 61) end--;
  if (end === 0) return false;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    const ok =
      (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 /* + */ || c === 47; /* / */
    if (!ok) return false;
  }
  return true;
}
