import { strict as assert } from 'node:assert';
import type { AgentEvent } from '../../src/core/agent/events';
import { chars4Tokenizer } from '../../src/core/tokens/chars4';
import { TokenEstimator } from '../../src/core/tokens/estimator';
import { BudgetHistory, buildBudgetSnapshot } from '../../src/host/budget/budgetData';
import { parseBudgetToWebview } from '../../src/protocol/budget';
import { Build, emptyState } from './support/builders';

const b = new Build('bx');
const state = emptyState({ messages: [b.message('user', [b.text('Why does validateToken in src/auth.ts fail?')], 1)] });
const usage = (reported: number, counted?: number): AgentEvent => ({
  type: 'usage',
  usage: { input_tokens: reported, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  model: 'm',
  costUsd: 0,
  estimatedTokens: 10,
  reportedTokens: reported,
  ...(counted !== undefined ? { counted } : {}),
});
const started: AgentEvent = { type: 'request_started', round: 1, attempt: 1, estimatedTokens: 10, anchored: false };
const exact = (tokens: number, anchored: boolean): AgentEvent => ({
  type: 'exact_count',
  tokens,
  estimated: 10,
  anchored,
});

function snapshot(estimator: TokenEstimator, history = new BudgetHistory()) {
  return buildBudgetSnapshot({
    session: 's',
    state,
    tokenizer: chars4Tokenizer,
    estimator,
    history,
    compactions: [],
    busy: false,
  });
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

  it('a row shows the count its usage carries (the count that anchored before it), as the saved session does', () => {
    const before = new BudgetHistory();
    for (const e of [started, exact(400, true), usage(402, 400)]) before.observe(e);
    assert.equal(before.requests[0]?.counted, 400);
    const after = new BudgetHistory();
    for (const e of [started, usage(402), exact(400, false)]) after.observe(e);
    assert.equal(
      after.requests[0]?.counted,
      undefined,
      'a count later than its usage is only reported, on no row (it was not saved either)',
    );
  });

  it('the protocol takes the new fields and rejects bad ones', () => {
    const estimator = new TokenEstimator(chars4Tokenizer);
    estimator.anchorExact(state, 321);
    const history = new BudgetHistory();
    for (const e of [started, exact(321, true), usage(325, 321)]) history.observe(e);
    const snap = snapshot(estimator, history);
    const parsed = parseBudgetToWebview(snap);
    assert.ok(parsed.ok);
    assert.equal(snap.requests[0]?.counted, 321);
    assert.equal(parseBudgetToWebview({ ...snap, nextAnchor: { source: 'guess', tokens: 1 } }).ok, false);
    assert.equal(parseBudgetToWebview({ ...snap, nextAnchor: { source: 'count_tokens' } }).ok, false);
    assert.equal(parseBudgetToWebview({ ...snap, requests: [{ ...snap.requests[0], counted: 'many' }] }).ok, false);
  });
});
