import { strict as assert } from 'node:assert';
import type { ImageBlock } from '../../src/core/conversation/conversationModel';
import { pinnedRegions } from '../../src/core/compaction/pins';
import { buildLedger } from '../../src/core/pipeline/ledger';
import { makeRequestCounter } from '../../src/core/tokens/requestTokens';
import { blockFixedTokens, blockRawTokens, messageRawTokens } from '../../src/core/tokens/blockTokens';
import {
  calibratedBlockTokens,
  calibratedMessageTokens,
  calibratedTextTokens,
} from '../../src/core/tokens/calibratedTokens';
import { initialCalibration, type Calibration } from '../../src/core/tokens/calibration';
import { chars4Tokenizer } from '../../src/core/tokens/chars4';
import { TokenEstimator } from '../../src/core/tokens/estimator';
import { Build, emptyState } from './support/builders';
import { pngBase64 } from './support/images';

const cal: Calibration = { ...initialCalibration(), factor: 1.25 };

describe('calibrated tokens (one home: core/tokens/calibratedTokens.ts)', () => {
  const b = new Build('cal');
  const image: ImageBlock = {
    type: 'image',
    mediaType: 'image/png',
    data: pngBase64(200, 100),
    meta: { id: 'blk_img', tier: 1, source: 'user', createdAt: 0, pinned: true, compactable: false },
  };
  const words = {
    ...b.text('Look at this chart and tell me what the peak is. '.repeat(10)),
    meta: { ...b.text('x').meta, pinned: true },
  };
  const m = b.message('user', [words, image], 1);

  it('scales the text part by the factor and keeps images at their fixed cost', () => {
    const raw = messageRawTokens(m, chars4Tokenizer);
    assert.ok(raw.fixed > 0, 'the image has a fixed cost');
    assert.equal(calibratedMessageTokens(m, chars4Tokenizer, cal), 1.25 * raw.text + raw.fixed);
    const fixed = blockFixedTokens(image);
    assert.equal(
      calibratedBlockTokens(image, chars4Tokenizer, cal),
      Math.round(1.25 * (blockRawTokens(image, chars4Tokenizer) - fixed) + fixed),
    );
    assert.equal(
      calibratedBlockTokens(words, chars4Tokenizer, cal),
      Math.round(1.25 * blockRawTokens(words, chars4Tokenizer)),
    );
    assert.equal(calibratedTextTokens('abcdefgh', chars4Tokenizer, cal), 1.25 * chars4Tokenizer.count('abcdefgh'));
  });

  it('the ledger rows and the pinned regions show the same figure for a block', () => {
    const other = b.message('assistant', [b.text('The peak is in March.', 'assistant')], 1);
    const state = emptyState({ messages: [m, other] });
    const ledger = buildLedger(state, [], chars4Tokenizer, cal);
    // The first message is pinned as a whole; unpin the image to see it as a block region too.
    const partly = b.message('user', [words, { ...image, meta: { ...image.meta, pinned: false } }], 2);
    const regions = pinnedRegions([partly], chars4Tokenizer, cal);
    const row = ledger.find((r) => r.blockId === words.meta.id);
    const region = regions.find((r) => r.id === words.meta.id);
    assert.ok(row && region);
    assert.equal(row.tokens, region.tokens);
    const whole = pinnedRegions([m], chars4Tokenizer, cal)[0];
    assert.equal(whole?.tokens, Math.round(calibratedMessageTokens(m, chars4Tokenizer, cal)));
  });

  it("the request counter's per-message figures are the calibrated message tokens", () => {
    const estimator = new TokenEstimator(chars4Tokenizer);
    const state = emptyState({ messages: [m] });
    const counted = makeRequestCounter(estimator, chars4Tokenizer)(state);
    assert.deepEqual(counted.messages, [calibratedMessageTokens(m, chars4Tokenizer, estimator.calibration)]);
  });
});
