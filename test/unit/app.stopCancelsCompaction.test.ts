import { strict as assert } from 'node:assert';
import { STOPPED_COMPACTION, STOPPED_RUNNING_COMPACTION } from '../../src/app/manualCompaction';
import { fakeChat } from './support/chatServiceFakes';
import { Gate, waitUntil } from './support/gate';

/** A chat and the agent events it saw. */
function chat() {
  const t = fakeChat();
  const events: string[] = [];
  t.service.onAgentEvent.on(({ event }) => void events.push(event.type));
  return { t, events };
}

const notices = (t: ReturnType<typeof fakeChat>) =>
  t.posts.flatMap((p) => (p.type === 'upsert' && p.item.kind === 'notice' ? [p.item.text] : []));

describe('ChatService: Stop cancels a Compact Now waiting for the turn', () => {
  it('queued behind a running turn: Stop cancels it, the chat and the outcome say so, nothing is compacted', async () => {
    const { t, events } = chat();
    await t.service.send('first');
    const hold = new Gate();
    t.agents.answers.push({ content: [{ type: 'text', text: 'slow' }], hold });
    const sending = t.service.send('second');
    await t.agents.requests.reached(2);
    const queued = new Promise<void>((done) =>
      t.service.onAgentEvent.on(({ event }) => void (event.type === 'compaction_queued' && done())),
    );
    const compacting = t.service.compactNow();
    await queued;
    t.service.stop();
    hold.open();
    await sending;
    assert.deepEqual(await compacting, { ok: false, reason: STOPPED_COMPACTION, byUser: true });
    assert.ok(!events.includes('compaction_started'), `no compaction ran: ${events.join(' ')}`);
    assert.ok(notices(t).includes(STOPPED_COMPACTION), notices(t).join(' | '));
    assert.match(STOPPED_COMPACTION, /Stop cancelled the compaction/);
  });

  it('waiting for a message being prepared: Stop keeps the message and the compaction from going', async () => {
    const { t, events } = chat();
    t.agents.projectGate = new Gate();
    const sending = t.service.send('hello');
    await t.agents.projectWaited.wait();
    const compacting = t.service.compactNow();
    t.service.stop();
    t.agents.projectGate.open();
    await sending;
    assert.deepEqual(await compacting, { ok: false, reason: STOPPED_COMPACTION, byUser: true });
    assert.ok(!events.includes('compaction_started'), events.join(' '));
    assert.equal(t.agents.seen.length, 0, 'the message was not sent');
  });

  it('running: the composer shows Stop while the summary is written, and Stop stops it — nothing compacted, no warning', async () => {
    const { t, events } = chat();
    const long = (n: number) => Array.from({ length: n }, (_, i) => `line ${i} of a long answer`).join('\n');
    for (const words of ['first', 'second', 'third']) {
      t.agents.answers.push({ content: [{ type: 'text', text: long(4000) }] });
      await t.service.send(words);
    }
    const busy = () => t.posts.flatMap((p) => (p.type === 'status' ? [p.busy] : [])).at(-1);
    assert.equal(busy(), false);
    const compacted: string[] = [];
    t.service.onAgentEvent.on(
      ({ event }) => void (event.type === 'compaction_finished' && compacted.push(...event.records.map((r) => r.id))),
    );
    const hold = new Gate();
    t.agents.answers.push({ content: [{ type: 'text', text: '<summary>the first turns</summary>' }], hold });
    const compacting = t.service.compactNow();
    await t.agents.requests.reached(4);
    assert.ok(events.includes('compaction_started'), events.join(' '));
    // The composer shows Stop while Compact Now runs (the status is posted once the run began).
    await waitUntil('a busy status', () => busy() === true);
    t.service.stop();
    hold.open();
    const outcome = await compacting;
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok && outcome.byUser, 'stopped by the user: no warning repeats the chat');
    assert.deepEqual(compacted, [], 'nothing was compacted');
    assert.ok(notices(t).includes(STOPPED_RUNNING_COMPACTION), notices(t).join(' | '));
    assert.equal(busy(), false, 'Send again once it stopped: the last status was posted after the run');
  });

  it('a Stop with no compaction waiting posts no such notice', async () => {
    const { t } = chat();
    await t.service.send('hello');
    t.service.stop();
    assert.ok(!notices(t).includes(STOPPED_COMPACTION));
  });
});
