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
