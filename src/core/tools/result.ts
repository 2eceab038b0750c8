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
