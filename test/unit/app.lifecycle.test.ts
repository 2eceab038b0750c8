import { strict as assert } from 'node:assert';
import { fakeChat } from './support/chatServiceFakes';
import { Gate } from './support/gate';

const transcripts = (posts: ReturnType<typeof fakeChat>['posts']) => posts.filter((p) => p.type === 'transcript');

describe('ChatService: opening, new and resume', () => {
  it('opens a session on first use (a new one when none is stored) and posts the transcript, status and chips', async () => {
    const t = fakeChat();
    await t.service.onReady();
    assert.equal(t.service.sessionLabel?.id, 'new-1');
    assert.deepEqual(
      t.posts.map((p) => p.type),
      ['transcript', 'status', 'pendingContext'],
    );
  });

  it('concurrent first uses open one session, not two', async () => {
    const t = fakeChat();
    await Promise.all([t.service.onReady(), t.service.conversation(), t.service.compactionPreview()]);
    assert.deepEqual(t.sessions.created, ['new-1']);
  });

  it('a resume arriving while a new session is being created waits for it and ends on the resumed session', async () => {
    const t = fakeChat();
    await t.service.onReady();
    const creating = new Gate();
    t.sessions.holds.set('new-2', creating);
    const fresh = t.service.newSession();
    await t.sessions.waiting.reached(1);
    const resumed = t.service.resume('stored-a');
    creating.open();
    await Promise.all([fresh, resumed]);
    // The new session was superseded before it arrived: closed again, never shown.
    assert.equal(t.service.sessionLabel?.id, 'stored-a');
    assert.deepEqual(t.sessions.closed, ['new-2', 'new-1']);
    assert.equal(t.service.runtime?.agent.state.messages.length, 0);
    assert.equal(
      transcripts(t.posts).length,
      2,
      'the first open and the resume post a transcript, the dropped New none',
    );
  });

  it('drops a stale resume: the session asked for last wins, the earlier one is closed when it arrives', async () => {
    const t = fakeChat();
    await t.service.onReady();
    const slow = new Gate();
    t.sessions.holds.set('a', slow);
    const first = t.service.resume('a');
    await t.sessions.waiting.reached(1);
    const second = t.service.resume('b');
    slow.open();
    await Promise.all([first, second]);
    assert.equal(t.service.sessionLabel?.id, 'b');
    assert.deepEqual(t.sessions.closed, ['a', 'new-1']);
  });

  it('refuses to switch while a turn runs, and says why', async () => {
    const t = fakeChat();
    const hold = new Gate();
    t.agents.answers.push({ content: [{ type: 'text', text: 'slow' }], hold });
    const sending = t.service.send('hi');
    await t.agents.requests.reached(1);
    await t.service.resume('other');
    await t.service.newSession();
    assert.equal(t.service.sessionLabel?.id, 'new-1');
    assert.deepEqual(
      t.toasts.map((x) => x.text),
      [
        'Context Pipeline: stop the running turn before switching sessions.',
        'Context Pipeline: stop the running turn before starting a new session.',
      ],
    );
    hold.open();
    await sending;
  });

  it('refuses to switch while a message is still prepared (after Send, before its turn starts), and the message goes to its session', async () => {
    const t = fakeChat();
    await t.service.onReady();
    t.agents.projectGate = new Gate();
    const sending = t.service.send('hi');
    await t.agents.projectWaited.wait();
    await t.service.resume('other');
    await t.service.newSession();
    assert.deepEqual(
      t.toasts.map((x) => x.text),
      [
        'Context Pipeline: stop the running turn before switching sessions.',
        'Context Pipeline: stop the running turn before starting a new session.',
      ],
    );
    t.agents.projectGate.open();
    await sending;
    assert.equal(t.service.sessionLabel?.id, 'new-1');
    assert.deepEqual(t.sessions.closed, [], 'the session the message went to was not closed under it');
    assert.deepEqual(
      t.service.messages().map((m) => m.role),
      ['user', 'assistant'],
    );
  });

  it('a message sent while a switch is under way waits for it and goes to the session switched to', async () => {
    const t = fakeChat();
    await t.service.onReady();
    const loading = new Gate();
    t.sessions.holds.set('b', loading);
    const resumed = t.service.resume('b');
    await t.sessions.waiting.reached(1);
    const sending = t.service.send('for b');
    loading.open();
    await Promise.all([resumed, sending]);
    assert.equal(t.service.sessionLabel?.id, 'b');
    assert.deepEqual(t.sessions.closed, ['new-1']);
    assert.deepEqual(
      t.service.messages().map((m) => m.role),
      ['user', 'assistant'],
      'the message is in the session switched to, not in the one closed',
    );
    assert.deepEqual(t.toasts, []);
  });

  it('a session that cannot be loaded is reported and the open one stays', async () => {
    const t = fakeChat();
    await t.service.onReady();
    t.sessions.missing.add('gone');
    await t.service.resume('gone');
    assert.equal(t.service.sessionLabel?.id, 'new-1');
    assert.deepEqual(t.toasts, [
      { level: 'error', text: 'Context Pipeline: could not open the session: no session gone' },
    ]);
    assert.deepEqual(t.sessions.closed, []);
  });

  it('resuming the open session does nothing', async () => {
    const t = fakeChat();
    await t.service.onReady();
    const before = t.posts.length;
    await t.service.resume('new-1');
    assert.equal(t.posts.length, before);
  });

  it('keeps the conversation of the open session across a settings change', async () => {
    const t = fakeChat();
    await t.service.send('first');
    t.settings.change({ agent: { baseUrl: 'https://two.example' } });
    await t.service.send('second');
    assert.deepEqual(
      t.service.runtime?.agent.state.messages.map((m) => m.role),
      ['user', 'assistant', 'user', 'assistant'],
    );
    assert.equal(t.service.sessionLabel?.id, 'new-1');
  });
});
