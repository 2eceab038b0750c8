/**
 * What a compaction would do before it runs: which regions it would summarise, and the
 * expected saving (a summary of about 1/5 of each region plus the user's words, verbatim).
 * Also how much a trigger needs to free. Pure; no LLM call.
 */
import type { ConversationState, Message, PipelineConfig } from '../model';
import { DEFAULT_SUMMARY_OUTPUT_LIMIT, expectedReplacementTokens, markRegions, pickRegions, type CandidateRegion } from './regions';
import type { CompactionTrigger } from './types';

/** What to preview. */
export interface PreviewOptions {
  /** Tokens to free, or `'all'` for every region worth summarising (a manual compaction). */
  readonly tokensToFree: number | 'all';
  readonly keepRecentTurns: number;
  readonly keepRecentTokens: number;
  readonly tokensOf: (m: Message) => number;
  /** Tokens outside the messages (system prompt, tools), added to the totals. Default 0. */
  readonly fixedTokens?: number;
  /** The summariser's output limit (caps each expected summary). */
  readonly outputLimit?: number;
}

/** A region the compaction would summarise, with its expected size afterwards. */
export interface PreviewRegion extends CandidateRegion {
  readonly expectedTokensAfter: number;
}

/** The preview: regions in conversation order, and context totals before and (expected) after. */
export interface CompactionPreview {
  readonly regions: readonly PreviewRegion[];
  readonly tokensBefore: number;
  readonly expectedAfter: number;
  readonly expectedSaving: number;
}

/** Previews which regions a compaction would summarise and what it would save. */
export function previewCompaction(state: Pick<ConversationState, 'messages'>, opts: PreviewOptions): CompactionPreview {
  const candidates = markRegions(state, opts);
  const picked = pickRegions(candidates, opts.tokensToFree === 'all' ? Infinity : opts.tokensToFree);
  const limit = opts.outputLimit ?? DEFAULT_SUMMARY_OUTPUT_LIMIT;
  const regions = picked.map((r) => ({ ...r, expectedTokensAfter: Math.min(r.tokens, expectedReplacementTokens(r, limit)) }));
  const tokensBefore = state.messages.reduce((n, m) => n + opts.tokensOf(m), opts.fixedTokens ?? 0);
  const expectedSaving = regions.reduce((n, r) => n + r.tokens - r.expectedTokensAfter, 0);
  return { regions, tokensBefore, expectedAfter: tokensBefore - expectedSaving, expectedSaving };
}

/** Share of the effective window a hard-threshold compaction keeps free below the hard threshold. */
export const HARD_BUFFER_FRACTION = 0.1;

/** Where an automatic soft compaction aims: half the effective window. */
export const SOFT_TARGET_FRACTION = 0.5;

/**
 * Tokens a compaction must free, given the context's current size (the request about to be
 * sent). Soft: down to 50 % of the effective window (window − output reserve). Hard and
 * overflow: enough for this request plus a buffer — down to the hard threshold minus 10 % of
 * the effective window. Manual: everything worth summarising (`Infinity`). Never negative.
 */
export function tokensToFreeFor(trigger: CompactionTrigger, currentTokens: number, config: Pick<PipelineConfig, 'contextWindow' | 'outputReserve' | 'hardThreshold'>): number {
  const effective = Math.max(0, config.contextWindow - config.outputReserve);
  if (trigger === 'manual') return Infinity;
  const target = trigger === 'auto-hard' || trigger === 'overflow' ? (config.hardThreshold - HARD_BUFFER_FRACTION) * effective : SOFT_TARGET_FRACTION * effective;
  return Math.max(0, Math.ceil(currentTokens - target));
}
