/**
 * Ports: the only ways the pure core reaches the outside world. The host implements them
 * with VS Code and Node APIs; tests implement them with fakes.
 */

/** Source of the current time, in milliseconds since the epoch. */
export interface Clock {
  now(): number;
}

/** Source of ids that are unique within a session and stable once assigned. */
export interface IdSource {
  /** A new id with the given prefix, e.g. `blk_12`. */
  next(prefix: string): string;
}

/** Counts tokens of a string with some tokenizer. Must be deterministic. */
export interface Tokenizer {
  /** Short name used in reports, e.g. `o200k_base` or `chars/4`. */
  readonly name: string;
  count(text: string): number;
}

/** Diagnostic sink. Never receives secrets. */
export interface Logger {
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

/** A deterministic IdSource counting up from 1 per prefix, seeded with a session tag. */
export function counterIds(sessionTag = 's'): IdSource {
  const counters = new Map<string, number>();
  return {
    next(prefix: string): string {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}_${sessionTag}${n}`;
    },
  };
}
