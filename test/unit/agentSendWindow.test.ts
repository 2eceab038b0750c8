import { testCompactor } from './support/testCompactor';
import { strict as assert } from 'node:assert';
import type { LlmClient, LlmError, LlmResult } from '../../src/core/llm/llmClient';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent } from '../../src/core/agent/events';
import type { Message } from '../../src/core/conversation/conversationModel';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { counterIds } from '../../src/core/platform/platformPorts';
import { emptyState, testConfig } from './support/builders';
import { Counter, Gate } from './support/gate';
import { agentDeps } from './support/agentDeps';
import { nullSink } from './support/sessionSink';

const usage = { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const ANSWER = 'An answer that is long enough to be worth summarising later on. '.repeat(20);

/** Chat answers at once and counts its requests; the summariser waits for `summariser` to open. */
class Llm implements LlmClient {
  readonly chats = new Counter();
  readonly summaries = new Counter();
  summariser = new Gate();
  async stream(params: { model: string }): Promise<{ ok: true; result: LlmResult } | { ok: false; error: LlmError }> {
    const answer = (text: string): { ok: true; result: LlmResult } => ({
      ok: true,
      result: { content: [{ type: 'text', text }], stopReason: 'end_turn', model: params.model, usage },
    });
    if (params.model === 'claude-haiku-4-5') {
      this.summaries.bump();
      await this.summariser.wait();
      return answer('Summary of the earlier turns.');
    }
    this.chats.bump();
    return answer(ANSWER);
  }
}

/**
 * A session whose sink holds the save of a user message while `hold` is set: `held` counts the
 * held saves, `release()` lets them finish.
 */
function setup() {
  const llm = new Llm();
  const held = new Counter();
  let gate = new Gate();
  const ctl = { hold: false };
  const events: AgentEvent[] = [];
  const base = agentDeps({
    llm,
    ids: counterIds('w'),
    sink: nullSink({
      message: async (m: Message) => {
        if (!ctl.hold || m.role !== 'user') return;
        held.bump();
        await gate.wait();
      },
    }),
  });
  const compactor = testCompactor(base, llm);
  const session = new AgentSession(
    emptyState({ config: testConfig({ keepRecentTurns: 1, keepRecentTokens: 0 }) }),
    { ...base, compactor },
    (e) => events.push(e),
  );
  const release = () => {
    ctl.hold = false;
    gate.open();
    gate = new Gate();
  };
  /** Sends `text` and resolves once its user message is being saved (the save held), with the send's promise (wrapped: not awaited). */
  const sendHeld = async (text: string) => {
    ctl.hold = true;
    const saving = held.reached(held.count + 1);
    const sent = session.send(text);
    await saving;
    return { sent };
  };
  return { session, llm, events, release, sendHeld };
}

describe('AgentSession: a turn is running from Send on, while its message is being saved', () => {
  it('Compact Now pressed while the message is saved waits for the turn, and the answer is kept', async () => {
    const t = setup();
    t.llm.summariser.open();
    for (let i = 1; i <= 3; i++) assert.deepEqual(await t.session.send(`question ${i}`), { ok: true });
    t.llm.summariser = new Gate();
    const { sent } = await t.sendHeld('question 4');
    assert.ok(t.session.busy, 'busy from Send on');
    const compaction = t.session.commands.compactNow();
    assert.ok(t.session.commands.compactionQueued, 'queued behind the turn');
    t.release();
    assert.deepEqual(await sent, { ok: true });
    t.llm.summariser.open();
    assert.deepEqual(await compaction, { ok: true });
    const messages = t.session.state.messages;
    assert.equal(messages.at(-1)?.role, 'assistant');
    assert.equal(messages.at(-1)?.turn, 4, 'the answer to question 4 is in the conversation');
    assert.ok(!t.session.busy);
    assert.deepEqual(checkInvariants(t.session.state), []);
  });

  it('Stop pressed while the message is saved stops the turn before its request', async () => {
    const t = setup();
    t.llm.summariser.open();
    const { sent } = await t.sendHeld('question 1');
    t.session.stop();
    t.release();
    assert.deepEqual(await sent, { ok: true });
    assert.equal(t.llm.chats.count, 0, 'nothing was sent');
    assert.deepEqual(t.events.filter((e) => e.type === 'turn_finished').at(-1), {
      type: 'turn_finished',
      reason: 'stopped',
    });
    assert.equal(t.session.state.messages.at(-1)?.role, 'assistant', 'the stop is recorded');
    assert.ok(!t.session.busy);
    assert.deepEqual(checkInvariants(t.session.state), []);
  });
});
