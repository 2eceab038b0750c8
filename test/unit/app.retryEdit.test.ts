import { strict as assert } from 'node:assert';
import { createRouter } from '../../src/app/router';
import { REWIND_BUSY } from '../../src/core/agent/rewindCommands';
import { parseChatToHost, type ChatToHost } from '../../src/protocol/chat';
import { Gate } from './support/gate';
import { fakeChat } from './support/chatServiceFakes';

const notices = (t: ReturnType<typeof fakeChat>) =>
  t.posts.flatMap((p) => (p.type === 'upsert' && p.item.kind === 'notice' ? [p.item.text] : []));

/** The chat's router with only the two new messages wired (as src/host/chat/chatRoutes.ts wires them). */
function router(t: ReturnType<typeof fakeChat>) {
  const invalid: string[] = [];
  const ignore = () => undefined;
  const route = createRouter<ChatToHost>(
    parseChatToHost,
    {
      ready: ignore,
      send: ignore,
      stop: ignore,
      retry: ignore,
      retryLast: (m) => t.service.userTurns.retryLast(m.messageId),
      editLast: (m) => t.service.userTurns.editLast(m.messageId, m.text, m.images ?? []),
      rewindTo: () => undefined,
      preview: ignore,
      command: ignore,
      pin: ignore,
      slash: ignore,
      openLink: ignore,
      approval: ignore,
      openDiff: ignore,
      dismissContext: ignore,
      copy: ignore,
      mentionQuery: ignore,
      attachFile: ignore,
      openCompacted: ignore,
      openClearedResult: ignore,
      openSubagent: ignore,
      openSession: ignore,
      clearPlan: ignore,
    },
    (e) => void invalid.push(e),
  );
  return { route, invalid };
}

const lastUserId = (t: ReturnType<typeof fakeChat>) => {
  const m = [...t.service.messages()].reverse().find((x) => x.role === 'user');
  assert.ok(m);
  return m.id;
};

describe('ChatService: Retry and Edit of the last message, routed', () => {
  it('retryLast asks the same message again; editLast sends the new words only', async () => {
    const t = fakeChat();
    const r = router(t);
    await t.service.send('first words');
    await r.route({ type: 'retryLast', messageId: lastUserId(t) }, undefined);
    assert.deepEqual(
      t.agents.seen.map((s) => s.lastUserText),
      ['first words', 'first words'],
    );
    assert.equal(t.service.messages().length, 2, 'one answer: the first left');
    assert.equal(t.service.compactions.filter((c) => c.record.layer === 'rewind').length, 1);
    await r.route({ type: 'editLast', messageId: lastUserId(t), text: 'edited words' }, undefined);
    assert.equal(t.agents.seen.at(-1)?.lastUserText, 'edited words');
    assert.equal(t.service.messages().length, 2);
    assert.deepEqual(r.invalid, []);
  });

  it('refuses an id that is not the last message, and a message without an id, saying why', async () => {
    const t = fakeChat();
    const r = router(t);
    await t.service.send('one');
    const first = lastUserId(t);
    await t.service.send('two');
    await r.route({ type: 'retryLast', messageId: first }, undefined);
    assert.ok(notices(t).includes('Only your last message can be retried.'), notices(t).join('\n'));
    await r.route({ type: 'editLast', messageId: first, text: 'x' }, undefined);
    assert.ok(notices(t).includes('Only your last message can be edited.'));
    assert.equal(t.posts.at(-2)?.type, 'unsent', 'the edited words go back to the composer');
    assert.equal(t.agents.seen.length, 2, 'nothing was sent');
    await r.route({ type: 'retryLast' }, undefined);
    await r.route({ type: 'editLast', messageId: '', text: 'x' }, undefined);
    assert.equal(r.invalid.length, 2);
  });

  it('refuses both while a turn runs (the edited words go back), and changes nothing', async () => {
    const t = fakeChat();
    const r = router(t);
    await t.service.send('one');
    const id = lastUserId(t);
    const hold = new Gate();
    t.agents.answers.push({ content: [{ type: 'text', text: 'slow' }], hold });
    const running = t.service.send('two');
    await t.agents.requests.reached(2);
    const before = t.service.messages();
    await r.route({ type: 'retryLast', messageId: id }, undefined);
    await r.route({ type: 'editLast', messageId: id, text: 'changed' }, undefined);
    assert.equal(notices(t).filter((n) => n === REWIND_BUSY).length, 2);
    assert.ok(t.posts.some((p) => p.type === 'unsent'));
    assert.equal(t.service.messages(), before);
    hold.open();
    await running;
    assert.equal(t.agents.seen.length, 2);
  });
});
