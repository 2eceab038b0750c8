import { testCompactor } from './support/testCompactor';
import { strict as assert } from 'node:assert';
import type { LlmClient, LlmError, LlmResult } from '../../src/core/llm/llmClient';
import { AgentSession } from '../../src/core/agent/agentSession';
import { SessionCore } from '../../src/core/agent/sessionCore';
import type { CompactionRecord } from '../../src/core/compaction/types';
import type { AgentEvent } from '../../src/core/agent/events';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { counterIds } from '../../src/core/platform/platformPorts';
import { emptyState, testConfig } from './support/builders';
import { Counter } from './support/gate';
import { agentDeps } from './support/agentDeps';
import { nullSink } from './support/sessionSink';

const usage = { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

/** Chat answers wait for `release()` (one permit each, never lost to a race); the summariser answers at once. */
class HeldLlm implements LlmClient {
  readonly arrived = new Counter();
  private readonly waiting: Array<() => void> = [];
  private permits = 0;
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.permits++;
  }
  async stream(params: { model: string }): Promise<{ ok: true; result: LlmResult } | { ok: false; error: LlmError }> {
    const answer = (text: string): { ok: true; result: LlmResult } => ({
      ok: true,
      result: { content: [{ type: 'text', text }], stopReason: 'end_turn', model: params.model, usage },
    });
    if (params.model === 'claude-haiku-4-5') return answer('Summary of the earlier turns.');
    this.arrived.bump();
    if (this.permits > 0) this.permits--;
    else await new Promise<void>((r) => this.waiting.push(r));
    return answer('An answer that is long enough to be worth summarising later on. '.repeat(20));
  }
}

/** A session with a real compactor and a sink whose compaction and restore saves fail while `fail` says so. */
function setup() {
  const llm = new HeldLlm();
  const fail: { compaction: boolean; restore: boolean; compactionId?: string } = { compaction: false, restore: false };
  const saved: string[] = [];
  const events: AgentEvent[] = [];
  const base = agentDeps({
    llm,
    sink: nullSink({
      compaction: async (r: CompactionRecord) => {
        if (fail.compaction || fail.compactionId === r.id) throw new Error('disk full');
        saved.push(`compaction ${r.id}`);
      },
      restore: async (id: string) => {
        if (fail.restore) throw new Error('disk full');
        saved.push(`restore ${id}`);
      },
    }),
    ids: counterIds('s'),
  });
  const compactor = testCompactor(base, llm);
  const deps = { ...base, compactor };
  const session = new AgentSession(
    emptyState({ config: testConfig({ keepRecentTurns: 1, keepRecentTokens: 0 }) }),
    deps,
    (e) => events.push(e),
  );
  const turns = async (n: number) => {
    for (let i = 1; i <= n; i++) {
      const p = session.send(`question ${i}`);
      llm.release();
      assert.deepEqual(await p, { ok: true });
    }
  };
  return { session, deps, llm, compactor, fail, saved, events, turns };
}

const errors = (events: readonly AgentEvent[]) => events.flatMap((e) => (e.type === 'error' ? [e.error.message] : []));

