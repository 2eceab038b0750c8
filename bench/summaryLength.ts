/**
 * How long a real summary is: the scripted summariser of the benches writes about as much as
 * the real agents' summariser did, measured on the `compaction` records of the fixtures.
 * Real summaries do not grow with the region the way a fixed share would (1/5, the prompt's
 * target): they came out at 1–2 % of a 170–190k-token context.
 */
import type { TranscriptEvent } from './transcript';

/**
 * A summary of a region of T tokens comes out at min(cap, ceiling, max(floor, ratio × T))
 * tokens (cap: the request's `max_tokens`).
 */
export interface SummaryLengthModel {
  readonly ratio: number;
  readonly floor: number;
  /** The longest summary, whatever the region (absent: only the request's `max_tokens` caps it). */
  readonly ceiling?: number;
}

/**
 * Derived from the fixtures' `compaction` records (see `deriveSummaryLength`), summary tokens
 * counted with tiktoken (cl100k_base, uncalibrated), the region taken as the record's `tokensBefore`:
 *   real-session-opus45-pi                   1,063 tokens for 186,045 (0.57 %)
 *   real-session-opus46-claude-code          3,599 tokens for 167,117 (2.15 %)
 *   real-session-sonnet45-claude-code-idle   3,885 tokens for 155,121 (2.50 %)
 * ratio = Σ summary ÷ Σ region = 8,547 ÷ 508,283 ≈ 1.7 %. The fixtures hold no compaction of a
 * small region, so the floor cannot be measured: it is half the shortest real summary,
 * rounded to 100 tokens (500), the size of the headings and the state of the work alone.
 * test/unit/benchSummariser.test.ts re-derives both from the fixtures. Every bench uses this
 * one rule (replay, replay-all, unseen, tools): never a length fitted to the folder measured.
 */
export const SUMMARY_LENGTH: SummaryLengthModel = { ratio: 0.017, floor: 500 };

/** One real summary: its tokens and the tokens of the context it replaced. */
export interface SummarySample {
  readonly summaryTokens: number;
  readonly regionTokens: number;
}

/** The samples of a transcript's `compaction` records (those with a `tokensBefore`). */
export function summarySamples(events: readonly TranscriptEvent[], tokens: (text: string) => number): SummarySample[] {
  return events.flatMap((e) =>
    e.kind === 'compaction' && e.tokensBefore > 0
      ? [{ summaryTokens: tokens(e.summary), regionTokens: e.tokensBefore }]
      : [],
  );
}

/**
 * The length model of samples: ratio = Σ summary ÷ Σ region (rounded to 0.1 %), floor = half
 * the shortest summary rounded to 100. No samples: `SUMMARY_LENGTH`.
 */
export function deriveSummaryLength(samples: readonly SummarySample[]): SummaryLengthModel {
  if (samples.length === 0) return SUMMARY_LENGTH;
  const summary = samples.reduce((n, s) => n + s.summaryTokens, 0);
  const region = samples.reduce((n, s) => n + s.regionTokens, 0);
  const shortest = Math.min(...samples.map((s) => s.summaryTokens));
  return {
    ratio: Math.round((1000 * summary) / region) / 1000,
    floor: Math.max(100, Math.round(shortest / 2 / 100) * 100),
  };
}

/** Tokens a real summariser would write for `regionTokens`, capped by the request's `max_tokens`. */
export function summaryLengthTokens(
  regionTokens: number,
  cap: number,
  model: SummaryLengthModel = SUMMARY_LENGTH,
): number {
  const length = Math.max(model.floor, Math.round(model.ratio * Math.max(0, regionTokens)));
  return Math.max(1, Math.min(cap, model.ceiling ?? Infinity, length));
}
