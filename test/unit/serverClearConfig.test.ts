import { strict as assert } from 'node:assert';
import { serverRequestFor } from '../../src/core/agent/serverRequest';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import type { ConversationState } from '../../src/core/conversation/conversationModel';
import { DEFAULT_SERVER_CONTEXT_SETTINGS } from '../../src/core/server/serverContext';
import { planningPrices } from '../../src/core/models/modelFacts';
import { batchedKeep, clearBatchSize } from '../../src/core/server/clearBatch';
import { Build, testConfig } from './support/builders';

/** A state offering `tools` in a 200k window with an 8k answer reserve. */
function state(tools: readonly string[]): ConversationState {
  return {
    system: [],
    tools: tools.map((name) => ({ name, description: name, inputSchema: { type: 'object' as const } })),
    messages: [],
    pending: [],
    config: testConfig({ model: 'claude-sonnet-4-6', contextWindow: 200_000, outputReserve: 8_000 }),
  };
}

describe('server-clear-tool-uses as a session sends it', () => {
  it("a session's request clears only when it frees the plan's minimum, and never the session tools' results", () => {
    const st = state(['read_file', 'recall', 'update_plan']);
    const r = serverRequestFor(st, { ...DEFAULT_COMPACTION_SETTINGS, strategy: 'server-clear-tool-uses' });
    assert.ok(r.ok && r.value);
    const edit = r.value.contextManagement?.edits[0];
    assert.ok(edit?.type === 'clear_tool_uses_20250919');
    // 10 % of the effective window (200k − 8k), at most 20k: the plan's rule for cheap edits.
    assert.deepEqual(edit.clear_at_least, { type: 'input_tokens', value: 19_200 });
    assert.deepEqual(edit.exclude_tools, ['recall', 'update_plan'], 'only the session tools the request offers');
    const set = serverRequestFor(st, {
      ...DEFAULT_COMPACTION_SETTINGS,
      strategy: 'server-clear-tool-uses',
      server: { ...DEFAULT_SERVER_CONTEXT_SETTINGS, clearAtLeastTokens: 3_000, excludeTools: ['read_file', 'recall'] },
    });
    assert.ok(set.ok && set.value);
    const e2 = set.value.contextManagement?.edits[0];
    assert.ok(e2?.type === 'clear_tool_uses_20250919');
    assert.deepEqual(e2.clear_at_least, { type: 'input_tokens', value: 3_000 }, "the user's setting wins");
    assert.deepEqual(e2.exclude_tools, ['recall', 'update_plan', 'read_file']);
  });
});

describe('batched server clears (core/server/clearBatch.ts)', () => {
  it('the batch pays back: B² reads at least (keep + B) rewrites, at the model’s prices', () => {
    const p = planningPrices('claude-sonnet-4-5');
    const b = clearBatchSize(3, p);
    const pays = (n: number) => n * n * p.cacheRead >= (3 + n) * (p.cacheWrite5m - p.cacheRead);
    assert.ok(pays(b) && !pays(b - 1), `batch ${b}`);
    assert.ok(clearBatchSize(10, p) > b, 'keeping more makes each move dearer: a larger batch');
  });

  it('keep grows between clears so the cleared set moves only by whole batches', () => {
    const cleared = (n: number) => n - batchedKeep(n, 3, 14);
    assert.equal(batchedKeep(2, 3, 14), 3, 'fewer results than keep: keep');
    assert.deepEqual(
      [16, 17, 30, 31, 44, 45].map(cleared),
      [0, 14, 14, 28, 28, 42],
      'the cleared count only changes every 14 results',
    );
    for (let n = 3; n < 200; n++) assert.ok(batchedKeep(n, 3, 14) >= 3, 'never fewer than keep are kept');
    assert.equal(batchedKeep(40, 3, 1), 3, 'a batch of 1 is the plain keep');
  });

  it("a session's request sends the batched keep for the results it holds", () => {
    const b = new Build('sc');
    const messages = [b.message('user', [b.text('go')], 1)];
    for (let i = 0; i < 20; i++) {
      const call = b.toolUse('read_file', { path: `f${i}` });
      messages.push(b.message('assistant', [call], 1), b.message('user', [b.toolResult(call.id, 'x')], 1));
    }
    const st = { ...state(['read_file']), messages };
    const r = serverRequestFor(st, { ...DEFAULT_COMPACTION_SETTINGS, strategy: 'server-clear-tool-uses' });
    assert.ok(r.ok && r.value);
    const edit = r.value.contextManagement?.edits[0];
    assert.ok(edit?.type === 'clear_tool_uses_20250919');
    const batch = clearBatchSize(3, planningPrices(st.config.model));
    assert.equal(edit.keep.value, batchedKeep(20, 3, batch));
    assert.ok(edit.keep.value > 3 && edit.keep.value < 20, `keep ${edit.keep.value}`); // A keep the user set is sent as it is.
    const set = serverRequestFor(st, {
      ...DEFAULT_COMPACTION_SETTINGS,
      strategy: 'server-clear-tool-uses',
      server: { ...DEFAULT_SERVER_CONTEXT_SETTINGS, keepToolUses: 2 },
    });
    assert.ok(set.ok && set.value);
    const e2 = set.value.contextManagement?.edits[0];
    assert.ok(e2?.type === 'clear_tool_uses_20250919');
    assert.equal(e2.keep.value, 2);
  });
});