describe('AgentSession: queued commands settle, and compaction and restore save first', () => {
  it('a queued compaction whose compactor throws settles with the reason, reports it, and leaves the session usable', async () => {
    const t = setup();
    await t.turns(3);
    const arrived = t.llm.arrived.reached(t.llm.arrived.count + 1);
    const running = t.session.send('question 4');
    await arrived;
    const queued = t.session.commands.compactNow('focus on question 2');
    assert.ok(t.session.commands.compactionQueued);
    const compact = t.compactor.compact.bind(t.compactor);
    t.compactor.compact = () => Promise.reject(new Error('summariser exploded'));
    t.llm.release();
    await running;
    const result = await queued;
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.reason, /The compaction failed: summariser exploded/);
    assert.ok(
      errors(t.events).some((m) => /summariser exploded/.test(m)),
      'the failure is emitted as an error',
    );
    const last = t.events.at(-1);
    assert.deepEqual(last, { type: 'compaction_finished', records: [], notices: [] }, 'progress ends');
    assert.equal(t.session.compactions.length, 0);
    assert.equal(t.session.state.messages.length, 8, 'the four turns are all there');
    assert.ok(!t.session.busy && !t.session.commands.compactionQueued);
    t.compactor.compact = compact;
    const next = t.session.send('question 5');
    t.llm.release();
    assert.deepEqual(await next, { ok: true });
    assert.deepEqual(await t.session.commands.compactNow(), { ok: true }, 'a later compaction runs');
    assert.deepEqual(checkInvariants(t.session.state), []);
  });

  it('a compaction that cannot be saved is not applied, and the error is reported', async () => {
    const t = setup();
    await t.turns(3);
    const before = t.session.state;
    t.fail.compaction = true;
    const r = await t.session.commands.compactNow();
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.reason, /could not be saved, so it was not applied: disk full/);
    assert.ok(errors(t.events).some((m) => /disk full/.test(m)));
    assert.equal(t.session.state, before, 'the conversation is unchanged');
    assert.equal(t.session.compactions.length, 0);
    assert.ok(!t.events.some((e) => e.type === 'history_replaced'));
    t.fail.compaction = false;
    assert.deepEqual(await t.session.commands.compactNow(), { ok: true }, 'it works once the sink does');
    assert.equal(t.session.compactions.length, 1);
  });

  it('a restore that cannot be saved changes nothing and says why; once the sink works it restores', async () => {
    const t = setup();
    await t.turns(3);
    const original = t.session.state.messages;
    assert.deepEqual(await t.session.commands.compactNow(), { ok: true });
    const compacted = t.session.state;
    const id = t.session.compactions[0]?.record.id ?? '';
    t.fail.restore = true;
    const r = await t.session.commands.restore(id);
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.reason, /could not be saved, so nothing was changed: disk full/);
    assert.equal(t.session.state, compacted);
    assert.equal(t.session.compactions[0]?.active, true);
    assert.ok(!t.events.some((e) => e.type === 'restored'));
    t.fail.restore = false;
    assert.deepEqual(await t.session.commands.restore(id), { ok: true });
    assert.deepEqual(t.session.state.messages, original);
    assert.equal(t.session.compactions[0]?.active, false);
    assert.deepEqual(t.saved, [`compaction ${id}`, `restore ${id}`]);
  });

  it('an automatic compaction that cannot be saved before a request ends the turn with the error; Retry goes on', async () => {
    const t = setup();
    await t.turns(3);
    const compact = t.compactor.compact.bind(t.compactor);
    t.compactor.beforeRequest = (state, opts) =>
      compact(state, { trigger: 'auto-soft', tokensToFree: 'all', signal: opts.signal });
    const requests = t.llm.arrived.count;
    t.fail.compaction = true;
    assert.deepEqual(await t.session.send('question 4'), { ok: true });
    assert.equal(t.llm.arrived.count, requests, 'nothing was sent');
    assert.deepEqual(t.events.filter((e) => e.type === 'turn_finished').at(-1), {
      type: 'turn_finished',
      reason: 'error',
    });
    assert.ok(errors(t.events).some((m) => /could not be saved/.test(m)));
    assert.equal(t.session.compactions.length, 0);
    assert.equal(t.session.state.messages.length, 7, 'the three turns and the unanswered question');
    assert.equal(t.session.state.messages.at(-1)?.role, 'user');
    t.fail.compaction = false;
    const retried = t.session.retry();
    t.llm.release();
    assert.deepEqual(await retried, { ok: true });
    assert.equal(t.session.compactions.length, 1);
    assert.deepEqual(checkInvariants(t.session.state), []);
  });

  it('when the second record of a pass cannot be saved, the first is undone in the file and memory is unchanged', async () => {
    const t = setup();
    const events: AgentEvent[] = [];
    const state = emptyState();
    const core = new SessionCore(state, t.deps, (e) => events.push(e), []);
    const record = (id: string): CompactionRecord => ({
      id,
      at: 1,
      trigger: 'auto-soft',
      layer: 'snip',
      strategy: 'summarise',
      regions: [],
      originals: [],
      replacement: [],
      tokensBefore: 2,
      tokensAfter: 1,
      costUsd: 0,
      durationMs: 0,
      fallbacks: [],
    });
    t.fail.compactionId = 'c2';
    const r = await core.adopt(emptyState({ system: [] }), [record('c1'), record('c2')], ['a notice']);
    assert.equal(r.ok, false);
    assert.deepEqual(t.saved, ['compaction c1', 'restore c1']);
    assert.equal(core.state, state);
    assert.deepEqual(core.compactions, []);
    assert.deepEqual(
      events.map((e) => e.type),
      ['error', 'compaction_finished'],
    );
  });
});
