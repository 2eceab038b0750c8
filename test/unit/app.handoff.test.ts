import { strict as assert } from 'node:assert';
import type { SessionRuntime } from '../../src/app/ports';
import type { OpenSession } from '../../src/app/sessionPort';
import type { CompactionRecord } from '../../src/core/compaction/types';
import { requestCostUsd } from '../../src/core/llm/cost';
import { testConfig } from './support/builders';
import { fakeChat } from './support/chatServiceFakes';
import { Convo } from './support/compactionBuilders';
import { Gate } from './support/gate';
import { summaryRecord } from './support/handoffFixtures';

const NOTE =
  '## Goal\nMake the parser accept trailing commas.\n## Decisions made\n- Use json5.\n## Open questions\nNone.';

/** A chat whose open session has one turn ("Fix the parser" → an answer). */
async function chatWithATurn() {
  const t = fakeChat({ realTranscript: true });
  t.agents.answers.push({ content: [{ type: 'text', text: 'I will use json5.' }] });
  await t.service.send('Fix the parser: trailing commas');
  return t;
}

/** The usage the fake client reports for every request. */
const NOTE_USAGE = { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

const notices = (t: ReturnType<typeof fakeChat>) =>
  t.posts.flatMap((p) => (p.type === 'upsert' && p.item.kind === 'notice' ? [p.item] : []));

describe('ChatService: Continue in a New Session (handoff)', () => {
  it('writes the note with the summariser, opens a new session that names the old one, and sends the note as its first message', async () => {
    const t = await chatWithATurn();
    t.agents.answers.push(
      { content: [{ type: 'text', text: NOTE }] },
      { content: [{ type: 'text', text: 'Continuing.' }] },
    );
    await t.service.handoff.run('focus on the tests');
    assert.equal(t.service.sessionLabel?.id, 'new-2');
    // The note's request (100 in, 10 out on Haiku 4.5 at $1/$5 a million) is the new session's to pay.
    const from = { sessionId: 'new-1', title: 'Fix the parser: trailing commas', noteCostUsd: 0.00015 };
    assert.deepEqual(t.service.sessionLabel?.continuedFrom, from);
    assert.deepEqual(t.sessions.handoffs.get('new-2'), { continuedFrom: from });
    assert.deepEqual(t.sessions.closed, ['new-1'], 'the old session is closed, not deleted');
    const [, summariser, first] = t.agents.seen;
    assert.equal(summariser?.model, 'claude-haiku-4-5', 'the summariser model writes the note');
    assert.match(summariser?.lastUserText ?? '', /<conversation>[\s\S]*Fix the parser: trailing commas/);
    assert.match(summariser?.lastUserText ?? '', /<user_instructions>\nfocus on the tests/);
    const text = first?.lastUserText ?? '';
    assert.match(text, /^# Handoff from an earlier session/);
    assert.match(text, /continues the session "Fix the parser: trailing commas" \(new-1\)/);
    assert.match(text, /## Goal\nMake the parser accept trailing commas\./);
    assert.match(text, /## Decisions made\n- Use json5\./);
    assert.match(text, /## Current plan\nNo plan was recorded\./);
    assert.match(text, /## Files touched\nNone recorded\./);
    assert.match(text, /## Open questions\nNone\./);
    assert.match(text, /call `recall` with a query/);
    assert.match(text, /## The user's words for this handoff\nfocus on the tests/);
    assert.equal(t.service.messages()[0]?.role, 'user');
    assert.equal(t.service.messages().at(-1)?.role, 'assistant');
    // The chat: the new session's transcript opens with the card, the note is marked as the handoff's.
    const last = t.posts.filter((p) => p.type === 'transcript').at(-1);
    assert.deepEqual(last?.type === 'transcript' ? last.items[0] : undefined, {
      kind: 'continued',
      id: 'continued-from',
      sessionId: 'new-1',
      title: 'Fix the parser: trailing commas',
    });
    const bubble = t.posts.flatMap((p) => (p.type === 'upsert' && p.item.kind === 'user' ? [p.item] : [])).at(-1);
    assert.equal(bubble?.handoff, true);
    assert.match(bubble?.text ?? '', /^# Handoff from an earlier session/);
  });

  it('the new session starts with the old one’s plan', async () => {
    const t = fakeChat();
    t.agents.answers.push(
      {
        content: [
          {
            type: 'tool_use',
            id: 'toolu_plan',
            name: 'update_plan',
            input: { steps: [{ step: 'Switch to json5', status: 'in_progress' }] },
          },
        ],
      },
      { content: [{ type: 'text', text: 'Planned.' }] },
      { content: [{ type: 'text', text: NOTE }] },
      { content: [{ type: 'text', text: 'Continuing.' }] },
    );
    await t.service.send('Fix the parser');
    await t.service.handoff.run();
    assert.deepEqual(t.sessions.handoffs.get('new-2')?.plan, {
      steps: [{ step: 'Switch to json5', status: 'in_progress' }],
    });
    assert.deepEqual(
      t.service.runtime?.agent.plan?.steps.map((s) => s.step),
      ['Switch to json5'],
    );
    assert.match(t.agents.seen.at(-1)?.lastUserText ?? '', /## Current plan\n1\. \[>\] Switch to json5/);
  });

  it('when the summariser fails, the note is built from what the session records and the chat says so', async () => {
    const t = await chatWithATurn();
    t.agents.answers.push({ content: [] }, { content: [{ type: 'text', text: 'Continuing.' }] });
    await t.service.handoff.run();
    assert.equal(t.service.sessionLabel?.id, 'new-2');
    assert.match(t.agents.seen.at(-1)?.lastUserText ?? '', /The summariser could not write this note/);
    assert.match(t.agents.seen.at(-1)?.lastUserText ?? '', /> Fix the parser: trailing commas/);
    assert.ok(notices(t).some((n) => /could not write the handoff note/.test(n.text)));
  });

  it('Stop while the note is written stops the handoff: no session is created, the chat says so', async () => {
    const t = await chatWithATurn();
    const turnCost = requestCostUsd(testConfig().model, NOTE_USAGE) ?? NaN;
    const hold = new Gate();
    t.agents.answers.push({ content: [{ type: 'text', text: NOTE }], hold });
    const running = t.service.handoff.run();
    await t.agents.requests.reached(2);
    assert.equal(t.service.handoff.busy, true);
    const busy = t.posts.filter((p) => p.type === 'status').at(-1);
    assert.equal(busy?.type === 'status' && busy.busy, true, 'the chat is busy while the note is written');
    t.service.stop();
    hold.open();
    await running;
    assert.deepEqual(t.sessions.created, ['new-1']);
    assert.equal(t.service.sessionLabel?.id, 'new-1');
    assert.ok(notices(t).some((n) => n.text === 'Handoff stopped: nothing was handed off.'));
    assert.equal(t.service.handoff.busy, false);
    // The note's request was read and answered all the same: the old session's bill counts it.
    const cost = () => {
      const status = t.posts.filter((p) => p.type === 'status').at(-1);
      return status?.type === 'status' ? status.costUsd : null;
    };
    const note = requestCostUsd('claude-haiku-4-5', NOTE_USAGE) ?? NaN;
    for (let i = 0; i < 50 && !(Math.abs((cost() ?? 0) - (turnCost + note)) < 1e-12); i++)
      await new Promise((r) => setImmediate(r));
    assert.ok(Math.abs((cost() ?? 0) - (turnCost + note)) < 1e-12, `${cost()} = ${turnCost} + ${note}`);
  });

  it('is refused while a turn runs, and with nothing to hand off', async () => {
    const t = fakeChat();
    await t.service.onReady();
    await t.service.handoff.run();
    assert.ok(notices(t).some((n) => /Nothing to hand off yet/.test(n.text)));
    const hold = new Gate();
    t.agents.answers.push({ content: [{ type: 'text', text: 'slow' }], hold });
    const sending = t.service.send('hello');
    await t.agents.requests.reached(1);
    await t.service.handoff.run();
    assert.ok(notices(t).some((n) => /Stop the running turn/.test(n.text)));
    hold.open();
    await sending;
    assert.deepEqual(t.sessions.created, ['new-1']);
  });

  it('offers the handoff (a notice with its button) once per session, when a compaction leaves the conversation past the soft threshold', async () => {
    const t = fakeChat();
    await t.service.onReady();
    const c = new Convo();
    c.user('q').say('a');
    const record: CompactionRecord = summaryRecord('cmp_1', c.messages);
    const config = testConfig({ contextWindow: 100_000, outputReserve: 0, softThreshold: 0.7, hardThreshold: 0.9 });
    let tokens = 80_000;
    const runtime = {
      agent: { state: { config, messages: [] }, compactions: [{ record, active: true }] },
      estimator: { estimate: () => ({ tokens }) },
    } as unknown as SessionRuntime;
    const open = { open: { id: 's1' } as OpenSession, runtime };
    const event = { type: 'compaction_finished', records: [record], notices: [] } as const;
    t.service.handoff.observe(event, open);
    t.service.handoff.observe(event, open);
    const offers = notices(t).filter((n) => n.action === 'handoff');
    assert.equal(offers.length, 1, 'once per session');
    assert.match(offers[0]?.text ?? '', /^Compaction could not bring the conversation under the soft threshold/);
    tokens = 10_000;
    t.service.handoff.observe(event, { ...open, open: { id: 's2' } as OpenSession });
    assert.equal(notices(t).filter((n) => n.action === 'handoff').length, 1, 'not when the compaction was enough');
  });
});
