import { strict as assert } from 'node:assert';
import type { BudgetSnapshot } from '../../src/protocol/budget';
import { requestsTotalText } from '../../src/webview/budget/requestsTotal';

type Row = BudgetSnapshot['requests'][number];
const row = (index: number, costUsd: number | null): Row => ({
  index,
  promptTokens: 1000,
  input: 1000,
  cacheRead: 0,
  cacheWrite: 0,
  output: 10,
  estimated: 1000,
  costUsd,
  compactedBefore: false,
});

describe('budget panel: the request history total', () => {
  it('adds the summaries, the subagents and the handoff note to the requests, and names each share', () => {
    const requests = [row(2, 0.01), row(1, 0.02)];
    assert.equal(
      requestsTotalText({ requests, summariesCostUsd: 0 }, undefined),
      '2 requests, $0.0300 in this session (newest first, at most 20 listed).',
    );
    assert.equal(
      requestsTotalText({ requests, summariesCostUsd: 0.004, handoffCostUsd: 0.0051 }, { count: 1, costUsd: 0.003 }),
      '2 requests and 1 subagent, $0.0421 in this session ($0.0040 of it by compaction summaries, $0.0030 by subagents, ' +
        '$0.0051 by the handoff note that started this session) (newest first, at most 20 listed).',
    );
    assert.equal(
      requestsTotalText({ requests: [row(1, 0.01)], summariesCostUsd: 0, handoffCostUsd: 0.0051 }, undefined),
      '1 request, $0.0151 in this session ($0.0051 of it by the handoff note that started this session) (newest first, at most 20 listed).',
    );
  });

  it('an unknown price makes the total unknown, never a guess', () => {
    assert.match(
      requestsTotalText({ requests: [row(1, null)], summariesCostUsd: 0.004, handoffCostUsd: 0.001 }, undefined),
      /^1 request, — in this session/,
    );
    assert.match(
      requestsTotalText({ requests: [row(1, 0.01)], summariesCostUsd: 0 }, { count: 2, costUsd: null }),
      /^1 request and 2 subagents, — in this session \(— of it by subagents\)/,
    );
    // A summary or a handoff note whose model has no known price: its share reads —, and so does the total.
    assert.equal(
      requestsTotalText({ requests: [row(1, 0.01)], summariesCostUsd: null }, undefined),
      '1 request, — in this session (— of it by compaction summaries) (newest first, at most 20 listed).',
    );
    assert.match(
      requestsTotalText({ requests: [row(1, 0.01)], summariesCostUsd: 0, handoffCostUsd: null }, undefined),
      /^1 request, — in this session \(— of it by the handoff note that started this session\)/,
    );
  });
});
