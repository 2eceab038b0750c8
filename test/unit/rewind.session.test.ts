import { testCompactor } from './support/testCompactor';
import { strict as assert } from 'node:assert';
import type { AgentEvent } from '../../src/core/agent/events';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { SendResult } from '../../src/core/agent/sessionCore';
import { counterIds } from '../../src/core/platform/platformPorts';
import { agentDeps } from './support/agentDeps';
import { emptyState, testConfig } from './support/builders';
import { ScriptedLlm, type Step } from './support/scriptedLlm';
import { assertSessionSound, fileEntriesSink } from './support/sessionSink';

const say = (text: string): Step => ({ content: [{ type: 'text', text }] });

/** A session whose sink writes a session file's entries, with a files port that records what it was asked. */
function setup(steps: Step[], filesAnswer: SendResult = { ok: true }) {
  const llm = new ScriptedLlm(steps);
  const { entries, sink } = fileEntriesSink();
  const undone: string[] = [];
  const base = agentDeps({ llm, sink, ids: counterIds('r') });
  const compactor = testCompactor(base, llm);
  const events: AgentEvent[] = [];
  const session = new AgentSession(
    emptyState({ config: testConfig({ keepRecentTurns: 1, keepRecentTokens: 0 }) }),
    { ...base, compactor, rewindFiles: { undo: async (id) => (undone.push(id), filesAnswer) } },
    (e) => events.push(e),
  );
  const check = () => assertSessionSound(llm.requests, session.state, entries);
  const userIds = () =>
    session.state.messages
      .filter((m) => m.role === 'user' && m.blocks.some((b) => b.meta.source === 'user'))
      .map((m) => m.id);
  return { llm, session, events, check, userIds, undone, entries };
}

