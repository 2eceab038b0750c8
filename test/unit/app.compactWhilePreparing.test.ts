import { strict as assert } from 'node:assert';
import { fakeChat } from './support/chatServiceFakes';
import { Gate } from './support/gate';

/** A chat whose first send waits for its project context, and the agent events it saw. */
async function preparing() {
  const t = fakeChat();
  const events: string[] = [];
  t.service.onAgentEvent.on(({ event }) => void events.push(event.type));
  t.agents.projectGate = new Gate();
  const sending = t.service.send('hello');
  await t.agents.projectWaited.wait();
  return { t, events, sending };
}

describe('ChatService: Compact Now while a message is being prepared', () => {
  it('waits for the message: the message goes, and the compaction queues behind its turn', async () => {
    const { t, events, sending } = await preparing();
    const compacting = t.service.compactNow();
    t.agents.projectGate?.open();
    await sending;
    const outcome = await compacting;
    assert.equal(t.agents.seen.length, 1, 'the message was sent');
    assert.equal(t.posts.filter((p) => p.type === 'unsent').length, 0, 'nothing was given back');
    const turn = events.indexOf('turn_started');
    assert.ok(turn >= 0, `a turn ran: ${events.join(' ')}`);
    assert.ok(events.indexOf('compaction_queued') > turn, `queued behind the turn: ${events.join(' ')}`);
    assert.ok(events.indexOf('compaction_started') > events.indexOf('turn_finished'), events.join(' '));
    assert.equal(typeof outcome.ok, 'boolean', 'the compaction settles');
  });

  it('cancelled while it waits for the message: it does not run, and the chat says so', async () => {
    const { t, events, sending } = await preparing();
    const compacting = t.service.compactNow();
    t.service.cancelCompaction();
    t.agents.projectGate?.open();
    await sending;
    assert.deepEqual(await compacting, { ok: false, reason: 'Cancelled.', byUser: true });
    assert.equal(t.agents.seen.length, 1, 'the message was sent');
    assert.ok(!events.includes('compaction_started'), events.join(' '));
    assert.ok(t.posts.some((p) => p.type === 'upsert' && p.item.kind === 'notice' && /cancelled/.test(p.item.text)));
  });

  it('with no message being prepared it runs at once, as before', async () => {
    const t = fakeChat();
    const events: string[] = [];
    t.service.onAgentEvent.on(({ event }) => void events.push(event.type));
    await t.service.send('hello');
    await t.service.compactNow();
    assert.ok(events.includes('compaction_started') && !events.includes('compaction_queued'), events.join(' '));
  });
});
