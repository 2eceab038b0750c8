import type { ConversationState } from '../conversation/conversationModel';
import type { Tokenizer } from '../platform/platformPorts';
import { systemRawTokens, toolsRawTokens } from './blockTokens';
import { calibratedMessageTokens } from './calibratedTokens';
import { applyCalibration } from './calibration';
import type { TokenEstimator } from './estimator';

/** Token counts of one request, calibrated to the model's tokenizer as well as known. */
export interface RequestTokens {
  readonly tools: number;
  readonly system: number;
  /** One entry per message, in order. */
  readonly messages: readonly number[];
  /** Best estimate of the whole prompt (anchored on the last reported usage when possible). */
  readonly total: number;
  /** Whether `total` is anchored on a reported usage. */
  readonly anchored: boolean;
}

/** Counts a request's tokens; implemented over the estimator (makeRequestCounter). Must be incremental. */
export type RequestCounter = (state: ConversationState) => RequestTokens;

/**
 * A RequestCounter over the session's estimator: the prompt total is the estimator's
 * (anchored on the last reported usage when it can be), and the per-part figures used to
 * place cache breakpoints are memoised raw counts × the learned calibration factor.
 */
export function makeRequestCounter(estimator: TokenEstimator, tokenizer: Tokenizer): RequestCounter {
  return (state) => {
    const estimate = estimator.estimate(state);
    const cal = estimator.calibration;
    return {
      tools: applyCalibration(cal, toolsRawTokens(state.tools, tokenizer)),
      system: applyCalibration(cal, systemRawTokens(state.system, tokenizer)),
      messages: state.messages.map((m) => calibratedMessageTokens(m, tokenizer, cal)),
      total: estimate.tokens,
      anchored: estimate.anchored,
    };
  };
}
