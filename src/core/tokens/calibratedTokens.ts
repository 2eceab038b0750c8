/**
 * The one home of calibrated token figures: a raw tokenizer count turned into predicted API
 * tokens with the session's learned calibration (see calibration.ts). The compactor's
 * `tokensOf`, the request counter's per-message figures, the pinned regions, the ledger's
 * block rows and the chat's context chips all call these, so one message or block shows
 * the same figure everywhere.
 */
import type { Block, Message } from '../conversation/conversationModel';
import type { Tokenizer } from '../platform/platformPorts';
import { blockFixedTokens, blockRawTokens, messageRawTokens } from './blockTokens';
import { applyCalibration, type Calibration } from './calibration';

/** Calibrated API tokens of a whole message (blocks + framing; images at their fixed cost). Not rounded. */
export function calibratedMessageTokens(m: Message, tokenizer: Tokenizer, calibration: Calibration): number {
  return applyCalibration(calibration, messageRawTokens(m, tokenizer));
}

/** Calibrated API tokens of one block of a message (its images at their fixed cost), rounded to a whole token. */
export function calibratedBlockTokens(b: Block, tokenizer: Tokenizer, calibration: Calibration): number {
  const fixed = blockFixedTokens(b);
  return Math.round(applyCalibration(calibration, { text: blockRawTokens(b, tokenizer) - fixed, fixed }));
}

/** Calibrated API tokens of a bare text (no framing), e.g. an injection's tagged text before it is a block. Not rounded. */
export function calibratedTextTokens(text: string, tokenizer: Tokenizer, calibration: Calibration): number {
  return applyCalibration(calibration, { text: tokenizer.count(text), fixed: 0 });
}
