import { strict as assert } from 'node:assert';
import { chars4Tokenizer } from '../../src/core/tokens/chars4';
import { TokenEstimator } from '../../src/core/tokens/estimator';
import { BudgetHistory, buildBudgetSnapshot } from '../../src/host/budget/budgetData';
import { parseBudgetToWebview } from '../../src/protocol/budget';
import { prepareRequest } from '../../src/core/pipeline/pipeline';
import { makeRequestCounter } from '../../src/core/tokens/requestTokens';
import { fakeClock } from './support/builders';
import { NBuild, stateOf } from './support/normalizeFixtures';

describe('normalize: what the budget panel shows of the last request', () => {
  it("the last request's repairs in one line, and its repaired blocks marked in the ledger; a valid protocol message", () => {
    const b = new NBuild('bv');
    const lost = b.toolUse('read_file', { path: 'a.ts' });
    const state = stateOf([b.user(b.text('read a.ts')), b.assistant(lost), b.user(b.text('still there?'))]);
    const history = new BudgetHistory();
    history.observe({ type: 'request_started', round: 1, attempt: 1, estimatedTokens: 10, anchored: false });
    const snap = buildBudgetSnapshot({
      session: 's',
      state,
      tokenizer: chars4Tokenizer,
      estimator: new TokenEstimator(chars4Tokenizer),
      history,
      compactions: [],
      busy: false,
      // The request the agent recorded as sent for this state.
      sent: [
        prepareRequest(state, {
          count: makeRequestCounter(new TokenEstimator(chars4Tokenizer), chars4Tokenizer),
          clock: fakeClock(),
        }),
      ],
    });
    assert.equal(snap.repairs?.summary, 'Repaired before sending: 1 interrupted tool call answered.');
    assert.match(snap.repairs?.details[0] ?? '', new RegExp(`read_file \\(${lost.id}\\) had no result`));
    const marked = snap.ledger.filter((r) => r.repair !== undefined);
    assert.deepEqual(
      marked.map((r) => [r.role, r.kind]),
      [['user', 'tool_result']],
    );
    assert.ok(parseBudgetToWebview(snap).ok, 'the snapshot is a valid protocol message');
  });

  it('says nothing when the last request needed no repair', () => {
    const b = new NBuild('bn');
    const state = stateOf([b.user(b.text('hi'))]);
    const history = new BudgetHistory();
    history.observe({ type: 'request_started', round: 1, attempt: 1, estimatedTokens: 10, anchored: false });
    const snap = buildBudgetSnapshot({
      session: 's',
      state,
      tokenizer: chars4Tokenizer,
      estimator: new TokenEstimator(chars4Tokenizer),
      history,
      compactions: [],
      busy: false,
      // The request the agent recorded as sent for this state.
      sent: [
        prepareRequest(state, {
          count: makeRequestCounter(new TokenEstimator(chars4Tokenizer), chars4Tokenizer),
          clock: fakeClock(),
        }),
      ],
    });
    assert.equal(snap.repairs, undefined);
    assert.equal(
      snap.ledger.some((r) => r.repair !== undefined),
      false,
    );
  });
});
