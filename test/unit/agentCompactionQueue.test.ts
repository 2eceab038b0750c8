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

/**
 * A chat model whose answers wait until the test releases them; the summariser answers at
 * once. `waiting` counts chat requests that have arrived; `gate()` releases one answer, the
 * one waiting or, if none is yet, the next to arrive (so no release is ever lost to a race).
 */
class GatedLlm implements LlmClient {
  readonly waiting = new Counter();
  private readonly releases: Array<() => void> = [];
  private permits = 0;
  gate(): void {
    const release = this.releases.shift();
    if (release) release();
    else this.permits++;
  }
  async stream(params: { model: string }): Promise<{ ok: true; result: LlmResult } | { ok: false; error: LlmError }> {
    if (params.model === 'claude-haiku-4-5')
      return {
        ok: true,
        result: {
          content: [{ type: 'text', text: 'Summary of the earlier turns.' }],
          stopReason: 'end_turn',
          model: params.model,
          usage: { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        },
      };
    this.waiting.bump();
    if (this.permits > 0) this.permits--;
    else await new Promise<void>((r) => this.releases.push(r));
    return {
      ok: true,
      result: {
        content: [
          { type: 'text', text: 'An answer that is long enough to be worth summarising later on. '.repeat(20) },
        ],
        stopReason: 'end_turn',
        model: params.model,
        usage: { input_tokens: 1000, output_tokens: 50, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      },
    };
  }
}

function setup() {
  const llm = new GatedLlm();
  const base = agentDeps({ llm, ids: counterIds('q') });
  const compactor = testCompactor(base, llm);
  const events: AgentEvent[] = [];
  const session = new AgentSession(
    emptyState({ config: testConfig({ keepRecentTurns: 1, keepRecentTokens: 0 }) }),
    { ...base, compactor },
    (e) => events.push(e),
  );
  const turn = async (text: string) => {
    const p = session.send(text);
    llm.gate();
    await p;
  };
  /** Sends `text` and resolves once its request has reached the model, with the running turn (wrapped: not awaited). */
  const startTurn = async (text: string) => {
    const arrived = llm.waiting.reached(llm.waiting.count + 1);
    const running = session.send(text);
    await arrived;
    return { running };
  };
  return { session, llm, events, turn, startTurn };
}

describe('Compact Now while a turn runs (one queue per session)', () => {
  it('waits for the turn boundary, then compacts; history stays valid', async () => {
    const t = setup();
    for (let i = 1; i <= 3; i++) await t.turn(`question ${i}`);
    const { running } = await t.startTurn('question 4');
    assert.ok(t.session.busy);
    const compaction = t.session.commands.compactNow('focus on question 2');
    assert.ok(
      t.events.some((e) => e.type === 'compaction_queued'),
      'shown as queued',
    );
    assert.ok(t.session.commands.compactionQueued);
    assert.equal(t.session.compactions.length, 0, 'nothing compacted while the turn runs');
    t.llm.gate();
    await running;
    assert.deepEqual(await compaction, { ok: true });
    assert.equal(t.session.compactions.length, 1);
    assert.equal(t.session.compactions[0]?.record.trigger, 'manual');
    assert.equal(t.session.compactions[0]?.record.instructions, 'focus on question 2');
    assert.deepEqual(checkInvariants(t.session.state), []);
    const started = t.events.findIndex((e) => e.type === 'compaction_started');
    const finished = t.events.findIndex(
      (e) => e.type === 'turn_finished' && e === t.events.filter((x) => x.type === 'turn_finished').at(-1),
    );
    assert.ok(started > finished, 'the compaction started after the turn finished');
  });

  it('a queued compaction can be cancelled, and a second request replaces the first', async () => {
    const t = setup();
    for (let i = 1; i <= 3; i++) await t.turn(`question ${i}`);
    const { running } = await t.startTurn('question 4');
    const first = t.session.commands.compactNow('one');
    const second = t.session.commands.compactNow('two');
    assert.deepEqual(await first, { ok: false, reason: 'Replaced by a newer compaction request.' });
    assert.ok(t.session.commands.cancelQueuedCompaction());
    assert.deepEqual(await second, { ok: false, reason: 'Cancelled.' });
    t.llm.gate();
    await running;
    assert.equal(t.session.compactions.length, 0, 'nothing ran');
  });
});
