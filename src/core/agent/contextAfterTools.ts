/**
 * The hook that lets the host add context after a tool round (nested project instructions of
 * the folders the agent just read or edited in): its port, and how its answer joins the
 * pending injections of the tool-results message. Pure.
 */
import type { ToolCall } from '../tools/toolRunner';
import type { ToolResultInput } from '../conversation/assemble';
import type { ConversationState, Injection } from '../conversation/conversationModel';

/** A tool call of the round that just ran, with whether its result is an error. */
export interface CompletedToolCall extends ToolCall {
  readonly isError: boolean;
}

/**
 * Called after each tool round with the round's calls; resolves with injections for the
 * tool-results message (none: an empty list). `note` shows the user an info line in the chat
 * (e.g. which nested instruction files were not read, and why). Should not throw: a rejection
 * is reported as a warning notice and the round goes on without extra context.
 */
export type ContextAfterTools = (
  calls: readonly CompletedToolCall[],
  note: (text: string) => void,
) => Promise<readonly Injection[]>;

/** The round's calls joined with their results' error flags (a call without a result counts as failed). */
export function completedCalls(calls: readonly ToolCall[], results: readonly ToolResultInput[]): CompletedToolCall[] {
  const failed = new Map(results.map((r) => [r.toolUseId, r.isError === true]));
  return calls.map((c) => ({ ...c, isError: failed.get(c.id) ?? true }));
}

/** `state` with `extra` appended to its pending injections (the same state when there are none). */
export function withPendingAppended(state: ConversationState, extra: readonly Injection[]): ConversationState {
  return extra.length === 0 ? state : { ...state, pending: [...state.pending, ...extra] };
}

/** Where addContextAfterTools reports: the hook's info lines, and its failure. */
export interface AfterToolsReports {
  readonly note: (text: string) => void;
  readonly warn: (text: string) => void;
}

/**
 * Asks `hook` (when there is one) for context after a round and returns the state to assemble
 * the tool results from; the hook's info lines go to `report.note`; a failing hook adds
 * nothing, and its reason goes to `report.warn`.
 */
export async function addContextAfterTools(
  state: ConversationState,
  hook: ContextAfterTools | undefined,
  calls: readonly ToolCall[],
  results: readonly ToolResultInput[],
  report: AfterToolsReports,
): Promise<ConversationState> {
  if (!hook) return state;
  const { warn } = report;
  try {
    return withPendingAppended(state, await hook(completedCalls(calls, results), report.note));
  } catch (err) {
    warn(
      `Project instructions of the folders just used could not be added: ${err instanceof Error ? err.message : String(err)}`,
    );
    return state;
  }
}
