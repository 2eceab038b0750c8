/** Describing a thrown value: in words for the user, with its stack for the log. Pure. */

/** The message of a thrown value. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A failure for the log: an Error's stack (its message when it has none), anything else as text. */
export function errorDetail(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
