import { strict as assert } from 'node:assert';
import type { AgentEvent } from '../../src/core/agent/events';
import { AgentSession } from '../../src/core/agent/agentSession';
import { REWIND_BUSY } from '../../src/core/agent/rewindCommands';
import { FILES_STAY_CHANGED } from '../../src/core/compaction/rewind';
import { counterIds } from '../../src/core/platform/platformPorts';
import { agentDeps } from './support/agentDeps';
import { emptyState } from './support/builders';
import { FakeTools, ScriptedLlm, type Step } from './support/scriptedLlm';
import { assertSessionSound, fileEntriesSink } from './support/sessionSink';

const say = (text: string): Step => ({ content: [{ type: 'text', text }] });

/** A session over `steps` whose sink writes a session file's entries (each through the line codec). */
function setup(steps: Step[]) {
  const llm = new ScriptedLlm(steps);
  const { entries, sink } = fileEntriesSink();
  const events: AgentEvent[] = [];
  const tools = new FakeTools({ edit_file: 'Edited a.ts.' });
  const session = new AgentSession(emptyState(), agentDeps({ llm, sink, tools, ids: counterIds('g') }), (e) =>
    events.push(e),
  );
  /** Every request was valid for the API, the history keeps its invariants, and the file replays to it. */
  const check = () => assertSessionSound(llm.requests, session.state, entries);
  /** The id of the user's last message with words (not a tool round's results). */
  const lastUser = () =>
    [...session.state.messages]
      .reverse()
      .find((m) => m.role === 'user' && m.blocks.some((b) => b.meta.source === 'user'))!.id;
  return { llm, session, events, check, lastUser };
}

/** The user's words each request ended with. */
function sentWords(llm: ScriptedLlm): string[] {
  return llm.requests.map((r) => {
    const last = r.messages.at(-1);
    const content = Array.isArray(last?.content) ? last.content : [];
    return content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join(' ');
  });
}

describe('AgentSession Retry and Edit of the last message', () => {
  it('Retry answers the same message again; the first answer is a rewind record, and Restore brings it back', async () => {
    const t = setup([say('first answer'), say('second answer')]);
    assert.deepEqual(await t.session.send('what is 2+2?'), { ok: true });
    const user = t.lastUser();
    assert.deepEqual(await t.session.retryLast(user), { ok: true });
    assert.deepEqual(sentWords(t.llm), ['what is 2+2?', 'what is 2+2?']);
    const texts = () => t.session.state.messages.map((m) => (m.blocks[0]?.type === 'text' ? m.blocks[0].text : ''));
    assert.deepEqual(texts(), ['what is 2+2?', 'second answer']);
    const rewind = t.session.compactions.find((c) => c.record.layer === 'rewind');
    assert.ok(rewind?.active);
    assert.deepEqual(
      rewind.record.originals.map((m) => (m.blocks[0]?.type === 'text' ? m.blocks[0].text : '')),
      ['first answer'],
    );
    t.check();
    // Restore: the first answer is back, the second kept as a rewind of its own.
    assert.deepEqual(await t.session.commands.restore(rewind.record.id), { ok: true });
    assert.deepEqual(texts(), ['what is 2+2?', 'first answer']);
    assert.equal(t.session.compactions.filter((c) => c.active && c.record.layer === 'rewind').length, 1);
    t.check();
  });

  it('Edit sends the new words in place of the old ones; the request holds the new words only', async () => {
    const t = setup([say('an answer'), say('the answer to the edit')]);
    await t.session.send('old words');
    assert.deepEqual(await t.session.editLast(t.lastUser(), 'new words'), { ok: true });
    assert.deepEqual(sentWords(t.llm), ['old words', 'new words']);
    const second = JSON.stringify(t.llm.requests[1]?.messages);
    assert.ok(!second.includes('old words'), second);
    assert.equal(t.session.state.messages.length, 2);
    t.check();
  });

  it('refuses while a turn runs, and for a message that is not the last one, changing nothing', async () => {
    const t = setup([say('one'), say('two'), { hangUntilAbort: true }]);
    await t.session.send('first');
    const first = t.lastUser();
    await t.session.send('second');
    const before = t.session.state.messages;
    const notLast = await t.session.retryLast(first);
    assert.deepEqual(notLast, { ok: false, reason: 'Only your last message can be retried.' });
    const running = t.session.send('third');
    await t.llm.hanging.reached(1);
    assert.deepEqual(await t.session.editLast(t.lastUser(), 'x'), { ok: false, reason: REWIND_BUSY });
    t.session.stop();
    await running;
    assert.equal(t.session.compactions.length, 0);
    assert.ok(before.every((m) => t.session.state.messages.includes(m)));
    t.check();
  });

  it('says that files the removed turn changed stay changed', async () => {
    const t = setup([
      { content: [{ type: 'tool_use', id: 'toolu_1', name: 'edit_file', input: { path: 'a.ts' } }] },
      say('Edited.'),
      say('Done again.'),
    ]);
    await t.session.send('fix a.ts');
    assert.deepEqual(await t.session.retryLast(t.lastUser()), { ok: true });
    const notices = t.events.flatMap((e) => (e.type === 'notice' ? [e.text] : []));
    assert.ok(notices.includes(`Retry: ${FILES_STAY_CHANGED}`), notices.join('\n'));
    t.check();
  });

  it('Retry after a stand-in answer (a stopped turn) runs the turn again', async () => {
    const t = setup([{ hangUntilAbort: true }, say('a real answer')]);
    const running = t.session.send('hello');
    await t.llm.hanging.reached(1);
    t.session.stop();
    await running;
    assert.equal(t.session.state.messages.length, 2, 'the stop wrote a stand-in answer');
    assert.deepEqual(await t.session.retryLast(t.lastUser()), { ok: true });
    assert.deepEqual(sentWords(t.llm), ['hello', 'hello']);
    t.check();
  });
});
