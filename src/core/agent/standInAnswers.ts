/**
 * The assistant messages the extension writes itself, so the history stays valid (roles
 * alternate, every tool call has an answer) when Claude did not answer: a failed request, a
 * stop before the answer, a stop while tools ran. Claude reads them as its own replies; the
 * chat shows them as the extension's notes (`isStandInAnswer`). Pure.
 */

/** Before the user's next words when the previous request failed and left theirs unanswered. */
export const NO_ANSWER = '[No answer: the previous request failed or was stopped before Claude replied.]';

/** A stop before Claude said anything. */
export const STOPPED_BEFORE_ANSWER = '[Stopped by the user before Claude answered.]';

/** A stop while the tools of a round were running. */
export const STOPPED_WHILE_TOOLS_RAN = '[Stopped by the user while tools were running.]';

/**
 * The result of a tool call the history left without one (the session was closed, or the
 * round failed, while its tools ran), sent with the user's next words.
 */
export const INTERRUPTED_CALL =
  'Cancelled: the turn ended before this tool returned a result (the session was closed or the tool round failed), so it may not have run or finished.';

/** Appended to what Claude had streamed when the user stopped it (that answer stays Claude's). */
export const STOPPED_SUFFIX = '[Stopped by the user.]';

const WHOLE = new Set([NO_ANSWER, STOPPED_BEFORE_ANSWER, STOPPED_WHILE_TOOLS_RAN]);

/** Whether an answer's whole text is one the extension wrote in Claude's place. */
export function isStandInAnswer(text: string): boolean {
  return WHOLE.has(text.trim());
}
