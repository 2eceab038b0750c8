/**
 * What a workspace tool hands back before the runner wraps it into a ToolOutcome: the text
 * the model reads, and whether the call failed. Errors are values, never exceptions.
 */

/** The result of one tool call: text for the model, and whether the call failed. */
export interface ToolResult {
  readonly text: string;
  readonly isError: boolean;
}

/** A successful result carrying `text`. */
export function toolOk(text: string): ToolResult {
  return { text, isError: false };
}

/** A failed result; `text` says what went wrong and what the model can do next. */
export function toolError(text: string): ToolResult {
  return { text, isError: true };
}

/** `1234567` → `1,234,567` (deterministic, independent of the locale). */
export function formatCount(n: number): string {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `1 line` / `3 lines`: a count with its noun, plural when needed. */
export function plural(n: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${formatCount(n)} ${n === 1 ? noun : pluralNoun}`;
}
