import { testCompactor } from './support/testCompactor';
import { strict as assert } from 'node:assert';
import type { LlmClient, LlmError, LlmResult } from '../../src/core/llm/llmClient';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent } from '../../src/core/agent/events';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { counterIds } from '../../src/core/platform/platformPorts';
import { emptyState, testConfig } from './support/builders';
import { Counter } from './support/gate';
import { agentDeps } from './support/agentDeps';

const usage = { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

/** The chat answers until `overflow` is set, then says the prompt is too long; the summariser then waits for the abort. */
class Llm implements LlmClient {
  overflow = false;
  readonly summarising = new Counter();
  async stream(
    params: { model: string },
    opts: { signal: AbortSignal },
  ): Promise<{ ok: true; result: LlmResult } | { ok: false; error: LlmError }> {
    const answer = (text: string): { ok: true; result: LlmResult } => ({
      ok: true,
      result: { content: [{ type: 'text', text }], stopReason: 'end_turn', model: params.model, usage },
    });
    if (params.model === 'claude-haiku-4-5') {
      if (!this.overflow) return answer('Summary of the earlier turns.');
      this.summarising.bump();
      await new Promise<void>((r) => opts.signal.addEventListener('abort', () => r(), { once: true }));
      return { ok: false, error: { kind: 'aborted', message: 'Stopped.', retryable: false } };
    }
    if (this.overflow)
      return {
        ok: false,
        error: {
          kind: 'prompt_too_long',
          message: 'prompt is too long: 210000 tokens > 200000 maximum',
          retryable: false,
          promptTokens: 210_000,
        },
      };
    return answer('An answer that is long enough to be worth summarising later on. '.repeat(20));
  }
}

describe('Stop while a compaction after "prompt is too long" runs', () => {
  it('ends the turn as stopped, with no error telling the user to start a new session', async () => {
    const llm = new Llm();
    const events: AgentEvent[] = [];
    const base = agentDeps({ llm, ids: counterIds('o') });
    const compactor = testCompactor(base, llm);
    const session = new AgentSession(
      emptyState({ config: testConfig({ keepRecentTurns: 1, keepRecentTokens: 0 }) }),
      { ...base, compactor },
      (e) => events.push(e),
    );
    for (let i = 1; i <= 3; i++) assert.deepEqual(await session.send(`question ${i}`), { ok: true });
    llm.overflow = true;
    const sent = session.send('question 4');
    await llm.summarising.reached(1);
    session.stop();
    assert.deepEqual(await sent, { ok: true });
    assert.deepEqual(
      events.flatMap((e) => (e.type === 'error' ? [e.error.message] : [])),
      [],
      'no error after the Stop',
    );
    assert.deepEqual(events.filter((e) => e.type === 'turn_finished').at(-1), {
      type: 'turn_finished',
      reason: 'stopped',
    });
    assert.equal(session.state.messages.at(-1)?.role, 'assistant', 'the stop is recorded');
    assert.deepEqual(checkInvariants(session.state), []);
  });
});
