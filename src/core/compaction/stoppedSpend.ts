/**
 * What a summary stopped before it was made had spent. A summary the user stops (or that times
 * out) leaves no compaction record to hold its cost, yet the API billed what it read: the
 * region's requests that completed before the Stop, its attempts cut mid-answer, and the
 * request in flight when the Stop came, which the run stops waiting for (a client that ignores
 * the abort cannot hold it) and is priced once it settles — as a whole answer, or as a cut one
 * (cutRequest.ts). Each such sum is reported through an {@link OnStoppedSpend}, which the agent
 * saves as a `spend` line of the session (entries.ts) and adds to the bill. Pure.
 */
import type { CacheTtl } from '../conversation/conversationModel';
import { requestCostUsd } from '../llm/cost';
import { cutCostUsd } from '../llm/cutRequest';
import type { LlmError, LlmResult } from '../llm/llmClient';

/** Money a stopped summary spent: `costUsd` in US dollars, `costUnknown` when a price was unknown (left out of it). */
export interface StoppedSpend {
  readonly costUsd: number;
  readonly costUnknown?: true;
  /** The model that was asked (the summariser's or the main model). */
  readonly model: string;
}

/** Where a stopped summary's spend goes (the agent saves and bills it); called once per sum. */
export type OnStoppedSpend = (spend: StoppedSpend) => void;

/** Reports `spent` on `model` to `on` unless it is nothing (0 and a known price). */
export function reportSpent(
  on: OnStoppedSpend | undefined,
  spent: { readonly costUsd: number; readonly costUnknown?: boolean },
  model: string,
): void {
  if (spent.costUsd > 0 || spent.costUnknown)
    on?.({ costUsd: spent.costUsd, ...(spent.costUnknown ? { costUnknown: true as const } : {}), model });
}

/** What a summariser call settles with (LlmClient.stream). */
export type CallOutcome =
  { readonly ok: true; readonly result: LlmResult } | { readonly ok: false; readonly error: LlmError };

/**
 * What a call to `model` cost once it settled: its usage priced as the summary records price
 * theirs, or its cut attempt's (cutCostUsd); undefined when it failed before its answer began
 * (nothing is billed for a request the API refused or never answered).
 */
export function settledSpend(outcome: CallOutcome, model: string, ttl: CacheTtl): StoppedSpend | undefined {
  const usd = outcome.ok
    ? requestCostUsd(model, outcome.result.usage, ttl)
    : outcome.error.cut
      ? cutCostUsd(outcome.error.cut, model, ttl)
      : null;
  if (usd === null) return undefined;
  return usd === undefined ? { costUsd: 0, costUnknown: true, model } : { costUsd: usd, model };
}
