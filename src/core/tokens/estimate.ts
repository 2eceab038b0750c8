/**
 * What the estimator deals in (see estimator.ts): the request whose prompt it estimates, the
 * estimate and what it was built from, what a report taught it, and its options and bounds.
 */
import type { Message, TextBlock, ToolSchema } from '../conversation/conversationModel';
import type { CalibrationOptions } from './calibration';

/** What a request will contain: the prompt whose size is estimated or was reported. */
export interface PromptRequest {
  readonly system: readonly TextBlock[];
  readonly tools: readonly ToolSchema[];
  /** Treated as immutable once passed: the estimator keeps the array as its anchor. */
  readonly messages: readonly Message[];
}

/**
 * How an estimate was made. `cold`: no report yet, a calibrated count with the prior factor
 * and the default overhead. `anchored`: last report + what was appended since. `rebased`:
 * last report − what was removed + what was added. `full`: calibrated recount + learned overhead.
 */
export type EstimateMode = 'cold' | 'anchored' | 'rebased' | 'full';

/** An estimate of a prompt's size in API tokens. */
export interface Estimate {
  /** Estimated prompt tokens, margin included, rounded up. */
  readonly tokens: number;
  /** True when built on a reported figure (`anchored` or `rebased`). */
  readonly anchored: boolean;
  readonly mode: EstimateMode;
  readonly breakdown: {
    /** The reported prompt size it is anchored on (0 when not anchored). */
    readonly anchorTokens: number;
    /** Calibrated tokens added since the anchor (cold/full: everything counted). */
    readonly addedTokens: number;
    /** Calibrated tokens removed since the anchor. */
    readonly removedTokens: number;
    /** Overhead not visible in the request (cold/full only). */
    readonly overheadTokens: number;
    /** Safety margin added. */
    readonly marginTokens: number;
    /** Calibration factor used. */
    readonly factor: number;
  };
}

/** What `observe` learned from a report. */
export interface Observation {
  readonly reported: number;
  /** Whether the delta since the previous report was used to calibrate. */
  readonly calibrated: boolean;
  readonly factor: number;
  readonly overhead: number;
}

/** Options of the estimator. */
export interface EstimatorOptions {
  readonly calibration?: Partial<CalibrationOptions>;
  /**
   * Fraction added to every calibrated (not reported) part of an estimate. Default: twice
   * the calibration's learned spread (typical relative error of a delta), clamped to
   * [MIN_SAFETY_MARGIN, MAX_SAFETY_MARGIN]; on the fixture that puts ~97 % of estimates at or
   * above the report for a median cost of ~0.02 % of the prompt.
   */
  readonly safetyMargin?: number;
  /**
   * Overhead assumed before the first report. Default: 346 tokens when tools are present
   * (the tool-use system prompt Anthropic documents for Claude 4.x models), else 0.
   */
  readonly coldOverhead?: (tools: readonly ToolSchema[]) => number;
}

/** The default safety margin is this many learned spreads… */
export const SPREAD_MARGIN_MULTIPLIER = 2;
/** …within these bounds. */
export const MIN_SAFETY_MARGIN = 0.03;
export const MAX_SAFETY_MARGIN = 0.25;

/** Documented size of the tool-use system prompt the API adds when tools are given (Claude 4.x, tool_choice auto). */
export const TOOL_USE_PREAMBLE_TOKENS = 346;

/** What an anchor's figure came from: a request's reported usage, or an exact `count_tokens` before the answer. */
export type AnchorSource = 'usage' | 'count_tokens';
