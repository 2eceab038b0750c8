/**
 * The text side of an `@` mention in the composer, pure (unit-tested): which `@word` the caret
 * is in, what choosing a file makes of the text, how the arrows move through the results, and
 * the debounce of the queries behind a scheduler the tests drive.
 */
import { MAX_MENTION_QUERY } from '../../protocol/chat';

/** The `@` mention being typed: where its `@` is and what follows it up to the caret. */
export interface MentionToken {
  readonly start: number;
  readonly query: string;
}

/**
 * The mention the caret is in: an `@` at the start of the text or after white space, followed
 * by no white space up to the caret (so `a@b.c` is no mention); undefined otherwise.
 */
export function mentionAt(text: string, caret: number): MentionToken | undefined {
  const before = text.slice(0, caret);
  const at = before.lastIndexOf('@');
  if (at < 0) return undefined;
  if (at > 0 && !/\s/.test(before[at - 1] ?? '')) return undefined;
  const query = before.slice(at + 1);
  if (/\s/.test(query) || query.length > MAX_MENTION_QUERY) return undefined;
  return { start: at, query };
}

/**
 * The text with the mention at `token` (up to `caret`, and the rest of the word after it)
 * replaced by `@path ` and the caret after it.
 */
export function insertMention(
  text: string,
  token: MentionToken,
  caret: number,
  path: string,
): { text: string; caret: number } {
  const rest = text.slice(caret);
  const wordEnd = /^\S*/.exec(rest)?.[0].length ?? 0;
  const after = rest.slice(wordEnd);
  const inserted = `@${path}${after.startsWith(' ') ? '' : ' '}`;
  return {
    text: text.slice(0, token.start) + inserted + after,
    caret: token.start + inserted.length + (after.startsWith(' ') ? 1 : 0),
  };
}

/** The option ArrowUp/ArrowDown makes active among `count` (wrapping); `active` unchanged for other keys. */
export function moveActive(active: number, count: number, key: string): number {
  if (count === 0) return -1;
  if (key === 'ArrowDown') return active < 0 ? 0 : (active + 1) % count;
  if (key === 'ArrowUp') return active <= 0 ? count - 1 : active - 1;
  return active;
}

/** Runs `fn` after `ms`; returns a cancel. The picker's is setTimeout; tests pass one they drive. */
export type Scheduler = (fn: () => void, ms: number) => () => void;

/** The browser's scheduler. */
export const timeoutScheduler: Scheduler = (fn, ms) => {
  const t = setTimeout(fn, ms);
  return () => clearTimeout(t);
};

/** Calls the last function given to {@link Debouncer.call} once `ms` passed without another call. */
export class Debouncer {
  private cancel: (() => void) | undefined;

  constructor(
    private readonly schedule: Scheduler,
    private readonly ms: number,
  ) {}

  /** Schedules `fn`, dropping the one waiting. */
  call(fn: () => void): void {
    this.cancel?.();
    this.cancel = this.schedule(() => {
      this.cancel = undefined;
      fn();
    }, this.ms);
  }

  /** Drops the call waiting, if any. */
  clear(): void {
    this.cancel?.();
    this.cancel = undefined;
  }
}
