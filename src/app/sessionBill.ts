/**
 * What the open session has cost and its last reported prompt size, for the header and the
 * status bar: its own requests, its compactions' summaries (and what summaries cut short
 * before they were made spent), its subagents' (billed to it; subagentRecord.ts) and the
 * handoff note that started it (entries.ts ContinuedFrom). Starts from what the session file
 * holds (core/session/sessionCost.ts), then follows the events. Pure.
 */
import { addCosts } from '../core/llm/cost';
import type { AgentEvent } from '../core/agent/events';
import { summariesCost } from '../core/compaction/health';
import { handoffNoteCost } from '../core/session/sessionCost';
import { subagentsCost } from '../core/subagents/subagentRecord';
import type { OpenSession } from './sessionPort';

/** The open session's bill (see the module comment). */
export class SessionBill {
  /** Everything the session cost (undefined when a price is unknown). */
  costUsd: number | undefined = 0;
  /** The part of `costUsd` its subagents spent. */
  subagentsCostUsd: number | undefined = 0;
  /** The part of `costUsd` the compaction summariser spent (undefined when a summary's price is unknown). */
  summariesCostUsd: number | undefined = 0;
  /** The part of `costUsd` the handoff note that started the session cost (undefined when unknown). */
  handoffCostUsd: number | undefined = 0;
  /** The last prompt size the API reported (0 before any). */
  promptTokens = 0;

  /** A session was opened: its bill so far. */
  opened(
    open: Pick<
      OpenSession,
      'costUsd' | 'subagents' | 'compactions' | 'lastPromptTokens' | 'continuedFrom' | 'requestHistory'
    >,
  ): void {
    this.costUsd = open.costUsd;
    this.handoffCostUsd = handoffNoteCost(open.continuedFrom);
    this.subagentsCostUsd = subagentsCost(open.subagents);
    this.summariesCostUsd = summariesCost([
      ...open.compactions.map((c) => c.record),
      ...open.requestHistory.stoppedSummaries,
    ]);
    this.promptTokens = open.lastPromptTokens;
  }

  /** The bill's figures as the status report takes them (statusReport.ts StatusInputs). */
  figures(): Pick<
    SessionBill,
    'promptTokens' | 'costUsd' | 'subagentsCostUsd' | 'summariesCostUsd' | 'handoffCostUsd'
  > {
    const { promptTokens, costUsd, subagentsCostUsd, summariesCostUsd, handoffCostUsd } = this;
    return { promptTokens, costUsd, subagentsCostUsd, summariesCostUsd, handoffCostUsd };
  }

  /** Takes one event; true when the bill changed. */
  observe(e: AgentEvent): boolean {
    if (e.type === 'usage') {
      this.costUsd = addCosts(this.costUsd, e.costUsd);
      this.promptTokens = e.reportedTokens;
      return true;
    }
    if (e.type === 'compaction_finished') {
      const spent = summariesCost(e.records);
      if (spent === 0) return false;
      this.costUsd = addCosts(this.costUsd, spent);
      this.summariesCostUsd = addCosts(this.summariesCostUsd, spent);
      return true;
    }
    if (e.type === 'summary_spend') {
      this.costUsd = addCosts(this.costUsd, e.costUsd);
      this.summariesCostUsd = addCosts(this.summariesCostUsd, e.costUsd);
      return true;
    }
    if (e.type === 'subagent_finished') {
      this.costUsd = addCosts(this.costUsd, e.record.costUsd);
      this.subagentsCostUsd = addCosts(this.subagentsCostUsd, e.record.costUsd);
      return true;
    }
    return false;
  }
}