describe('Rewind to here (core: SessionCommands.rewindTo, restore of a rewind)', () => {
  it('rewinds the conversation to the first of three messages, gives its words back, and Restore brings everything forward', async () => {
    const t = setup([say('one'), say('two'), say('three'), say('again')]);
    for (const q of ['first question', 'second question', 'third question']) await t.session.send(q);
    const before = t.session.state.messages.map((m) => m.id);
    const [first] = t.userIds();
    const filesAsked: string[] = [];
    const done = await t.session.commands.rewindTo(first ?? '', {
      conversation: true,
      files: async (id) => (filesAsked.push(id), { ok: true }),
    });
    assert.ok(done.ok, JSON.stringify(done));
    assert.equal(done.words, 'first question');
    assert.equal(t.session.state.messages.length, 0);
    const record = t.session.compactions.at(-1)?.record;
    assert.equal(record?.strategy, 'to');
    assert.deepEqual(filesAsked, [record?.id], 'the files went back under the same record id');
    t.check();
    // The user sends other words; then undoes the rewind from the Compactions view.
    await t.session.send('a different first question');
    const restored = await t.session.commands.restore(record?.id ?? '');
    assert.ok(restored.ok, JSON.stringify(restored));
    assert.deepEqual(t.undone, [record?.id], 'the files were brought forward too');
    assert.deepEqual(
      t.session.state.messages.map((m) => m.id),
      before,
    );
    t.check();
  });

  it('when the files cannot go back, nothing changes; when their undo is refused, the conversation stays rewound', async () => {
    const t = setup([say('one'), say('two')], { ok: false, reason: 'cancelled' });
    await t.session.send('first');
    await t.session.send('second');
    const ids = t.session.state.messages.map((m) => m.id);
    const refused = await t.session.commands.rewindTo(t.userIds()[0] ?? '', {
      conversation: true,
      files: async () => ({ ok: false, reason: 'a file could not be written' }),
    });
    assert.deepEqual(refused, { ok: false, reason: 'a file could not be written' });
    assert.deepEqual(
      t.session.state.messages.map((m) => m.id),
      ids,
    );
    assert.equal(t.session.compactions.length, 0);
    const done = await t.session.commands.rewindTo(t.userIds()[1] ?? '', {
      conversation: true,
      files: async () => ({ ok: true }),
    });
    assert.ok(done.ok);
    const record = t.session.compactions.at(-1)?.record;
    const undo = await t.session.commands.restore(record?.id ?? '');
    assert.deepEqual(undo, { ok: false, reason: 'cancelled' });
    assert.equal(t.session.compactions.at(-1)?.active, true);
    t.check();
  });

  it('a files-only rewind leaves the conversation as it is, and so does its undo; both survive a resume', async () => {
    const t = setup([say('one'), say('two'), say('three')]);
    await t.session.send('first');
    await t.session.send('second');
    const ids = t.session.state.messages.map((m) => m.id);
    const done = await t.session.commands.rewindTo(t.userIds()[0] ?? '', {
      conversation: false,
      files: async () => ({ ok: true }),
    });
    assert.ok(done.ok);
    assert.equal(done.words, undefined);
    assert.deepEqual(
      t.session.state.messages.map((m) => m.id),
      ids,
    );
    const record = t.session.compactions.at(-1)?.record;
    assert.equal(record?.strategy, 'files');
    t.check();
    await t.session.send('third');
    const undone = await t.session.commands.restore(record?.id ?? '');
    assert.ok(undone.ok, JSON.stringify(undone));
    assert.equal(t.session.state.messages.length, ids.length + 2, 'the later turn stays');
    t.check();
  });

  it('across a compaction: a later message rewinds with the summary kept before it; a summarised one is refused', async () => {
    const t = setup([say('one '.repeat(300)), say('two '.repeat(300)), say('Summary of the turns.'), say('three')]);
    await t.session.send(`first ${'x'.repeat(2000)}`);
    await t.session.send(`second ${'y'.repeat(2000)}`);
    const firstId = t.userIds()[0] ?? '';
    const compacted = await t.session.commands.compactNow();
    assert.ok(compacted.ok, JSON.stringify(compacted));
    await t.session.send('third');
    const refused = await t.session.commands.rewindTo(firstId, { conversation: true });
    assert.ok(!refused.ok && /compacted/.test(refused.reason));
    const third = t.userIds().at(-1) ?? '';
    const done = await t.session.commands.rewindTo(third, { conversation: true });
    assert.ok(done.ok, JSON.stringify(done));
    assert.ok(
      t.session.state.messages.some((m) => m.blocks.some((b) => b.type === 'summary')),
      'the summary stays',
    );
    t.check();
  });

  it('refused for a message that is not the user’s, and with nothing chosen', async () => {
    const t = setup([say('one')]);
    await t.session.send('first');
    const answer = t.session.state.messages.at(-1)?.id ?? '';
    const notWords = await t.session.commands.rewindTo(answer, { conversation: true });
    assert.ok(!notWords.ok && /Only a message you wrote/.test(notWords.reason));
    const nothing = await t.session.commands.rewindTo(t.userIds()[0] ?? '', { conversation: false });
    assert.ok(!nothing.ok && /Nothing was chosen/.test(nothing.reason));
  });

  it('Summarize up to here compacts only what came before the message; from here leaves what came before it', async () => {
    const long = (w: string) => `${w} ${'z'.repeat(2400)}`;
    const t = setup([
      say(long('one')),
      say(long('two')),
      say(long('three')),
      say('Summary A.'),
      say(long('four')),
      say('Summary B.'),
    ]);
    for (const q of ['first', 'second', 'third']) await t.session.send(long(q));
    const [first, second, third] = t.userIds();
    const upTo = await t.session.commands.summarizeAround(third ?? '', 'upTo');
    assert.ok(upTo.ok, JSON.stringify(upTo));
    const a = t.session.compactions.at(-1)?.record;
    assert.ok(
      a?.originals.every((m) => m.id !== third),
      'the message itself and what follows stay',
    );
    assert.ok(a?.originals.some((m) => m.id === first) && a.originals.some((m) => m.id === second));
    assert.ok(t.session.state.messages.some((m) => m.id === third));
    t.check();
    await t.session.send(long('fourth'));
    const fourth = t.userIds().at(-1) ?? '';
    const from = await t.session.commands.summarizeAround(third ?? '', 'from');
    assert.ok(from.ok, JSON.stringify(from));
    const b = t.session.compactions.at(-1)?.record;
    assert.ok(
      b?.originals.some((m) => m.id === third),
      'the message is in the summarised region',
    );
    assert.ok(
      b?.originals.every((m) => m.id !== first && m.id !== second),
      'nothing before the message is touched',
    );
    assert.ok(
      t.session.state.messages.some((m) => m.id === fourth),
      'the newest turn stays verbatim',
    );
    const gone = await t.session.commands.summarizeAround('nope', 'from');
    assert.ok(!gone.ok && /no longer in the conversation/.test(gone.reason));
    t.check();
  });
});
