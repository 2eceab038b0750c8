import { strict as assert } from 'node:assert';
import { STOPPED_COMPACTION } from '../../src/app/manualCompaction';
import { fakeChat } from './support/chatServiceFakes';
import { Gate } from './support/gate';

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
    assert.deepEqual(await compacting, { ok: false, reason: STOPPED_COMPACTION });
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
    assert.deepEqual(await compacting, { ok: false, reason: STOPPED_COMPACTION });
    assert.ok(!events.includes('compaction_started'), events.join(' '));
    assert.equal(t.agents.seen.length, 0, 'the message was not sent');
  });

  it('a Stop with no compaction waiting posts no such notice', async () => {
    const { t } = chat();
    await t.service.send('hello');
    t.service.stop();
    assert.ok(!notices(t).includes(STOPPED_COMPACTION));
  });
});
