import { strict as assert } from 'node:assert';
import {
  BASELINE_KEEP_RECENT_TOKENS,
  CLAUDE_CODE_BUFFER,
  policy,
  POLICY_NAMES,
  type PolicyContext,
} from '../../bench/policies';
import type { CompactionRun } from '../../src/core/compaction/compactor';
import { DEFAULT_COMPACTION_SETTINGS, effectiveWindow } from '../../src/core/compaction/policy';
import { resolveConfig } from '../../src/core/pipeline/config';
import type { ConversationState } from '../../src/core/conversation/conversationModel';

/** A state of a 100k window whose prompt the context measures as `tokens`, and a compactor recording calls. */
function setup(tokens: number, pipeline = {}) {
  const r = resolveConfig({ contextWindow: 100_000, ...pipeline });
  assert.ok(r.ok);
  const state: ConversationState = { system: [], tools: [], messages: [], pending: [], config: r.config };
  const calls: string[] = [];
  const run = (s: ConversationState): CompactionRun => ({ state: s, records: [], notices: [] });
  const ctx: PolicyContext = {
    compactor: {
      beforeRequest: async (s) => (calls.push('beforeRequest'), run(s)),
      compact: async (s, o) => (calls.push(`compact ${o.trigger} ${String(o.tokensToFree)}`), run(s)),
    },
    measure: () => tokens,
    signal: new AbortController().signal,
  };
  return { state, ctx, calls };
}

describe('bench policies', () => {
  it('default (and its summariser variants), rolling and stacked run the layered pipeline; rolling and stacked set summaryPolicy', async () => {
    for (const name of ['default', 'default-main', 'default-small', 'default-server', 'rolling', 'stacked'] as const) {
      const { state, ctx, calls } = setup(10);
      await policy(name).beforeRequest(state, ctx);
      assert.deepEqual(calls, ['beforeRequest'], name);
    }
    assert.deepEqual(policy('default').settings, DEFAULT_COMPACTION_SETTINGS);
    assert.equal((policy('rolling').settings as unknown as Record<string, unknown>).summaryPolicy, 'rolling');
    assert.equal((policy('stacked').settings as unknown as Record<string, unknown>).summaryPolicy, 'stacked');
    assert.deepEqual(POLICY_NAMES, [
      'default',
      'default-main',
      'default-small',
      'default-server',
      'rolling',
      'stacked',
      'baseline',
      'claude-code',
      'server-clear',
    ]);
    // The summariser variants differ from the default only in contextPipeline.summarizer.
    for (const [name, summarizer] of [
      ['default', 'auto'],
      ['default-main', 'main'],
      ['default-small', 'small'],
      ['default-server', 'server'],
    ] as const) {
      assert.deepEqual(policy(name).settings, DEFAULT_COMPACTION_SETTINGS, name);
      assert.deepEqual(policy(name).pipeline, { summarizer }, name);
      const r = resolveConfig({ ...policy(name).pipeline });
      assert.ok(r.ok && r.config.summarizer === summarizer);
    }
  });

  it('baseline summarises everything at 85 % of the effective window, and does nothing below', async () => {
    const { state } = setup(0);
    const at = 0.85 * effectiveWindow(state.config);
    const below = setup(at - 1);
    await policy('baseline').beforeRequest(below.state, below.ctx);
    assert.deepEqual(below.calls, []);
    const over = setup(at);
    await policy('baseline').beforeRequest(over.state, over.ctx);
    assert.deepEqual(over.calls, ['compact auto-hard all']);
    // Its tail is fixed, so the reference does not move with the extension's default (16,000 at 200k).
    const r = resolveConfig({ ...policy('baseline').pipeline, contextWindow: 200_000 });
    assert.ok(r.ok && r.config.keepRecentTokens === BASELINE_KEEP_RECENT_TOKENS);
    assert.equal(BASELINE_KEEP_RECENT_TOKENS, 12_000);
  });

  it('claude-code summarises everything at window − 33k, keeping ~10k recent tokens and 1 turn', async () => {
    const p = policy('claude-code');
    assert.deepEqual(p.pipeline, { keepRecentTokens: 10_000, keepRecentTurns: 1, summarizer: 'main', cacheTtl: '5m' });
    assert.equal(p.sharedPrefix, true, 'its system prompt and tools are shared by all its users: always warm');
    const below = setup(100_000 - CLAUDE_CODE_BUFFER - 1, p.pipeline);
    await p.beforeRequest(below.state, below.ctx);
    assert.deepEqual(below.calls, []);
    const over = setup(100_000 - CLAUDE_CODE_BUFFER, p.pipeline);
    assert.equal(over.state.config.keepRecentTokens, 10_000);
    await p.beforeRequest(over.state, over.ctx);
    assert.deepEqual(over.calls, ['compact auto-hard all']);
  });
});
