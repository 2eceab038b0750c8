import { strict as assert } from 'node:assert';
import { policy } from '../../bench/policies';
import { replay, type ReplayResult } from '../../bench/replayCore';
import { withClearedResults } from '../../bench/clearedResults';
import { rowOf } from '../../bench/replayReport';
import { requestCostUsd } from '../../src/core/llm/cost';
import { DEFAULT_COMPACTION_SETTINGS, effectiveWindow } from '../../src/core/compaction/policy';
import { resolveConfig } from '../../src/core/pipeline/config';
import type { Message } from '../../src/core/conversation/conversationModel';
import { planningPrices } from '../../src/core/models/modelFacts';
import { batchedKeep, clearBatchSize } from '../../src/core/server/clearBatch';
import { CLEARED_PLACEHOLDER } from '../../test/fake-anthropic/contextManagement';
import { prepare, RESULT_WORDS, toolSession } from './support/benchTranscripts';

const WINDOW = 100_000;
const run = (n: number, name: 'server-clear' | 'default'): Promise<ReplayResult> =>
  replay(prepare(toolSession(n)), { window: WINDOW, policy: policy(name) });

describe('bench replay: server-clear (the API’s clear_tool_uses)', () => {
  it('runs the app’s server strategy: our compactor keeps only its hard-threshold safety net', () => {
    const p = policy('server-clear');
    assert.equal(p.settings.strategy, 'server-clear-tool-uses');
    assert.deepEqual(
      p.settings.server,
      DEFAULT_COMPACTION_SETTINGS.server,
      'the default server settings: trigger at the soft threshold, the API’s keep',
    );
  });

  it('clears at the trigger (the soft threshold), keeping at least the 3 most recent tool uses, in whole batches', async () => {
    const r = await run(26, 'server-clear');
    const config = resolveConfig({ contextWindow: WINDOW, model: 'claude-sonnet-4-5' });
    assert.ok(config.ok);
    const trigger = config.config.softThreshold * effectiveWindow(config.config);
    const batch = clearBatchSize(3, planningPrices('claude-sonnet-4-5'));
    assert.equal(r.invalidCount, 0);
    assert.equal(r.guarded, 0, 'no result spilled on arrival');
    assert.equal(r.overflows, 0);
    // Request k (0-based) holds k tool results; the API sees the whole history we send.
    const first = r.trace.findIndex((t) => t.serverCleared !== undefined);
    assert.ok(first > 0, 'some request was cleared');
    for (const [k, t] of r.trace.entries()) {
      const sentTokens = t.usage.input_tokens + t.usage.cache_read_input_tokens + t.usage.cache_creation_input_tokens;
      if (k < first) {
        assert.equal(t.serverCleared, undefined);
        continue;
      }
      assert.ok(t.tokens >= trigger - 50, `request ${k} at or over the trigger`);
      assert.equal(
        t.serverCleared?.toolUses,
        k - batchedKeep(k, 3, batch),
        `request ${k}: its oldest results cleared in whole batches of ${batch}, at least 3 kept`,
      );
      assert.ok(
        Math.abs(sentTokens + t.serverCleared!.tokens - t.tokens) < 50 + 10 * k,
        'the API processed the edited prompt: ours minus what it cleared',
      );
    }
    assert.equal(r.serverClears, r.trace.length - first);
    assert.equal(r.compactions, 0, 'under the hard threshold our own compaction stays off');
    const row = rowOf(r, null);
    assert.equal(row.server_clears, r.serverClears);
    assert.ok(row.server_cleared_tokens > 0);
  });

  it('prices the cache rewrite when a batch moves, and reads the edited prefix while it stays', async () => {
    const server = await run(26, 'server-clear');
    const first = server.trace.findIndex((t) => t.serverCleared !== undefined);
    const t = server.trace[first]!;
    // The clear changes the prompt at the first tool result: only the task before it can be read.
    assert.ok(t.usage.cache_read_input_tokens < 1_000, `read ${t.usage.cache_read_input_tokens}`);
    assert.ok(t.usage.cache_creation_input_tokens > 3 * RESULT_WORDS, `written ${t.usage.cache_creation_input_tokens}`);
    // The next request clears the same results: the edited prefix is read, only the new result written.
    const next = server.trace[first + 1]!;
    assert.equal(next.serverCleared?.toolUses, t.serverCleared?.toolUses);
    assert.ok(next.usage.cache_read_input_tokens >= t.usage.cache_creation_input_tokens, 'the edited prefix is read');
    assert.ok(next.usage.cache_creation_input_tokens < 2 * RESULT_WORDS, 'only what is new is written');
    // The cost is the sum of what each request was billed, writes included.
    const expected = server.trace.reduce((n, x) => n + (requestCostUsd(x.model, x.usage) ?? NaN), 0);
    assert.ok(Math.abs((server.cost.total() ?? -1) - expected) < 1e-12);
    assert.equal(
      server.tokens.write,
      server.trace.reduce((n, x) => n + x.usage.cache_creation_input_tokens, 0),
    );
  });

  it('measures retention on what the model saw: cleared results are placeholders', () => {
    const meta = {
      id: 'b',
      tier: 0,
      source: 'tool',
      createdAt: 0,
      pinned: false,
      compactable: true,
    } as unknown as Message['blocks'][number]['meta'];
    const m: Message = {
      id: 'm',
      role: 'user',
      turn: 1,
      blocks: [
        { type: 'tool_result', toolUseId: 'a', content: 'secret.ts', meta },
        { type: 'tool_result', toolUseId: 'b', content: 'kept.ts', meta },
      ],
    };
    const [out] = withClearedResults([m], ['a']);
    assert.deepEqual(
      out?.blocks.map((b) => (b.type === 'tool_result' ? b.content : '')),
      [CLEARED_PLACEHOLDER, 'kept.ts'],
    );
  });
});
