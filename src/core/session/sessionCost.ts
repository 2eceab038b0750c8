/**
 * What a saved session cost in all — one home for the figure the reopened chat's bill, its
 * status bar and the Markdown export show: its own requests, its compactions' summaries (every
 * compaction made, restored or not: the money was spent — and what summaries stopped before
 * they were made spent), its subagents' (billed to it) and the handoff note that started it. Pure.
 */
import { summariesCost } from '../compaction/health';
import { addCosts } from '../llm/cost';
import { subagentsCost, type SubagentRecord } from '../subagents/subagentRecord';
import type { ContinuedFrom, UsageEntry } from './entries';
import type { StoppedSummaryCost } from './requestHistory';

/** The parts of a session its bill is made of (a new session has none but, maybe, its handoff note). */
export interface SessionSpend {
  readonly usage: readonly Pick<UsageEntry, 'costUsd'>[];
  readonly compactions: readonly { readonly entry: { readonly costUsd: number; readonly costUnknown?: true } }[];
  readonly subagents: readonly Pick<SubagentRecord, 'costUsd'>[];
  /** What summaries stopped before they were made spent (requestHistory.ts); absent: none. */
  readonly stoppedSummaries?: readonly StoppedSummaryCost[];
  readonly continuedFrom?: ContinuedFrom;
}

/**
 * The session's whole cost in US dollars; undefined when a price is unknown (a request's, a
 * summary's, a subagent's or the handoff note's).
 */
export function sessionCostUsd(s: SessionSpend): number | undefined {
  const requests = s.usage.reduce<number | undefined>((n, u) => addCosts(n, u.costUsd), 0);
  const summaries = summariesCost([...s.compactions.map((c) => c.entry), ...(s.stoppedSummaries ?? [])]);
  return addCosts(
    addCosts(addCosts(requests, summaries), handoffNoteCost(s.continuedFrom)),
    subagentsCost(s.subagents),
  );
}

/** What the handoff note that started a session cost: 0 without one, undefined when its price is unknown. */
export function handoffNoteCost(from: ContinuedFrom | undefined): number | undefined {
  if (from?.noteCostUnknown) return undefined;
  return from?.noteCostUsd ?? 0;
}
