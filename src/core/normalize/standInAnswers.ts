/**
 * The one home of the texts the extension writes in another's place, so the history stays
 * valid (roles alternate, every tool call has an answer) when nobody else wrote that part:
 *
 * - assistant notes in Claude's place (a failed request, a stop before the answer, a stop
 *   while tools ran). Claude reads them as its own replies; the chat shows them as the
 *   extension's notes (`isStandInAnswer`);
 * - tool results in a tool's place: a call the user stopped, and a call the history left
 *   without a result (`INTERRUPTED_CALL`: the one text for it, whether the agent answers it
 *   with the user's next words, the session repair answers it on load or normalize answers it
 *   in a request — `normalize/repairRules.ts`);
 * - user messages in the user's place, which only the repair rules write: before a
 *   conversation that starts with Claude's answer, and after a final answer in a request.
 *
 * Pure.
 */

/** Before the user's next words when the previous request failed and left theirs unanswered. */
export const NO_ANSWER = '[No answer: the previous request failed or was stopped before Claude replied.]';

/** A stop before Claude said anything. */
export const STOPPED_BEFORE_ANSWER = '[Stopped by the user before Claude answered.]';

/** A stop while the tools of a round were running. */
export const STOPPED_WHILE_TOOLS_RAN = '[Stopped by the user while tools were running.]';

/**
 * The result of a tool call the history left without one (the session was closed, or the
 * round failed, while its tools ran; or the session file lost the result), sent with the
 * user's next words, added by the session repair on load, or by normalize in a request.
 */
export const INTERRUPTED_CALL =
  'Cancelled: the turn ended before this tool returned a result (the session was closed, the tool round failed or the result was lost), so it may not have run or finished.';

/** The result of a call the user stopped before it ran. */
export const CANCELLED_BEFORE_RUN = 'Cancelled: the user stopped the turn before this tool ran.';

/** The result of a call the user stopped while it ran (what it had written follows on the next line). */
export const CANCELLED_WHILE_RUNNING = 'Cancelled: the user stopped the turn while this tool was running.';

/** Appended to what Claude had streamed when the user stopped it (that answer stays Claude's). */
export const STOPPED_SUFFIX = '[Stopped by the user.]';

/** The user message put before a conversation that starts with the assistant (its start was compacted or lost). */
export const START_PLACEHOLDER = '(The conversation continues from earlier messages that are not included.)';

/** The user message appended when a request would end with the assistant (Claude 4.6 models refuse a prefill). */
export const CONTINUE_PLACEHOLDER = 'Continue.';

const WHOLE = new Set([NO_ANSWER, STOPPED_BEFORE_ANSWER, STOPPED_WHILE_TOOLS_RAN]);

/** Whether an answer's whole text is one the extension wrote in Claude's place. */
export function isStandInAnswer(text: string): boolean {
  return WHOLE.has(text.trim());
}
