import { strict as assert } from 'node:assert';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent } from '../../src/core/agent/events';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { counterIds } from '../../src/core/platform/platformPorts';
import type { Plan } from '../../src/core/conversation/conversationModel';
import { latestPlanIn, planBefore } from '../../src/core/plan/planHistory';
import { replaySession } from '../../src/core/session/replay';
import { agentDeps } from './support/agentDeps';
import { Build, fakeClock } from './support/builders';
import { Convo } from './support/compactionBuilders';
import { FakeTools, ScriptedLlm } from './support/scriptedLlm';
import { sampleHeader } from './support/sessionSamples';
import { nullSink } from './support/sessionSink';

const A: Plan = {
  steps: [
    { step: 'Read', status: 'in_progress' },
    { step: 'Fix', status: 'pending' },
  ],
};
const B: Plan = {
  steps: [
    { step: 'Read', status: 'completed' },
    { step: 'Fix', status: 'in_progress' },
  ],
};
const call = (id: string, plan: Plan) => ({ type: 'tool_use' as const, id, name: 'update_plan', input: plan });
const text = (t: string) => ({ type: 'text' as const, text: t });

/** A session whose clock moves a second before each message, recording the plan lines saved. */
function world(script: ConstructorParameters<typeof ScriptedLlm>[0]) {
  const clock = fakeClock();
  const saved: Array<Plan | undefined> = [];
  const events: AgentEvent[] = [];
  const session = new AgentSession(
    new Convo().state(),
    agentDeps({
      llm: new ScriptedLlm(script),
      tools: new FakeTools({}),
      clock,
      ids: counterIds('r'),
      sink: nullSink({ plan: async (p) => void saved.push(p.plan) }),
    }),
    (e) => events.push(e),
  );
  const send = async (words: string) => {
    clock.advance(1_000);
    return session.send(words);
  };
  const lastUser = () =>
    [...session.state.messages].reverse().find((m) => m.role === 'user' && m.blocks.some((b) => b.type === 'text'));
  return { session, clock, saved, events, send, lastUser };
}

describe('the plan follows Retry and Edit of the last turn', () => {
  it('Retry puts back the plan from before the turn; restoring the turn brings its plan back', async () => {
    const w = world([
      { content: [call('toolu_a', A)] },
      { content: [text('Planned.')] },
      { content: [call('toolu_b', B)] },
      { content: [text('Read it.')] },
      { content: [text('Second try, no plan change.')] },
    ]);
    await w.send('Fix the bug');
    await w.send('Go on');
    assert.deepEqual(w.session.plan, B);
    const last = w.lastUser();
    assert.ok(last);
    w.clock.advance(1_000);
    assert.deepEqual(await w.session.retryLast(last.id), { ok: true });
    assert.deepEqual(w.session.plan, A, 'back to the plan before the retried turn');
    assert.deepEqual(w.saved.at(-1), A, 'saved first');
    assert.ok(w.events.some((e) => e.type === 'notice' && e.text === 'The plan is back as it was before that turn.'));
    assert.ok(w.events.some((e) => e.type === 'plan_changed' && JSON.stringify(e.plan) === JSON.stringify(A)));
    const rewind = w.session.compactions.at(-1)?.record;
    assert.equal(rewind?.layer, 'rewind');
    w.clock.advance(1_000);
    assert.deepEqual(await w.session.commands.restore(rewind?.id ?? ''), { ok: true });
    assert.deepEqual(w.session.plan, B, "the restored turn's plan");
    assert.deepEqual(checkInvariants(w.session.state), []);
  });

  it('Edit of a turn that made the first plan clears it; a turn that did not change the plan leaves it', async () => {
    const w = world([
      { content: [call('toolu_a', A)] },
      { content: [text('Planned.')] },
      { content: [text('Edited answer.')] },
      { content: [text('A question answered.')] },
      { content: [text('Retried answer.')] },
    ]);
    await w.send('Fix the bug');
    const first = w.lastUser();
    assert.ok(first);
    w.clock.advance(1_000);
    assert.deepEqual(await w.session.editLast(first.id, 'Fix the other bug'), { ok: true });
    assert.equal(w.session.plan, undefined, 'the plan came with the turn taken back');
    assert.deepEqual(w.saved.at(-1), undefined);
    const before = w.saved.length;
    await w.send('What is it?');
    const q = w.lastUser();
    assert.ok(q);
    w.clock.advance(1_000);
    await w.session.retryLast(q.id);
    assert.equal(w.saved.length, before, 'no plan line for a turn that changed no plan');
  });

  it('reads the changes back from the session file, and finds the plan of the newest call that succeeded', () => {
    const r = replaySession([
      sampleHeader(),
      { type: 'plan', at: 10, steps: [...A.steps], toolUseId: 'toolu_a' },
      { type: 'plan', at: 20, steps: [] },
      { type: 'plan', at: 30, steps: [...B.steps], toolUseId: 'toolu_b' },
    ]);
    assert.deepEqual(r.planChanges, [
      { at: 10, plan: A, toolUseId: 'toolu_a' },
      { at: 20 },
      { at: 30, plan: B, toolUseId: 'toolu_b' },
    ]);
    assert.deepEqual(planBefore(r.planChanges, 25), undefined, 'cleared at 20');
    assert.deepEqual(planBefore(r.planChanges, 15), A);
    const b = new Build('h');
    const good = b.toolUse('update_plan', A);
    const refused = b.toolUse('update_plan', B);
    const messages = [
      b.message('assistant', [good], 1),
      b.message('user', [b.toolResult(good.id, 'Plan updated.')], 1),
      b.message('assistant', [refused], 1),
      b.message('user', [{ ...b.toolResult(refused.id, 'update_plan: could not be saved'), isError: true }], 1),
    ];
    assert.deepEqual(latestPlanIn(messages), A, 'a call whose result was an error made no plan');
    assert.equal(latestPlanIn(messages.slice(0, 0)), undefined);
  });
});
