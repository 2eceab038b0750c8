/**
 * What a compaction would do before it runs: which regions it would summarise, and the
 * expected saving (a summary of about 1/5 of each region plus the user's words, verbatim).
 * Pure; no LLM call (what the thresholds ask to free is policy.ts's pressureOf).
 */
import type { ConversationState, Message } from '../conversation/conversationModel';
import {
  DEFAULT_SUMMARY_OUTPUT_LIMIT,
  expectedReplacementTokens,
  markRegions,
  pickRegions,
  type CandidateRegion,
} from './regions';

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
  const regions = picked.map((r) => ({
    ...r,
    expectedTokensAfter: Math.min(r.tokens, expectedReplacementTokens(r, limit)),
  }));
  const tokensBefore = state.messages.reduce((n, m) => n + opts.tokensOf(m), opts.fixedTokens ?? 0);
  const expectedSaving = regions.reduce((n, r) => n + r.tokens - r.expectedTokensAfter, 0);
  return { regions, tokensBefore, expectedAfter: tokensBefore - expectedSaving, expectedSaving };
}
