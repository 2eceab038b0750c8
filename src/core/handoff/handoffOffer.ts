/**
 * When the chat offers Continue in a New Session (a notice with the button), one rule:
 *
 * - **compaction no longer helps**: a compaction pass (automatic or Compact Now) applied a
 *   summary or a removal — not only the cheap layers, not a rewind — and the conversation it left
 *   is still at or past the soft threshold; or
 * - **the rolling summary was rewritten many times**: the summaries in effect have folded an
 *   earlier summary into a new one {@link HANDOFF_REWRITES} times or more (each fold loses
 *   detail; a fresh session starts from one careful note instead).
 *
 * The caller offers it once per session while it is open. Pure.
 */
import { REGION_LAYERS, type CompactionRecord } from '../compaction/types';
import type { PipelineConfig } from '../conversation/conversationModel';
import { contextPressure } from '../pipeline/window';

/** Rewrites of the rolling summary after which a handoff is offered. */
export const HANDOFF_REWRITES = 5;

/** Why a handoff is offered. */
export type HandoffReason =
  | { readonly kind: 'over-soft'; readonly fullness: string; readonly softMark: string }
  | { readonly kind: 'rewrites'; readonly rewrites: number };

/** How many compactions in effect folded an earlier summary into their own (rolling rewrites). */
export function summaryRewrites(
  compactions: readonly { readonly record: CompactionRecord; readonly active: boolean }[],
): number {
  return compactions.filter(
    (c) =>
      c.active &&
      c.record.layer === 'summarise' &&
      c.record.originals.some((m) => m.blocks.some((b) => b.type === 'summary')),
  ).length;
}

/** What the rule reads after a compaction pass. */
export interface OfferInput {
  /** The records the pass applied. */
  readonly records: readonly CompactionRecord[];
  /** Every compaction of the session after the pass, with whether it is in effect. */
  readonly compactions: readonly { readonly record: CompactionRecord; readonly active: boolean }[];
  /** The prompt's tokens after the pass (the session's estimate). */
  readonly tokensAfter: number;
  readonly config: Pick<PipelineConfig, 'contextWindow' | 'outputReserve' | 'softThreshold' | 'hardThreshold'>;
}

/** Why a handoff should be offered after the pass `input` describes, or undefined (see the file comment). */
export function handoffReason(input: OfferInput): HandoffReason | undefined {
  if (!input.records.some((r) => REGION_LAYERS.has(r.layer) || r.layer === 'server-compact')) return undefined;
  const p = contextPressure(input.tokensAfter, input.config);
  if (p.level !== 'ok') return { kind: 'over-soft', fullness: p.fullness, softMark: p.softMark };
  const rewrites = summaryRewrites(input.compactions);
  return rewrites >= HANDOFF_REWRITES ? { kind: 'rewrites', rewrites } : undefined;
}

/** The offer's sentence for the chat (its button: Continue in a new session). */
export function offerText(reason: HandoffReason): string {
  const why =
    reason.kind === 'over-soft'
      ? `Compaction could not bring the conversation under the soft threshold (${reason.softMark}): it is still ${reason.fullness}.`
      : `The rolling summary has been rewritten ${reason.rewrites} times, and each rewrite loses detail.`;
  return `${why} Continuing in a new session starts it from one handoff note (goal, decisions, plan, files touched, open questions); this session stays readable, and recall searches it.`;
}
