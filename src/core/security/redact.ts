/**
 * The one redaction of secrets (the API key) from text that leaves the process's memory:
 * error messages shown in the chat, log lines, spill files. Pure.
 */

/** What every occurrence of a secret becomes. */
export const REDACTED = '[redacted]';

/** Secrets shorter than this are ignored: they would match ordinary text. */
export const MIN_SECRET_LENGTH = 8;

/** The forms a secret takes in text: raw, JSON-escaped, `\xHH`-escaped, and its printable pieces around control characters. */
function formsOf(secret: string): string[] {
  const controls = /[\u0000-\u001f\u007f-\u009f]/g;
  const forms = new Set<string>([
    secret,
    JSON.stringify(secret).slice(1, -1),
    secret.replace(controls, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`),
  ]);
  // A library that stops at a NUL (or drops control characters) prints only pieces of the key.
  forms.add(secret.replace(controls, ''));
  for (const piece of secret.split(controls)) forms.add(piece);
  return [...forms].filter((f) => f.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

/**
 * `text` with every occurrence of each secret replaced by `[redacted]` — raw, JSON-escaped,
 * `\xHH`-escaped, or (for a key with control characters in it) any printable piece of it at
 * least MIN_SECRET_LENGTH long. Secrets shorter than that, and empty ones, are ignored.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH) continue;
    for (const form of formsOf(secret)) out = out.split(form).join(REDACTED);
  }
  return out;
}
