import { strict as assert } from 'node:assert';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent } from '../../src/core/agent/events';
import type { Message } from '../../src/core/conversation/conversationModel';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { INTERRUPTED_CALL } from '../../src/core/normalize/standInAnswers';
import { agentDeps } from './support/agentDeps';
import { emptyState } from './support/builders';
import { testCompactor } from './support/compactionBuilders';
import { FakeTools, ScriptedLlm, type Step } from './support/scriptedLlm';
import { nullSink } from './support/sessionSink';

const DISK_FULL = 'ENOSPC: no space left on device, write';
const say = (text: string): Step => ({ content: [{ type: 'text', text }] });
const call = (id: string, name: string): Step => ({ content: [{ type: 'tool_use', id, name, input: {} }] });

/**
 * A session whose sink keeps the messages it saved (the session file) and rejects the
 * message writes `fail.message` picks; spill writes fail while `fail.spill` is set.
 */
function setup(steps: Step[], opts: { compactor?: boolean } = {}) {
  const fail: { message?: (m: Message) => boolean; spill?: boolean; usage?: boolean } = {};
  const file: Message[] = [];
  const spills: string[] = [];
  const events: AgentEvent[] = [];
  const llm = new ScriptedLlm(steps);
  const tools = new FakeTools({ read_file: 'the file', run_command: 'x'.repeat(2_000_000) });
  const deps = agentDeps({
    llm,
    tools,
    sink: nullSink({
      message: async (m) => {
        if (fail.message?.(m)) throw new Error(DISK_FULL);
        file.push(m);
      },
      usage: async () => {
        if (fail.usage) throw new Error(DISK_FULL);
      },
    }),
    writeFile: async (path) => {
      if (fail.spill) throw new Error(DISK_FULL);
      spills.push(path);
    },
  });
  const session = new AgentSession(
    emptyState(),
    opts.compactor ? { ...deps, compactor: testCompactor(llm) } : deps,
    (e) => events.push(e),
  );
  return { session, fail, file, spills, events, llm, tools };
}

const errorsOf = (events: readonly AgentEvent[]) => events.flatMap((e) => (e.type === 'error' ? [e.error] : []));
const finishes = (events: readonly AgentEvent[]) =>
  events.flatMap((e) => (e.type === 'turn_finished' ? [e.reason] : []));
const toolResults = (m: Message | undefined) => (m?.blocks ?? []).filter((b) => b.type === 'tool_result');

describe('AgentSession: a session-file write that fails outside a compaction', () => {
  it('an answer that cannot be saved ends the turn with a clear error; memory keeps what the file has; Retry asks again', async () => {
    const t = setup([say('An answer the disk cannot take.'), say('The answer, saved.')]);
    t.fail.message = (m) => m.role === 'assistant';
    const r = await t.session.send('question');
    assert.deepEqual(r, { ok: true }, 'the message was sent (it is in the conversation and the file)');
    const [error, ...more] = errorsOf(t.events);
    assert.equal(more.length, 0, 'one error');
    assert.equal(error?.kind, 'session_file');
    assert.match(error?.message ?? '', /session file could not be written/i);
    assert.match(error?.message ?? '', /ENOSPC/);
    assert.match(error?.message ?? '', /Claude's answer/);
    assert.equal(error?.retryable, true);
    assert.deepEqual(finishes(t.events), ['error']);
    assert.equal(t.session.busy, false);
    assert.deepEqual(t.session.state.messages, t.file, 'memory holds what the file holds');
    assert.equal(t.session.state.messages.at(-1)?.role, 'user', 'the question waits for its answer');

    delete t.fail.message;
    assert.deepEqual(await t.session.retry(), { ok: true });
    assert.deepEqual(t.session.state.messages, t.file);
    assert.deepEqual(
      t.file.map((m) => m.role),
      ['user', 'assistant'],
    );
    assert.deepEqual(finishes(t.events), ['error', 'end_turn']);
  });

  it('tool results that cannot be saved end the turn; the next message answers the calls as interrupted', async () => {
    const t = setup([call('toolu_1', 'read_file'), say('Done.')]);
    t.fail.message = (m) => toolResults(m).length > 0;
    assert.deepEqual(await t.session.send('read it'), { ok: true });
    const [error, ...more] = errorsOf(t.events);
    assert.equal(more.length, 0, 'one error');
    assert.equal(error?.kind, 'session_file');
    assert.match(error?.message ?? '', /session file could not be written/i);
    assert.match(error?.message ?? '', /results of read_file/);
    assert.match(error?.message ?? '', /interrupted/);
    assert.deepEqual(finishes(t.events), ['error']);
    assert.equal(t.session.busy, false);
    assert.deepEqual(t.session.state.messages, t.file, 'memory holds what the file holds');
    assert.equal(t.session.state.messages.at(-1)?.role, 'assistant', 'the calls stand without results');
    assert.equal(t.llm.requests.length, 1, 'nothing more was asked');

    delete t.fail.message;
    assert.deepEqual(await t.session.send('go on'), { ok: true });
    const next = t.session.state.messages.at(-2);
    assert.deepEqual(
      toolResults(next).map((b) => b.type === 'tool_result' && b.content),
      [INTERRUPTED_CALL],
    );
    assert.deepEqual(t.session.state.messages, t.file);
    assert.deepEqual(checkInvariants(t.session.state), []);
  });

  it("the user's message that cannot be saved is not sent: refused with the reason, nothing changes", async () => {
    const t = setup([say('Never asked.')]);
    t.fail.message = (m) => m.role === 'user';
    const r = await t.session.send('question');
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.reason, /session file could not be written.*ENOSPC/i);
    assert.match(r.ok ? '' : r.reason, /not sent/);
    assert.deepEqual(t.session.state.messages, []);
    assert.deepEqual(t.file, []);
    assert.equal(t.session.busy, false);
    assert.equal(t.llm.requests.length, 0);
  });

  it('a tool output that cannot be saved to the session folder ends the turn the same way', async () => {
    const t = setup([call('toolu_1', 'run_command'), say('Done.')], { compactor: true });
    t.fail.spill = true;
    assert.deepEqual(await t.session.send('run it'), { ok: true });
    const [error, ...more] = errorsOf(t.events);
    assert.equal(more.length, 0, 'one error');
    assert.equal(error?.kind, 'session_file');
    assert.match(error?.message ?? '', /could not be written.*ENOSPC/i);
    assert.match(error?.message ?? '', /run_command/);
    assert.deepEqual(finishes(t.events), ['error']);
    assert.equal(t.session.busy, false);
    assert.deepEqual(t.session.state.messages, t.file, 'memory holds what the file holds');
    assert.equal(t.session.state.messages.at(-1)?.role, 'assistant');
  });

  it('a usage record that cannot be saved ends the turn before the answer is kept; Retry asks again', async () => {
    const t = setup([say('Not kept.'), say('Kept.')]);
    t.fail.usage = true;
    assert.deepEqual(await t.session.send('question'), { ok: true });
    const [error, ...more] = errorsOf(t.events);
    assert.equal(more.length, 0, 'one error');
    assert.equal(error?.kind, 'session_file');
    assert.match(error?.message ?? '', /session file could not be written.*usage and Claude's answer were not kept/);
    assert.deepEqual(finishes(t.events), ['error']);
    assert.equal(t.session.busy, false);
    assert.deepEqual(t.session.state.messages, t.file);
    delete t.fail.usage;
    assert.deepEqual(await t.session.retry(), { ok: true });
    assert.deepEqual(
      t.file.map((m) => m.role),
      ['user', 'assistant'],
    );
  });
});
