/** The user's answer to a request for consent, and how a refusal is put to the model. */

/** The user's answer. `reason`, when given, is passed on to the model. */
export interface ApprovalDecision {
  readonly approved: boolean;
  readonly reason?: string;
  /**
   * With an approval of an MCP tool's call: allow that tool (or every tool of its server)
   * without asking from now on. Kept in the user's settings, never the workspace's.
   */
  readonly remember?: 'tool' | 'server';
}

/**
 * The sentence that tells the model the user said no, with their reason when they gave one:
 * one line (the reason's whitespace collapsed), so that a result starting with it can be read
 * back by {@link declinedOf}; callers put what follows on the next line.
 */
export function declinedMessage(what: string, decision: ApprovalDecision): string {
  const reason = decision.reason?.replace(/\s+/g, ' ').trim();
  const stop = reason && !/[.!?]$/.test(reason) ? '.' : '';
  return `The user declined ${what}.${reason ? ` Their reason: ${reason}${stop}` : ' They gave no reason.'}`;
}

/** Where a declined call's result starts (see {@link declinedMessage}). */
const DECLINED_START = 'The user declined ';
const REASON_MARK = ' Their reason: ';

/**
 * Whether a tool call's result says the user declined it (it starts with
 * {@link declinedMessage}), with the reason they gave; undefined for any other result. The
 * chat reads it from the result, live and from a saved session alike.
 */
export function declinedOf(content: unknown): { readonly reason?: string } | undefined {
  if (typeof content !== 'string' || !content.startsWith(DECLINED_START)) return undefined;
  const line = content.split('\n', 1)[0] ?? '';
  const at = line.indexOf(REASON_MARK);
  const reason = at === -1 ? '' : line.slice(at + REASON_MARK.length).trim();
  return reason ? { reason } : {};
}
