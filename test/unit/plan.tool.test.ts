import { strict as assert } from 'node:assert';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent } from '../../src/core/agent/events';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { counterIds } from '../../src/core/platform/platformPorts';
import { PLAN_MAX_STEPS, planResultText } from '../../src/core/plan/plan';
import type { Plan } from '../../src/core/conversation/conversationModel';
import { UPDATE_PLAN_SPEC } from '../../src/core/plan/planSpec';
import { callSummary } from '../../src/core/tools/callSummary';
import { bindTool } from '../../src/core/tools/toolDefinition';
import { fakeClock } from './support/builders';
import { Convo } from './support/compactionBuilders';
import { agentDeps } from './support/agentDeps';
import { FakeTools, ScriptedLlm } from './support/scriptedLlm';
import { nullSink } from './support/sessionSink';
import { planMessage } from '../../src/host/chat/planMessage';
import { parseChatToHost, parseChatToWebview } from '../../src/protocol/chat';

const steps = (...s: Array<[string, Plan['steps'][number]['status'], string?]>) =>
  s.map(([step, status, note]) => ({ step, status, ...(note !== undefined ? { note } : {}) }));

const check = (input: unknown) => UPDATE_PLAN_SPEC.validate(input);
const errorOf = (input: unknown) => {
  const r = check(input);
  assert.ok(!r.ok, 'refused');
  return r.error;
};

describe('update_plan: the input check and the result', () => {
  it('takes the whole list, trims words onto one line and drops a blank note', () => {
    const r = check({
      steps: [
        { step: '  Read\nthe code ', status: 'completed', note: '  ' },
        { step: 'Fix', status: 'in_progress' },
      ],
    });
    assert.ok(r.ok);
    assert.deepEqual(r.input.steps, steps(['Read the code', 'completed'], ['Fix', 'in_progress']));
  });

  it('refuses two steps in progress, naming them', () => {
    const e = errorOf({ steps: steps(['a', 'in_progress'], ['b', 'pending'], ['c', 'in_progress']) });
    assert.match(e, /steps 1, 3 are all in_progress; at most one step may be in progress/);
  });

  it('refuses an empty list, too many steps, long words and notes, blank steps, bad statuses and unknown fields', () => {
    assert.match(errorOf({ steps: [] }), /"steps" is empty/);
    assert.match(errorOf({}), /"steps" must be an array/);
    assert.match(errorOf({ steps: [], extra: 1 }), /unknown parameter "extra"/);
    const many = Array.from({ length: PLAN_MAX_STEPS + 1 }, (_, i) => ({ step: `s${i}`, status: 'pending' }));
    assert.match(errorOf({ steps: many }), /31 steps is too many \(at most 30\)/);
    assert.match(
      errorOf({ steps: [{ step: 'x'.repeat(201), status: 'pending' }] }),
      /step 1 is 201 characters \(at most 200\)/,
    );
    assert.match(
      errorOf({ steps: [{ step: 'ok', status: 'pending', note: 'n'.repeat(301) }] }),
      /the note of step 1 is 301 characters \(at most 300\)/,
    );
    assert.match(errorOf({ steps: [{ step: ' \n ', status: 'pending' }] }), /step 1 has no words/);
    assert.match(errorOf({ steps: [{ step: 'a', status: 'done' }] }), /step 1 must be an object/);
    assert.match(errorOf({ steps: [{ step: 'a', status: 'pending', owner: 'me' }] }), /unknown field "owner"/);
    assert.match(errorOf('steps'), /must be a JSON object/);
  });

  it('answers in one short line and never echoes the plan', () => {
    const plan = {
      steps: steps(['Read the code', 'completed'], ['Write the tests', 'in_progress'], ['Update docs', 'pending']),
    };
    assert.equal(planResultText(plan), 'Plan updated: 1 of 3 done; in progress: Write the tests.');
    assert.equal(
      planResultText({ steps: steps(['a', 'completed'], ['b', 'pending']) }),
      'Plan updated: 1 of 2 done; no step is in progress (mark the one you work on in_progress).',
    );
    assert.equal(
      planResultText({ steps: steps(['a', 'completed']) }),
      'Plan updated: 1 of 1 done. Every step is completed.',
    );
    assert.ok(!planResultText(plan).includes('Update docs'));
  });

  it('the chat row says how far the plan is', () => {
    const def = bindTool(UPDATE_PLAN_SPEC, async () => ({ content: '', isError: false }));
    assert.equal(
      callSummary(def, 'update_plan', { steps: steps(['a', 'completed'], ['b', 'in_progress']) }),
      'Plan: 1 of 2 done',
    );
  });
});

