import { strict as assert } from 'node:assert';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent } from '../../src/core/agent/events';
import type { LlmClient } from '../../src/core/llm/llmClient';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { counterIds } from '../../src/core/platform/platformPorts';
import { requestCostUsd } from '../../src/core/llm/cost';
import { NESTED_TASK_REFUSED } from '../../src/core/subagents/childTools';
import { SUBAGENT_PROMPT } from '../../src/core/subagents/subagentPrompt';
import type { SubagentRecord } from '../../src/core/subagents/subagentRecord';
import { TASK_SPEC } from '../../src/core/subagents/taskSpec';
import { agentDeps } from './support/agentDeps';
import { fakeClock, testConfig } from './support/builders';
import { Counter, Gate } from './support/gate';
import { FakeTools, ScriptedLlm, type Step } from './support/scriptedLlm';
import { nullSink } from './support/sessionSink';
import { TestLauncher } from './support/subagentHarness';

const task = (id: string, description: string, prompt = `Look into ${description}`) => ({
  type: 'tool_use' as const,
  id,
  name: 'task',
  input: { description, prompt },
});
const read = (id: string, path: string) => ({ type: 'tool_use' as const, id, name: 'read_file', input: { path } });
const text = (t: string) => ({ type: 'text' as const, text: t });

/** A child that reads one file, then reports `report`. */
const explorer = (file: string, report: string, usage = { input_tokens: 1000, output_tokens: 100 }): Step[] => [
  { content: [read(`toolu_r_${file}`, file)], usage },
  { content: [text(report)], usage },
];

/** Every user message's text and tool results of a request, as one string. */
const requestText = (r: MessageCreateParamsNonStreaming | undefined) => JSON.stringify(r?.messages ?? []);

/** A parent session with `launcher`; its events recorded. */
function parent(llm: LlmClient, launcher: TestLauncher, over: Parameters<typeof agentDeps>[0] = {}) {
  const events: AgentEvent[] = [];
  const saved: SubagentRecord[] = [];
  const session = new AgentSession(
    {
      system: [],
      tools: [TASK_SPEC.schema],
      messages: [],
      pending: [],
      config: testConfig(),
    },
    agentDeps({
      llm,
      tools: new FakeTools({}),
      subagents: launcher,
      sink: nullSink({ subagent: async (r) => void saved.push(r) }),
      ids: counterIds('p'),
      clock: fakeClock(),
      ...over,
    }),
    (e) => events.push(e),
  );
  return { session, events, saved };
}

