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

/** The sentence that tells the model the user said no, with their reason when they gave one. */
export function declinedMessage(what: string, decision: ApprovalDecision): string {
  const reason = decision.reason?.trim();
  const stop = reason && !/[.!?]$/.test(reason) ? '.' : '';
  return `The user declined ${what}.${reason ? ` Their reason: ${reason}${stop}` : ' They gave no reason.'}`;
}
