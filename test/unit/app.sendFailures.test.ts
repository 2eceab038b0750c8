import { strict as assert } from 'node:assert';
import type { ChatToWebview } from '../../src/protocol/chat';
import { fakeChat } from './support/chatServiceFakes';

/** The posts from the first busy status on, as a sequence of names (`busy`, `idle`, `unsent`, `error`…). */
function sequence(posts: readonly ChatToWebview[]): string[] {
  const from = posts.findIndex((p) => p.type === 'status' && p.busy);
  return posts
    .slice(from)
    .map((p) => (p.type === 'status' ? (p.busy ? 'busy' : 'idle') : p.type === 'upsert' ? p.item.kind : p.type));
}

const errorItems = (posts: readonly ChatToWebview[]) =>
  posts.flatMap((p) => (p.type === 'upsert' && p.item.kind === 'error' ? [p.item] : []));

const errors = (posts: readonly ChatToWebview[]) =>
  posts.flatMap((p) => (p.type === 'upsert' && p.item.kind === 'error' ? [p.item.text] : []));

describe('ChatService: a send that fails with an exception', () => {
  it('thrown by the agent before the message was saved: said in the chat, logged, and the words go back', async () => {
    const t = fakeChat();
    const agent = (await t.service.conversation()) && t.service.runtime?.agent;
    assert.ok(agent);
    const send = agent.send.bind(agent);
    Object.assign(agent, {
      send: async () => {
        throw new Error('the disk vanished');
      },
    });
    await t.service.send('hello'); // resolves: the failure is reported, not thrown at the router
    const seq = sequence(t.posts);
    assert.ok(seq.includes('unsent'), `given back: ${seq.join(' ')}`);
    assert.ok(seq.indexOf('unsent') < seq.lastIndexOf('idle'), `unsent before idle: ${seq.join(' ')}`);
    assert.match(
      errors(t.posts).at(-1) ?? '',
      /Your message was not sent: the disk vanished\. It is back in the message box/,
    );
    assert.ok(
      t.logLines.some((l) => l.includes('the disk vanished') && l.includes('Error')),
      'logged with its stack',
    );
    assert.equal(seq.at(-1), 'idle', 'no longer busy');
    Object.assign(agent, { send });
    await t.service.send('again');
    assert.equal(t.agents.seen.length, 1, 'the next message goes');
    assert.equal(t.posts.filter((p) => p.type === 'unsent').length, 1);
  });

  it('thrown while the message was prepared (the project context): the same', async () => {
    const t = fakeChat();
    await t.service.conversation();
    const runtime = t.service.runtime;
    assert.ok(runtime);
    Object.assign(runtime.project, {
      ready: async () => {
        throw new Error('instructions unreadable');
      },
    });
    await t.service.send('hello');
    const seq = sequence(t.posts);
    assert.ok(seq.indexOf('unsent') >= 0 && seq.indexOf('unsent') < seq.lastIndexOf('idle'), seq.join(' '));
    assert.match(errors(t.posts).at(-1) ?? '', /not sent: instructions unreadable/);
    assert.deepEqual(t.agents.seen, []);
  });

  it('thrown after the message entered the conversation and was answered: an error in the chat, no Retry, nothing given back', async () => {
    const t = fakeChat();
    const agent = (await t.service.conversation()) && t.service.runtime?.agent;
    assert.ok(agent);
    const send = agent.send.bind(agent);
    Object.assign(agent, {
      send: async (...args: Parameters<typeof send>) => {
        await send(...args);
        throw new Error('late failure');
      },
    });
    await t.service.send('hello'); // resolves: said in the chat, not a pop-up from the router
    assert.equal(t.posts.filter((p) => p.type === 'unsent').length, 0, 'the message is in the conversation');
    const error = errorItems(t.posts).at(-1);
    assert.match(error?.text ?? '', /Your message was saved, but its turn failed: late failure/);
    assert.equal(error?.retryable, false, 'answered: nothing to retry');
    assert.ok(
      t.logLines.some((l) => l.includes('late failure') && l.includes('Error')),
      'logged with its stack',
    );
    assert.equal(sequence(t.posts).at(-1), 'idle', 'no longer busy');
  });

  it('thrown as the turn starts (the message saved, unanswered): an error in the chat with Retry, which sends it', async () => {
    const t = fakeChat({ realTranscript: true });
    await t.service.conversation();
    // The chat's listener fails on the saved message's event: the agent's send throws before its request.
    const push = t.posts.push.bind(t.posts);
    let armed = true;
    Object.assign(t.posts, {
      push: (...items: ChatToWebview[]) => {
        if (armed && items.some((m) => m.type === 'upsert' && m.item.kind === 'user')) {
          armed = false;
          throw new Error('view gone');
        }
        return push(...items);
      },
    });
    await t.service.send('hello');
    assert.equal(t.agents.seen.length, 0, 'no request went');
    assert.equal(t.posts.filter((p) => p.type === 'unsent').length, 0, 'the message is in the conversation');
    const error = errorItems(t.posts).at(-1);
    assert.match(error?.text ?? '', /Your message was saved, but its turn failed: view gone\. Retry sends it again/);
    assert.equal(error?.retryable, true);
    assert.equal(sequence(t.posts).at(-1), 'idle', 'no longer busy');
    await t.service.retry();
    assert.deepEqual(
      t.agents.seen.map((s) => s.lastUserText),
      ['hello'],
      'Retry sent the saved message',
    );
  });
});