describe('subagents (task): isolation, reports and the bill', () => {
  it('runs two subagents in their own contexts: the parent request after them holds only their reports', async () => {
    const childA = new ScriptedLlm(explorer('a.ts', 'A: sessions are saved in store.ts:42.'));
    const childB = new ScriptedLlm(explorer('b.ts', 'B: the lock is in lock.ts:7.'));
    const secretA = 'CONTENT-OF-A '.repeat(50);
    const launcher = new TestLauncher([
      { llm: childA, tools: new FakeTools({ read_file: secretA }) },
      { llm: childB, tools: new FakeTools({ read_file: 'CONTENT-OF-B' }) },
    ]);
    const llm = new ScriptedLlm([
      { content: [text('Two questions.'), task('toolu_1', 'Find A'), task('toolu_2', 'Find B')] },
      { content: [text('Done.')] },
    ]);
    const { session, events, saved } = parent(llm, launcher);
    assert.deepEqual(await session.send('Explore'), { ok: true });

    const after = llm.requests[1];
    assert.ok(after);
    const seen = requestText(after);
    assert.match(seen, /A: sessions are saved in store\.ts:42\./);
    assert.match(seen, /B: the lock is in lock\.ts:7\./);
    assert.doesNotMatch(seen, /CONTENT-OF-A|CONTENT-OF-B/, 'the children read the files; the parent sees only reports');
    // The child's own request: the subagent prompt, its tools (no task), the task as its user message.
    const first = childA.requests[0];
    assert.ok(first);
    assert.match(JSON.stringify(first.system), new RegExp(SUBAGENT_PROMPT.slice(0, 40)));
    assert.deepEqual(
      first.tools?.map((t) => ('name' in t ? t.name : '')),
      ['read_file', 'search'],
    );
    assert.match(requestText(first), /Look into Find A/);
    assert.doesNotMatch(requestText(first), /Explore/, 'the child sees nothing of the parent conversation');
    assert.deepEqual(launcher.closed, ['child-1', 'child-2']);
    assert.deepEqual(checkInvariants(session.state), []);

    // The bill: one record per subagent, its requests summed, priced at its own model.
    assert.equal(saved.length, 2);
    const a = saved.find((r) => r.toolUseId === 'toolu_1');
    assert.ok(a);
    assert.equal(a.state, 'done');
    assert.equal(a.requests, 2);
    assert.equal(a.rounds, 2);
    assert.equal(a.toolCalls, 1);
    assert.equal(a.usage.input_tokens, 2000);
    assert.equal(a.usage.output_tokens, 200);
    const one = requestCostUsd('claude-haiku-4-5', {
      input_tokens: 1000,
      output_tokens: 100,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    assert.ok(one !== undefined && a.costUsd !== undefined);
    assert.ok(Math.abs(a.costUsd - 2 * one) < 1e-12);
    const finished = events.filter((e) => e.type === 'subagent_finished');
    assert.equal(finished.length, 2);
    // The parent's own usage events are its two requests only.
    assert.equal(events.filter((e) => e.type === 'usage').length, 2);
    // Progress went to the parent's views while the children ran.
    assert.ok(events.some((e) => e.type === 'subagent_progress' && e.figures.toolCalls === 1));
  });

  it('runs the task calls of one round at the same time, at most maxConcurrent of them', async () => {
    const active = { now: 0, most: 0 };
    const started = new Counter();
    const release = new Gate();
    /** A child model that holds its first request until `release`, counting how many are held at once. */
    const held = (report: string): LlmClient => {
      const inner = new ScriptedLlm([{ content: [text(report)] }]);
      return {
        stream: async (params, opts) => {
          active.now++;
          active.most = Math.max(active.most, active.now);
          started.bump();
          await release.wait();
          active.now--;
          return inner.stream(params, opts);
        },
      };
    };
    const run = async (limit: number, n: number) => {
      active.now = 0;
      active.most = 0;
      const launcher = new TestLauncher(
        Array.from({ length: n }, (_, i) => ({ llm: held(`report ${i}`) as ScriptedLlm, tools: new FakeTools({}) })),
      );
      launcher.settingsValue = { ...launcher.settingsValue, maxConcurrent: limit };
      const llm = new ScriptedLlm([
        { content: Array.from({ length: n }, (_, i) => task(`toolu_${i}`, `Part ${i}`)) },
        { content: [text('ok')] },
      ]);
      const { session } = parent(llm, launcher);
      const sent = session.send('go');
      await started.reached(started.count + Math.min(limit, n));
      release.open();
      await sent;
      return llm.requests[1];
    };
    const after = await run(3, 3);
    assert.equal(active.most, 3, 'three subagents were in flight together');
    // Results keep the calls' order.
    const results = requestText(after);
    assert.ok(results.indexOf('report 0') < results.indexOf('report 1'));
    assert.ok(results.indexOf('report 1') < results.indexOf('report 2'));
    await run(1, 2);
    assert.equal(active.most, 1, 'one slot: one subagent at a time');
  });

  it('Stop while subagents run stops them all; the parent gets cancelled results and the next request is valid', async () => {
    const childA = new ScriptedLlm([{ hangUntilAbort: true }]);
    const childB = new ScriptedLlm([{ content: [read('toolu_rb', 'b.ts')] }, { hangUntilAbort: true }]);
    const launcher = new TestLauncher([
      { llm: childA, tools: new FakeTools({}) },
      { llm: childB, tools: new FakeTools({ read_file: 'b' }) },
    ]);
    const llm = new ScriptedLlm([
      { content: [task('toolu_1', 'A'), task('toolu_2', 'B')] },
      { content: [text('Fine, stopped.')] },
    ]);
    const { session, saved } = parent(llm, launcher);
    const sent = session.send('go');
    await childA.hanging.reached(1);
    await childB.hanging.reached(1);
    session.stop();
    await sent;
    assert.equal(session.busy, false);
    const results = session.state.messages.flatMap((m) => m.blocks.filter((b) => b.type === 'tool_result'));
    assert.equal(results.length, 2);
    for (const r of results) {
      assert.ok(r.type === 'tool_result' && r.isError);
      assert.match(String(r.type === 'tool_result' ? r.content : ''), /^Cancelled/);
    }
    assert.deepEqual(
      saved.map((r) => r.state),
      ['stopped', 'stopped'],
    );
    assert.deepEqual(launcher.closed.sort(), ['child-1', 'child-2']);
    assert.deepEqual(checkInvariants(session.state), []);
    // The next turn is a valid request.
    assert.deepEqual(await session.send('and now?'), { ok: true });
    assert.deepEqual(checkInvariants(session.state), []);
  });

  it('a subagent that fails, hits its round limit or cannot start is an error result; the parent turn goes on', async () => {
    const failing = new ScriptedLlm([
      { error: { kind: 'overloaded', message: 'Claude is overloaded.', retryable: true } },
    ]);
    const looping = new ScriptedLlm(
      Array.from({ length: 3 }, (_, i) => ({ content: [text(`Still looking ${i}.`), read(`toolu_l${i}`, 'x.ts')] })),
    );
    const launcher = new TestLauncher([
      { llm: failing, tools: new FakeTools({}) },
      { llm: looping, tools: new FakeTools({ read_file: 'x' }) },
    ]);
    launcher.settingsValue = { ...launcher.settingsValue, maxRounds: 2 };
    const llm = new ScriptedLlm([
      { content: [task('toolu_1', 'Fails'), task('toolu_2', 'Loops')] },
      { content: [task('toolu_3', 'Cannot start')] },
      { content: [text('I will do it myself.')] },
    ]);
    const { session, saved } = parent(llm, launcher);
    await session.send('go');
    const second = requestText(llm.requests[1]);
    assert.match(second, /The subagent failed: Claude is overloaded\./);
    assert.match(
      second,
      /stopped after 2 tool rounds \(contextPipeline\.subagents\.maxRounds\)[^"]*Its last words:\\nStill looking 1\./,
    );
    assert.match(requestText(llm.requests[2]), /The subagent could not start: no child script left/);
    assert.deepEqual(
      saved.map((r) => r.state),
      ['failed', 'failed'],
    );
    assert.equal(session.busy, false);
    assert.deepEqual(checkInvariants(session.state), []);
  });

  it('refuses a subagent that cannot be opened, in words', async () => {
    const launcher = new TestLauncher([]);
    launcher.failOpen = 'its session file could not be created (disk full).';
    const llm = new ScriptedLlm([{ content: [task('toolu_1', 'X')] }, { content: [text('ok')] }]);
    const { session, saved } = parent(llm, launcher);
    await session.send('go');
    assert.match(
      requestText(llm.requests[1]),
      /The subagent could not start: its session file could not be created \(disk full\)\./,
    );
    assert.deepEqual(saved, [], 'nothing ran, nothing is billed');
  });

  it('a subagent cannot start subagents: its task call is refused with the depth limit', async () => {
    const child = new ScriptedLlm([
      { content: [task('toolu_nested', 'Deeper')] },
      { content: [text('Could not delegate; here is what I know.')] },
    ]);
    const launcher = new TestLauncher([{ llm: child, tools: new FakeTools({}) }]);
    const llm = new ScriptedLlm([{ content: [task('toolu_1', 'Top')] }, { content: [text('ok')] }]);
    const { session } = parent(llm, launcher);
    await session.send('go');
    assert.equal(launcher.opened.length, 1, 'only the parent opened a subagent');
    assert.ok(requestText(child.requests[1]).includes(JSON.stringify(NESTED_TASK_REFUSED).slice(1, -1)));
    assert.match(requestText(llm.requests[1]), /Could not delegate/);
  });

  it('a record that cannot be saved is still shown, with the reason; the turn goes on', async () => {
    const launcher = new TestLauncher([{ llm: new ScriptedLlm([{ content: [text('r')] }]), tools: new FakeTools({}) }]);
    const llm = new ScriptedLlm([{ content: [task('toolu_1', 'X')] }, { content: [text('ok')] }]);
    const { session, events } = parent(llm, launcher, {
      sink: nullSink({
        subagent: async () => {
          throw new Error('EACCES');
        },
      }),
    });
    assert.deepEqual(await session.send('go'), { ok: true });
    const finished = events.find((e) => e.type === 'subagent_finished');
    assert.ok(finished?.type === 'subagent_finished');
    assert.match(finished.notSaved ?? '', /could not be saved to the session file \(EACCES\)/);
  });
});
