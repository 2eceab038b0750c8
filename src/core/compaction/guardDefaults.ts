/**
 * The numbers of the cheap compaction layers (tool-result guard, budget trim, snip,
 * microcompact), in one place. Pure data; the layers read it, tests may quote it.
 */
import { INLINE_CHARS_PER_TOKEN, INLINE_WINDOW_SHARE } from '../pipeline/window';
import { DEFAULT_TOOL_LIMITS } from '../tools/limits';

/** One budget-trim step: from this utilisation on, older tool results are cut to `maxChars`. */
export interface BudgetStep {
  /** Fraction (0..1) of the effective window at which the step applies (inclusive). */
  readonly utilisation: number;
  /** Characters an older tool result may keep, notice included. */
  readonly maxChars: number;
}

/** Shape of {@link GUARD_DEFAULTS}. */
export interface GuardDefaults {
  /** Tool-result guard: a result larger than this many UTF-8 bytes is spilled to a file. */
  readonly spillBytes: number;
  /** Tool-result guard: characters of a spilled result shown inline (its first lines). */
  readonly previewChars: number;
  /** Tool-result guard: a result may take this share of the context window… */
  readonly resultWindowShare: number;
  /** …converted to characters at this many characters per token… */
  readonly charsPerToken: number;
  /** …but never more than this many characters… */
  readonly resultMaxChars: number;
  /** …and never less than this many. */
  readonly resultMinChars: number;
  /** Budget trim, snip and microcompact never touch the newest this-many tool results. */
  readonly keepRecentResults: number;
  /** Budget trim steps, in increasing utilisation (the highest step reached applies). */
  readonly budgetSteps: readonly BudgetStep[];
  /** Snip runs from this utilisation on (inclusive). */
  readonly snipUtilisation: number;
  /** read_file returns this many lines when no `limit` is given (to compare read ranges). */
  readonly readDefaultLines: number;
  /** Microcompact clears only results whose text is longer than this (or that hold images). */
  readonly microcompactMinChars: number;
}

/** The defaults of the cheap layers (from the issue). */
export const GUARD_DEFAULTS: GuardDefaults = {
  spillBytes: 30_000,
  previewChars: 2_000,
  resultWindowShare: INLINE_WINDOW_SHARE,
  charsPerToken: INLINE_CHARS_PER_TOKEN,
  resultMaxChars: 400_000,
  resultMinChars: 2_000,
  keepRecentResults: 3,
  budgetSteps: [
    { utilisation: 0.5, maxChars: 30_000 },
    { utilisation: 0.7, maxChars: 15_000 },
  ],
  snipUtilisation: 0.6,
  readDefaultLines: DEFAULT_TOOL_LIMITS.readDefaultLines,
  microcompactMinChars: 200,
};
