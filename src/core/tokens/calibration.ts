/**
 * The calibration factor: API tokens per raw tokenizer token, learned from how the raw
 * counts of what was added between two requests compared with the growth the API reported.
 * A size-weighted, exponentially decayed ratio of sums that starts from a prior worth a few
 * thousand tokens of evidence (decaying like any sample, so the data wins), with outlier
 * samples rejected (a prompt that shrank or jumped for reasons invisible in the messages,
 * e.g. a changed system prompt). Immutable values.
 */
import type { RawTokens } from './blockTokens';

/** Learned calibration state. */
export interface Calibration {
  /** API tokens per raw text token, applied to the `text` part of raw counts. */
  readonly factor: number;
  /** Decayed sum of reported token deltas (text part) of accepted samples, prior included. */
  readonly reportedSum: number;
  /** Decayed sum of raw token deltas (text part) of accepted samples, prior included. */
  readonly rawSum: number;
  /**
   * Decayed, size-weighted mean of |reported − factor × raw| / raw over accepted samples,
   * each measured with the factor before it learned from that sample: how far off an
   * anchored delta typically is, relative to its size. Sizes the estimator's safety margin.
   */
  readonly spread: number;
  /** Decayed sum of the absolute residuals, prior included (numerator of `spread`). */
  readonly residualSum: number;
  /** Samples accepted and rejected so far. */
  readonly accepted: number;
  readonly rejected: number;
}

/** Tuning of the calibration. */
export interface CalibrationOptions {
  /** Factor assumed before any sample. Claude counts ~1.15–1.3× cl100k on code and English. */
  readonly priorFactor: number;
  /** How many raw tokens of evidence the prior is worth (it decays like a sample). */
  readonly priorWeight: number;
  /** Weight kept by past samples at each new sample (1 = never forget). */
  readonly decay: number;
  /** Samples with fewer raw tokens than this are too noisy to learn from. */
  readonly minSampleTokens: number;
  /** Relative spread assumed before any sample. */
  readonly priorSpread: number;
  /** A sample whose ratio is outside [factor / r, factor × r] is rejected as an outlier. */
  readonly outlierRatio: number;
}

/** Defaults; the prior and bounds are generic, not fitted to any one session. */
export const DEFAULT_CALIBRATION_OPTIONS: CalibrationOptions = {
  priorFactor: 1.2,
  priorWeight: 2000,
  decay: 0.97,
  minSampleTokens: 20,
  priorSpread: 0.1,
  outlierRatio: 2,
};

/**
 * How many more tokens the newer tokenizer (Claude Opus 4.7+, Sonnet 5.x, Fable, Mythos, Haiku
 * 5.5) counts for the same text: "approximately 30 percent more tokens than on earlier models",
 * per https://platform.claude.com/docs/en/build-with-claude/token-counting (and the Haiku 5.5
 * overview https://platform.claude.com/docs/en/models/haiku-5-5/overview). "The exact increase
 * depends on the content", so this only seeds the prior; calibration learns the real ratio.
 */
export const NEWER_TOKENIZER_RATIO = 1.3;

/** The prior factor for a model's tokenizer family (`claude-2026`: the default prior × 1.3). */
export function priorFactorFor(
  family: 'claude' | 'claude-2026',
  base: number = DEFAULT_CALIBRATION_OPTIONS.priorFactor,
): number {
  return family === 'claude-2026' ? base * NEWER_TOKENIZER_RATIO : base;
}

/** A calibration that has seen nothing: the prior factor. */
export function initialCalibration(options: CalibrationOptions = DEFAULT_CALIBRATION_OPTIONS): Calibration {
  const w = options.priorWeight;
  return {
    factor: options.priorFactor,
    reportedSum: options.priorFactor * w,
    rawSum: w,
    spread: options.priorSpread,
    residualSum: options.priorSpread * w,
    accepted: 0,
    rejected: 0,
  };
}

/**
 * Learns from one sample: `rawText` raw text tokens were added (negative: removed) and the
 * prompt grew by `reportedText` API tokens net of fixed (image) tokens. Returns the new
 * calibration; an unusable sample (too small, opposite signs, outlier) only counts as rejected.
 */
export function calibrate(
  c: Calibration,
  rawText: number,
  reportedText: number,
  options: CalibrationOptions = DEFAULT_CALIBRATION_OPTIONS,
): Calibration {
  const sign = rawText < 0 ? -1 : 1;
  const raw = rawText * sign;
  const reported = reportedText * sign;
  if (raw < options.minSampleTokens) return c;
  const ratio = reported / raw;
  if (!(ratio >= c.factor / options.outlierRatio && ratio <= c.factor * options.outlierRatio)) {
    return { ...c, rejected: c.rejected + 1 };
  }
  const reportedSum = c.reportedSum * options.decay + reported;
  const rawSum = c.rawSum * options.decay + raw;
  const residualSum = c.residualSum * options.decay + Math.abs(reported - c.factor * raw);
  const factor = reportedSum / rawSum;
  const spread = residualSum / rawSum;
  return { factor, reportedSum, rawSum, spread, residualSum, accepted: c.accepted + 1, rejected: c.rejected };
}

/** API tokens predicted for a raw count: factor × text + fixed. May be fractional or negative. */
export function applyCalibration(c: Calibration, raw: RawTokens): number {
  return c.factor * raw.text + raw.fixed;
}
