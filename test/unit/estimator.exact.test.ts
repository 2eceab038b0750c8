import { strict as assert } from 'node:assert';
import type { Message } from '../../src/core/conversation/conversationModel';
import { type PromptRequest, TokenEstimator } from '../../src/core/tokens/estimator';
import { countingTokenizer, mk, words } from './support/tokenFakes';

const req = (messages: readonly Message[]): PromptRequest => ({ system: [], tools: [], messages: messages.slice() });

describe('TokenEstimator.anchorExact (count_tokens anchor)', () => {
  it('anchors on the exact count like a report: the same request estimates to it, appended content builds on it', () => {
    const e = new TokenEstimator(countingTokenizer());
    const first = [mk.message('user', [mk.text(words(300, 1))])];
    assert.equal(e.estimate(req(first)).mode, 'cold');
    const o = e.anchorExact(req(first), 420);
    assert.equal(o.reported, 420);
    assert.equal(o.calibrated, false);
    assert.equal(e.anchorTokens, 420);
    assert.equal(e.anchorSource, 'count_tokens');
    const same = e.estimate(req(first));
    assert.deepEqual(
      [same.tokens, same.mode, same.anchored, same.breakdown.anchorTokens],
      [420, 'anchored', true, 420],
    );
    const next = e.estimate(req([...first, mk.message('assistant', [mk.text(words(50, 2))])]));
    assert.equal(next.mode, 'anchored');
    assert.ok(next.tokens > 420);
  });

  it('the usage of the same request re-anchors without teaching the calibration anything', () => {
    const e = new TokenEstimator(countingTokenizer());
    const first = req([mk.message('user', [mk.text(words(300, 1))])]);
    e.anchorExact(first, 420);
    const before = e.calibration;
    const o = e.observe(first, { input_tokens: 425 });
    assert.equal(o.calibrated, false);
    assert.deepEqual(e.calibration, before);
    assert.equal(e.anchorSource, 'usage');
    assert.equal(e.anchorTokens, 425);
  });

  it('a model switch or a reset forgets the exact anchor', () => {
    const e = new TokenEstimator(countingTokenizer());
    e.useModel('claude-sonnet-4-6', 1.1);
    e.anchorExact(req([mk.message('user', [mk.text(words(30, 1))])]), 40);
    assert.equal(e.anchorSource, 'count_tokens');
    e.useModel('claude-opus-4-6', 1.2);
    assert.equal(e.anchorSource, undefined);
    e.anchorExact(req([mk.message('user', [mk.text(words(30, 1))])]), 40);
    e.resetAnchor();
    assert.equal(e.anchorSource, undefined);
  });
});
