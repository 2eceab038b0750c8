import { testCompactor } from './support/testCompactor';
import { strict as assert } from 'node:assert';
import type { ContextEngine } from '../../api/context-pipeline';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent } from '../../src/core/agent/events';
import { restoreRecord } from '../../src/core/compaction/apply';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { ConversationState } from '../../src/core/conversation/conversationModel';
import { engineCompaction } from '../../src/core/engine/engineCompaction';
import { EngineRegistry } from '../../src/core/engine/engineRegistry';
import { EngineSlot } from '../../src/core/engine/engineSlot';
import { counterIds } from '../../src/core/platform/platformPorts';
import { validateRequest } from '../../test/fake-anthropic/validateRequest';
import { agentDeps } from './support/agentDeps';
import { emptyState, fakeClock, testConfig } from './support/builders';
import { Convo, lines } from './support/compactionBuilders';
import { ScriptedLlm } from './support/scriptedLlm';

const answer = (text: string) => ({ content: [{ type: 'text' as const, text }] });

/** A session whose context engine is `engine` (registered as `test`), on a scripted model. */
function sessionWith(engine: ContextEngine, steps: ConstructorParameters<typeof ScriptedLlm>[0]) {
  const llm = new ScriptedLlm(steps);
  const base = agentDeps({ llm, ids: counterIds('e') });
  const registry = new EngineRegistry();
  registry.register('test', () => engine);
  const slot = new EngineSlot({
    registry,
    engineId: () => 'test',
    sessionId: 'sess',
    messageTokens: (ms) => ms.map((m) => base.estimator.estimate({ ...emptyState(), messages: [m] }).tokens),
    measure: (s) => base.estimator.estimate(s).tokens,
    now: () => base.clock.now(),
    sleep: () => new Promise(() => undefined),
  });
  const compactor = testCompactor(base, llm);
  const events: AgentEvent[] = [];
  const session = new AgentSession(emptyState({ config: testConfig() }), { ...base, compactor, engine: slot }, (e) =>
    events.push(e),
  );
  return { llm, session, events };
}

describe('a context engine in a session (core/agent + core/engine)', () => {
  it('sends what the engine assembles, keeps the whole history, and records the request sent', async () => {
    const newestOnly: ContextEngine = {
      info: { name: 'Newest only', ownsCompaction: true },
      assemble: (c) => ({ messages: c.messages.slice(-1) }),
    };
    const { llm, session, events } = sessionWith(newestOnly, [answer('one'), answer('two')]);
    await session.send('first question');
    await session.send('second question');
    assert.equal(llm.requests.length, 2);
    const second = JSON.stringify(llm.requests[1]?.messages);
    assert.ok(second.includes('second question') && !second.includes('first question'));
    for (const r of llm.requests) validateRequest(JSON.parse(JSON.stringify(r)), 'messages');
    assert.equal(session.state.messages.length, 4, 'the session keeps every message');
    const started = events.filter((e) => e.type === 'request_started');
    assert.deepEqual(
      started.map((e) => (e.type === 'request_started' ? e.engine?.name : undefined)),
      ['Newest only', 'Newest only'],
    );
    // The record of what was sent is the engine's selection, not the session's history.
    assert.equal(session.sentRequests.at(-1)?.sent.messages.length, 1);
  });

  it('Compact Now asks the engine, keeps its compaction restorable, and falls back when its answer cannot be used', async () => {
    let mode: 'good' | 'bad' = 'good';
    const compacting: ContextEngine = {
      info: { name: 'Summarising engine', ownsCompaction: false },
      assemble: (c) => ({ messages: c.messages }),
      compact: () =>
        mode === 'good' ? { from: 0, to: 2, summary: 'They talked about apples.' } : { from: 0, to: 99, summary: 'x' },
    };
    const { session, events } = sessionWith(compacting, [answer('one'), answer('two'), answer('summary by haiku')]);
    await session.send('first question, about apples');
    await session.send('second question');
    const before = session.state.messages;
    const done = await session.commands.compactNow();
    assert.ok(done.ok, JSON.stringify(done));
    const entry = session.compactions.at(-1);
    assert.equal(entry?.record.strategy, 'engine test');
    assert.deepEqual(
      entry?.record.originals.map((m) => m.id),
      before.slice(0, 2).map((m) => m.id),
    );
    assert.ok(JSON.stringify(session.state.messages).includes('They talked about apples.'));
    assert.deepEqual(checkInvariants(session.state), []);
    const restored = await session.commands.restore(entry?.record.id ?? '');
    assert.ok(restored.ok, JSON.stringify(restored));
    assert.deepEqual(
      session.state.messages.map((m) => m.id),
      before.map((m) => m.id),
    );
    // An answer out of bounds: said, and the pipeline's own compaction runs instead.
    mode = 'bad';
    events.length = 0;
    await session.commands.compactNow();
    const notice = events.find((e) => e.type === 'notice' && e.text.includes('Summarising engine'));
    assert.ok(notice?.type === 'notice' && /not a run of the 4 messages/.test(notice.text), 'the fallback is said');
    assert.ok(
      events.some((e) => e.type === 'compaction_finished'),
      'the layered compaction ran',
    );
  });

  it('an engine compaction that splits a tool call from its result, holds pins, or leaves the bounds is refused', () => {
    const c = new Convo().user('read it').read('a.ts', lines(20)).say('ok').user('next');
    const state: ConversationState = c.state();
    const deps = { clock: fakeClock(), ids: counterIds('k'), tokensOf: () => 10 };
    // messages: 0 user, 1 assistant tool_use, 2 user tool_result, 3 assistant, 4 user
    const split = engineCompaction(state, { from: 0, to: 2, summary: 's' }, 'x', deps);
    assert.ok(!split.ok && /answers a tool call inside the range/.test(split.reason));
    const bounds = engineCompaction(state, { from: 3, to: 99, summary: 's' }, 'x', deps);
    assert.ok(!bounds.ok && /not a run of the 5 messages/.test(bounds.reason));
    const empty = engineCompaction(state, { from: 0, to: 4, summary: '  ' }, 'x', deps);
    assert.ok(!empty.ok && /summary is empty/.test(empty.reason));
    const good = engineCompaction(state, { from: 0, to: 4, summary: 'Read a.ts.' }, 'x', deps);
    assert.ok(good.ok);
    assert.deepEqual(checkInvariants(good.state), []);
    const back = restoreRecord(good.state, good.record);
    assert.ok(back.ok);
    assert.deepEqual(
      back.state.messages.map((m) => m.id),
      state.messages.map((m) => m.id),
    );
    const pinnedState: ConversationState = {
      ...state,
      messages: state.messages.map((m, i) =>
        i === 0 ? { ...m, blocks: m.blocks.map((b) => ({ ...b, meta: { ...b.meta, pinned: true } })) } : m,
      ),
    };
    const pinned = engineCompaction(pinnedState, { from: 0, to: 4, summary: 's' }, 'x', deps);
    assert.ok(!pinned.ok && /pinned/.test(pinned.reason));
  });
});