describe('update_plan in the agent loop', () => {
  function world(steps2: ConstructorParameters<typeof ScriptedLlm>[0], failSave = false) {
    const saved: Array<{ plan?: Plan; toolUseId?: string }> = [];
    const sink = nullSink({
      plan: async (p) => {
        if (failSave) throw new Error('disk full');
        saved.push({ ...(p.plan ? { plan: p.plan } : {}), ...(p.toolUseId ? { toolUseId: p.toolUseId } : {}) });
      },
    });
    const llm = new ScriptedLlm(steps2);
    const tools = new FakeTools({});
    const events: AgentEvent[] = [];
    const session = new AgentSession(
      new Convo().state(),
      agentDeps({ llm, tools, sink, clock: fakeClock(), ids: counterIds('p') }),
      (e) => events.push(e),
    );
    return { session, llm, tools, events, saved };
  }
  const resultOf = (llm: ScriptedLlm, i: number) => {
    const last = llm.requests[i]?.messages.at(-1);
    const block = Array.isArray(last?.content) ? last.content.find((b) => b.type === 'tool_result') : undefined;
    return block?.type === 'tool_result'
      ? { text: String(block.content), isError: block.is_error === true }
      : undefined;
  };
  const plan3 = steps(['Read', 'completed'], ['Fix', 'in_progress'], ['Test', 'pending']);

  it('a call saves the plan first, makes it the session state and tells the views; the workspace tools never see it', async () => {
    const w = world([
      { content: [{ type: 'tool_use', id: 'toolu_p1', name: 'update_plan', input: { steps: plan3 } }] },
      { content: [{ type: 'text', text: 'On it.' }] },
    ]);
    assert.deepEqual(await w.session.send('Fix the bug'), { ok: true });
    assert.deepEqual(w.session.plan, { steps: plan3 });
    assert.deepEqual(w.saved, [{ plan: { steps: plan3 }, toolUseId: 'toolu_p1' }]);
    assert.deepEqual(
      w.events.filter((e) => e.type === 'plan_changed'),
      [{ type: 'plan_changed', plan: { steps: plan3 } }],
    );
    assert.deepEqual(w.tools.calls, []);
    assert.deepEqual(resultOf(w.llm, 1), { text: 'Plan updated: 1 of 3 done; in progress: Fix.', isError: false });
    assert.deepEqual(checkInvariants(w.session.state), []);
  });

  it('a refused input and a failed save leave the plan as it was, with an error result saying why', async () => {
    const bad = world([
      {
        content: [
          {
            type: 'tool_use',
            id: 'toolu_b',
            name: 'update_plan',
            input: { steps: steps(['a', 'in_progress'], ['b', 'in_progress']) },
          },
        ],
      },
      { content: [{ type: 'text', text: 'ok' }] },
    ]);
    await bad.session.send('go');
    assert.equal(bad.session.plan, undefined);
    assert.equal(resultOf(bad.llm, 1)?.isError, true);
    assert.match(resultOf(bad.llm, 1)?.text ?? '', /at most one step may be in progress/);

    const full = world(
      [
        { content: [{ type: 'tool_use', id: 'toolu_f', name: 'update_plan', input: { steps: plan3 } }] },
        { content: [{ type: 'text', text: 'ok' }] },
      ],
      true,
    );
    await full.session.send('go');
    assert.equal(full.session.plan, undefined);
    assert.match(resultOf(full.llm, 1)?.text ?? '', /could not be saved \(disk full\), so it was not updated/);
    assert.deepEqual(
      full.events.filter((e) => e.type === 'plan_changed'),
      [],
    );
  });

  it("the user's Clear is saved and told; clearing no plan does nothing", async () => {
    const w = world([
      { content: [{ type: 'tool_use', id: 'toolu_p1', name: 'update_plan', input: { steps: plan3 } }] },
      { content: [{ type: 'text', text: 'On it.' }] },
    ]);
    await w.session.send('Fix the bug');
    assert.deepEqual(await w.session.clearPlan(), { ok: true });
    assert.equal(w.session.plan, undefined);
    assert.equal(w.session.state.plan, undefined);
    assert.deepEqual(w.saved.at(-1), {});
    assert.deepEqual(w.events.at(-1), { type: 'plan_changed' });
    const before = w.saved.length;
    assert.deepEqual(await w.session.clearPlan(), { ok: true });
    assert.equal(w.saved.length, before);
  });

  it('Claude is told of a Clear once, with the next message', async () => {
    const said = (r: (typeof w.llm.requests)[number] | undefined) =>
      JSON.stringify(r?.messages.at(-1)).split('The user cleared your plan').length - 1;
    const w = world([
      { content: [{ type: 'tool_use', id: 'toolu_p1', name: 'update_plan', input: { steps: plan3 } }] },
      { content: [{ type: 'text', text: 'On it.' }] },
      { content: [{ type: 'text', text: 'Plan dropped.' }] },
      { content: [{ type: 'text', text: 'Next.' }] },
    ]);
    await w.session.send('Fix the bug');
    await w.session.clearPlan();
    await w.session.send('Forget that plan');
    assert.equal(said(w.llm.requests[2]), 1, 'the reminder goes with the message after the Clear');
    assert.match(JSON.stringify(w.llm.requests[2]?.messages.at(-1)), /<system-reminder>/);
    await w.session.send('And now?');
    assert.equal(said(w.llm.requests[3]), 0, 'once');
    assert.deepEqual(checkInvariants(w.session.state), []);
  });
});

describe('the plan between the host and the chat', () => {
  it('the checklist message carries the steps and the progress words, and validates; no plan hides it', () => {
    const plan = { steps: steps(['Read', 'completed'], ['Fix', 'in_progress', 'a note'], ['Test', 'pending']) };
    const m = planMessage(plan);
    assert.deepEqual(m, { type: 'plan', steps: plan.steps, progress: '1 of 3 done' });
    assert.deepEqual(parseChatToWebview(m), { ok: true, value: m });
    assert.deepEqual(planMessage(undefined), { type: 'plan' });
    assert.ok(parseChatToWebview({ type: 'plan' }).ok);
    assert.ok(!parseChatToWebview({ type: 'plan', steps: [] }).ok, 'an empty list is no plan');
    assert.ok(!parseChatToWebview({ type: 'plan', steps: [{ step: 'a', status: 'done' }] }).ok);
  });

  it("the user's Clear is a typed message with nothing else in it", () => {
    assert.deepEqual(parseChatToHost({ type: 'clearPlan' }), { ok: true, value: { type: 'clearPlan' } });
    assert.ok(!parseChatToHost({ type: 'clearPlan', steps: [] }).ok);
  });
});
