import { strict as assert } from 'node:assert';
import type { AgentEvent } from '../../src/core/agent/events';
import { chars4Tokenizer } from '../../src/core/tokens/chars4';
import { TokenEstimator } from '../../src/core/tokens/estimator';
import { BudgetHistory, buildBudgetSnapshot } from '../../src/host/budget/budgetData';
import { parseBudgetToWebview } from '../../src/protocol/budget';
import { Build, emptyState } from './support/builders';

const b = new Build('bx');
const state = emptyState({ messages: [b.message('user', [b.text('Why does validateToken in src/auth.ts fail?')], 1)] });
const usage = (reported: number): AgentEvent => ({ type: 'usage', usage: { input_tokens: reported, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, model: 'm', costUsd: 0, estimatedTokens: 10, reportedTokens: reported });
const started: AgentEvent = { type: 'request_started', round: 1, attempt: 1, estimatedTokens: 10, anchored: false };
const exact = (tokens: number, anchored: boolean): AgentEvent => ({ type: 'exact_count', tokens, estimated: 10, anchored });

function snapshot(estimator: TokenEstimator, history = new BudgetHistory()) {
  return buildBudgetSnapshot({ session: 's', state, tokenizer: chars4Tokenizer, estimator, history, compactions: [], busy: false });
}

describe('budget: the exact count_tokens anchor', () => {
  it('marks the next-request figure as anchored on count_tokens, and as exact when nothing was added', () => {
    const estimator = new TokenEstimator(chars4Tokenizer);
    assert.equal(snapshot(estimator).nextAnchor, undefined, 'cold: not anchored');
    estimator.anchorExact(state, 321);
    const snap = snapshot(estimator);
    assert.deepEqual(snap.nextAnchor, { source: 'count_tokens', tokens: 321 });
    assert.equal(snap.nextEstimate, 321);
    assert.ok(parseBudgetToWebview(snap).ok);
    estimator.observe(state, { input_tokens: 330 });
    assert.deepEqual(snapshot(estimator).nextAnchor, { source: 'usage', tokens: 330 });
  });

  it('puts the count on the row of its request, whether it answered before or after the usage', () => {
    const before = new BudgetHistory();
    for (const e of [started, exact(400, true), usage(402)]) before.observe(e, state);
    assert.equal(before.requests[0]?.counted, 400);
    const after = new BudgetHistory();
    for (const e of [started, usage(402), exact(400, false)]) after.observe(e, state);
    assert.equal(after.requests[0]?.counted, 400);
    const late = new BudgetHistory();
    for (const e of [started, usage(402), started, exact(400, false), usage(500)]) late.observe(e, state);
    assert.deepEqual(late.requests.map((r) => r.counted), [undefined, undefined], 'a count later than the next request goes nowhere');
  });

  it('the protocol takes the new fields and rejects bad ones', () => {
    const estimator = new TokenEstimator(chars4Tokenizer);
    estimator.anchorExact(state, 321);
    const history = new BudgetHistory();
    for (const e of [started, exact(321, true), usage(325)]) history.observe(e, state);
    const snap = snapshot(estimator, history);
    const parsed = parseBudgetToWebview(snap);
    assert.ok(parsed.ok);
    assert.equal(snap.requests[0]?.counted, 321);
    assert.equal(parseBudgetToWebview({ ...snap, nextAnchor: { source: 'guess', tokens: 1 } }).ok, false);
    assert.equal(parseBudgetToWebview({ ...snap, nextAnchor: { source: 'count_tokens' } }).ok, false);
    assert.equal(parseBudgetToWebview({ ...snap, requests: [{ ...snap.requests[0], counted: 'many' }] }).ok, false);
  });
});
