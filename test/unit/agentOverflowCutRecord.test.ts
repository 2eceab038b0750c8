import { strict as assert } from 'node:assert';
import type { LlmClient, LlmError, LlmResult } from '../../src/core/llm/llmClient';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { CompactionRecord } from '../../src/core/compaction/types';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { counterIds } from '../../src/core/platform/platformPorts';
import { agentDeps } from './support/agentDeps';
import { emptyState, testConfig } from './support/builders';
import { nullSink } from './support/sessionSink';

/** A tool result far over the 20 000 characters the overflow cut keeps. */
const HUGE = 'x'.repeat(60_000);

const usage = { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

/** Calls a tool, then says the prompt is too long once, then answers. */
function scripted(): LlmClient {
  let n = 0;
  return {
    async stream(params): Promise<{ ok: true; result: LlmResult } | { ok: false; error: LlmError }> {
      n++;
      if (n === 1)
        return {
          ok: true,
          result: {
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'big.log' } }],
            stopReason: 'tool_use',
            model: params.model,
            usage,
          },
        };
      if (n === 2)
        return { ok: false, error: { kind: 'prompt_too_long', message: 'prompt is too long', retryable: false } };
      return {
        ok: true,
        result: { content: [{ type: 'text', text: 'done' }], stopReason: 'end_turn', model: params.model, usage },
      };
    },
  };
}

const resultText = (s: AgentSession) =>
  s.state.messages
    .flatMap((m) => m.blocks)
    .flatMap((b) => (b.type === 'tool_result' && typeof b.content === 'string' ? [b.content] : []));

describe('overflow recovery: cutting oversized tool results leaves a record', () => {
  it('the cut is one saved, restorable compaction record keeping the result whole', async () => {
    const saved: CompactionRecord[] = [];
    const session = new AgentSession(
      emptyState({ config: testConfig() }),
      agentDeps({
        llm: scripted(),
        tools: { run: async () => ({ content: HUGE, isError: false }) },
        sink: nullSink({ compaction: async (r) => void saved.push(r) }),
        ids: counterIds('oc'),
      }),
      () => undefined,
    );
    assert.deepEqual(await session.send('read the log'), { ok: true });
    const cut = resultText(session)[0] ?? '';
    assert.ok(cut.length < HUGE.length && cut.includes('characters cut'), 'the result was cut');
    assert.equal(saved.length, 1, 'the cut was saved as a record');
    const record = saved[0];
    assert.ok(record);
    assert.equal(record.layer, 'overflow-cut');
    assert.equal(record.trigger, 'overflow');
    assert.ok(
      record.originals.some((m) => m.blocks.some((b) => b.type === 'tool_result' && b.content === HUGE)),
      'the originals keep the whole result',
    );
    assert.deepEqual(
      session.compactions.map((c) => c.record.id),
      [record.id],
      'listed in the Compactions view',
    );
    assert.deepEqual(await session.commands.restore(record.id), { ok: true });
    assert.equal(resultText(session)[0], HUGE, 'Restore puts the whole result back');
    assert.deepEqual(checkInvariants(session.state), []);
  });
});
