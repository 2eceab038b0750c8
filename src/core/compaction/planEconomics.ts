/**
 * The plan's two economic questions (plan.ts): whether an edit pays back its prompt-cache
 * rewrite soon enough, and which summariser reads a region (by expected cost,
 * summariserRoute.ts). Pure.
 */
import type { ConversationState, Message } from '../conversation/conversationModel';
import { usualWriteTtl } from '../cache/usualWriteTtl';
import type { CompactionPlan } from './plan';
import { expectedReplacementTokens, type CandidateRegion } from './regions';
import { chooseSummariser, expectedSummaryTokens, type SummariserChoice } from './summariserRoute';
import { transcriptTokens } from './transcriptTokens';

/**
 * Whether an edit pays back soon enough. With the prompt growing by g tokens a request, an
 * edit freeing F tokens comes round again after about F / g requests; the cost per request of
 * reads plus rewrites over such cycles is lowest when the edit has paid for itself within
 * half a cycle (minimising 0.1·(C0 + C1)/2 + cost·g/(C1 − C0) over the cycle's growth
 * C1 − C0 gives (C1 − C0)² = 2·g·cost/0.1). `cap` bounds the payback in any case.
 */
export function paysBack(
  plan: Pick<CompactionPlan, 'paybackRequests' | 'expectedSaving'>,
  growthPerRequest: number | undefined,
  cap: number,
): boolean {
  if (!(plan.paybackRequests <= cap)) return false;
  if (growthPerRequest === undefined || !(growthPerRequest > 0)) return true;
  return plan.paybackRequests <= plan.expectedSaving / growthPerRequest / 2;
}

/**
 * Requests until an edit that does not pay back within half its cycle yet (paysBack) will,
 * as the prompt grows by g a request: its cost stays, its saving grows by g, so its payback
 * P·F/(F + k·g) meets half its cycle (F + k·g)/(2g) at F + k·g = √(2·g·P·F). 0 when it pays
 * back already; Infinity when growth is unknown or nothing.
 */
export function requestsUntilPays(
  plan: Pick<CompactionPlan, 'paybackRequests' | 'expectedSaving'>,
  growthPerRequest: number | undefined,
): number {
  if (growthPerRequest === undefined || !(growthPerRequest > 0) || !Number.isFinite(plan.paybackRequests))
    return Infinity;
  const due = Math.sqrt(2 * growthPerRequest * plan.paybackRequests * plan.expectedSaving);
  return Math.max(0, (due - plan.expectedSaving) / growthPerRequest);
}

/**
 * Whether a mask goes before a summary that would take the same results in `summaryDueIn`
 * requests: a mask the summary follows writes the cached prompt twice (the mask, then the
 * summary, freeing less). It goes when there is no such summary, when it frees as much as the
 * summary (it then stands in for it: lossless, no summariser), or when it pays back first.
 */
export function maskPaysBeforeSummary(
  mask: Pick<CompactionPlan, 'paybackRequests' | 'expectedSaving'>,
  summary: Pick<CompactionPlan, 'expectedSaving'> | undefined,
  summaryDueIn: number,
): boolean {
  if (!summary || mask.expectedSaving >= summary.expectedSaving) return true;
  return mask.paybackRequests <= summaryDueIn;
}

/**
 * The summariser's route for `regions` of `state` by expected cost (see summariserRoute.ts):
 * the prompt the last request cached is everything before the newest assistant message (its
 * answer and what came after are not in the cache yet).
 */
export function summariserChoice(
  state: ConversationState,
  regions: readonly CandidateRegion[],
  figures: {
    readonly perMessage: readonly number[];
    /** The compactor's token count, for the transcript the small route reads (transcriptTokens.ts). */
    readonly tokensOf: (m: Message) => number;
    readonly promptTokens: number;
    readonly cacheWarm: boolean;
    /** Why the main route cannot run (see RouteInputs.mainUnavailable). */
    readonly mainUnavailable?: string;
    /** See RouteInputs.mainThinkingTokens. */
    readonly mainThinkingTokens?: number;
    /** See RouteInputs.cacheMissRate. */
    readonly cacheMissRate?: number;
  },
): SummariserChoice {
  const cfg = state.config;
  let lastAssistant = -1;
  for (let i = state.messages.length - 1; i >= 0 && lastAssistant < 0; i--)
    if (state.messages[i]?.role === 'assistant') lastAssistant = i;
  let uncached = 0;
  for (let i = Math.max(0, lastAssistant); i < figures.perMessage.length; i++) uncached += figures.perMessage[i] ?? 0;
  return chooseSummariser({
    setting: cfg.summarizer ?? 'auto',
    mainModel: cfg.model,
    smallModel: cfg.summarizerModel,
    regions: regions.map((r) => ({
      tokens: r.tokens,
      readTokens: transcriptTokens(
        state.messages.slice(r.startIndex, r.startIndex + r.messageIds.length),
        figures.tokensOf,
      ),
      outputTokens: expectedSummaryTokens(r.tokens, expectedReplacementTokens(r) - r.userTokens),
    })),
    promptTokens: figures.promptTokens,
    uncachedTokens: lastAssistant < 0 ? figures.promptTokens : uncached,
    cacheWarm: figures.cacheWarm,
    cacheTtl: usualWriteTtl(cfg.cacheTtl),
    mainContextWindow: cfg.contextWindow,
    mainOutputReserve: cfg.outputReserve,
    ...(figures.mainUnavailable ? { mainUnavailable: figures.mainUnavailable } : {}),
    ...(figures.mainThinkingTokens ? { mainThinkingTokens: figures.mainThinkingTokens } : {}),
    ...(figures.cacheMissRate ? { cacheMissRate: figures.cacheMissRate } : {}),
  });
}
