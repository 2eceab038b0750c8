/**
 * The one redaction of secrets (the API key) from text that leaves the process's memory:
 * error messages shown in the chat, log lines, spill files. Pure.
 */

import { toWellFormed } from '../platform/text';

/** What every occurrence of a secret becomes. */
export const REDACTED = '[redacted]';

/** Secrets shorter than this are ignored: they would match ordinary text. */
export const MIN_SECRET_LENGTH = 8;

/**
 * How much of a secret's start, at least, is taken for the secret when a server echoes only a
 * prefix of it (`sk-ant-api03-AbCd…`): longer than any public prefix of a key's format (the
 * API's `sk-ant-api03-` is 13 characters), short enough to catch a truncated echo.
 */
export const MIN_ECHOED_PREFIX = 20;

/**
 * The forms a secret takes in text: raw, JSON-escaped, `\xHH`-escaped, URL-encoded (upper- and
 * lowercase hex), and its printable pieces around control characters.
 */
function formsOf(secret: string): string[] {
  const controls = /[\u0000-\u001f\u007f-\u009f]/g;
  const urlEncoded = encodeURIComponent(toWellFormed(secret));
  const forms = new Set<string>([
    secret,
    JSON.stringify(secret).slice(1, -1),
    secret.replace(controls, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`),
    urlEncoded,
    urlEncoded.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
  ]);
  // A library that stops at a NUL (or drops control characters) prints only pieces of the key.
  forms.add(secret.replace(controls, ''));
  for (const piece of secret.split(controls)) forms.add(piece);
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/**
 * `text` with every occurrence of each secret replaced by `[redacted]` — raw, JSON-escaped,
 * `\xHH`-escaped, URL-encoded, or (for a key with control characters in it) any printable piece
 * of it at least MIN_SECRET_LENGTH long — and every echo of a prefix of one (its first
 * MIN_ECHOED_PREFIX characters or more). Secrets shorter than MIN_SECRET_LENGTH, and empty
 * ones, are ignored.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH) continue;
    for (const form of formsOf(secret)) out = redactEchoes(out.split(form).join(REDACTED), form);
  }
  return out;
}

/**
 * `text` with every run that starts like `form` — its first MIN_ECHOED_PREFIX characters or
 * more, as a server echoing a truncated key prints it — replaced by `[redacted]`, the run as
 * long as it goes on matching `form`. Forms shorter than that prefix are left to the exact match.
 */
function redactEchoes(text: string, form: string): string {
  if (form.length <= MIN_ECHOED_PREFIX) return text;
  const head = form.slice(0, MIN_ECHOED_PREFIX);
  let out = '';
  let from = 0;
  for (let at = text.indexOf(head); at >= 0; at = text.indexOf(head, from)) {
    let end = at + head.length;
    while (end < text.length && end - at < form.length && text[end] === form[end - at]) end++;
    out += text.slice(from, at) + REDACTED;
    from = end;
  }
  return from === 0 ? text : out + text.slice(from);
}
