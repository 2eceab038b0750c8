import { strict as assert } from 'node:assert';
import { serverRequestFor } from '../../src/core/agent/serverRequest';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import type { ConversationState } from '../../src/core/conversation/conversationModel';
import { DEFAULT_SERVER_CONTEXT_SETTINGS } from '../../src/core/server/serverContext';
import { testConfig } from './support/builders';

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
