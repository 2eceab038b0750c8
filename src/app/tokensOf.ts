/** Calibrated token counts of messages and text with the session's tokenizer and calibration. */
import type { Message } from '../core/conversation/conversationModel';
import type { Tokenizer } from '../core/platform/platformPorts';
import { calibratedMessageTokens, calibratedTextTokens } from '../core/tokens/calibratedTokens';
import type { TokenEstimator } from '../core/tokens/estimator';

/** Calibrated tokens of a message, and of plain text (`text`). */
export interface TokensOf {
  (message: Message): number;
  text(text: string): number;
}

/** A counter over `tokenizer` with `estimator`'s current calibration (read at each call). */
export function tokensOf(tokenizer: Tokenizer, estimator: TokenEstimator): TokensOf {
  return Object.assign((m: Message) => calibratedMessageTokens(m, tokenizer, estimator.calibration), {
    text: (text: string) => calibratedTextTokens(text, tokenizer, estimator.calibration),
  });
}
