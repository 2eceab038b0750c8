import type { RequestCounter } from './pipeline';
import type { Tokenizer } from '../platform/platformPorts';
import { systemRawTokens, toolsRawTokens } from '../tokens/blockTokens';
import { calibratedMessageTokens } from '../tokens/calibratedTokens';
import { applyCalibration } from '../tokens/calibration';
import type { TokenEstimator } from '../tokens/estimator';

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
