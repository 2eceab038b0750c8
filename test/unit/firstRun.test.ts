import { strict as assert } from 'node:assert';
import { noApiKey } from '../../src/app/chatNotices';
import { parseChatToHost, parseChatToWebview, type ChatToWebview } from '../../src/protocol/chat';
import { needsWelcome } from '../../src/webview/chat/welcome';
import { TranscriptRenderer } from '../../src/host/chat/transcriptRenderer';
import { fakeChat } from './support/chatServiceFakes';

const errorItems = (posts: readonly ChatToWebview[]) =>
  posts.flatMap((p) => (p.type === 'upsert' && p.item.kind === 'error' ? [p.item] : []));

describe('first run: no API key', () => {
  it('shows the welcome card only in an empty chat with no key, unless requests go to a server on this machine', () => {
    assert.equal(needsWelcome({ apiKey: 'missing' }, true), true);
    assert.equal(needsWelcome({ apiKey: 'missing' }, false), false, 'the chat has items');
    assert.equal(needsWelcome({ apiKey: 'secret-storage' }, true), false);
    assert.equal(needsWelcome({ apiKey: 'environment' }, true), false, 'ANTHROPIC_API_KEY is set');
    assert.equal(needsWelcome({ apiKey: 'missing', endpoint: { kind: 'local', notice: 'local' } }, true), false);
    assert.equal(needsWelcome({ apiKey: 'missing', endpoint: { kind: 'remote', notice: 'proxy' } }, true), true);
    assert.equal(needsWelcome(undefined, true), false, 'no status yet');
  });

  it('refuses a send before it enters the conversation: the words go back, the error has Set API key, no title', async () => {
    const t = fakeChat();
    t.keys.status = 'missing';
    await t.service.conversation();
    const before = t.service.sessionLabel?.title;
    await t.service.send('Refactor the parser please');
    assert.equal(t.agents.seen.length, 0, 'nothing was sent');
    assert.ok(
      t.posts.some((p) => p.type === 'unsent'),
      'the words go back to the composer',
    );
    const err = errorItems(t.posts).at(-1);
    assert.ok(err && err.kind === 'error');
    assert.equal(err.action, 'setApiKey');
    assert.equal(err.text, noApiKey(true));
    assert.equal(t.service.runtime?.agent.state.messages.length, 0, 'not in the conversation (nor saved)');
    assert.equal(t.service.sessionLabel?.title, before, 'the session keeps its name');
    assert.notEqual(t.service.sessionLabel?.title, 'Refactor the parser please');

    t.keys.status = 'secret-storage';
    await t.service.send('Refactor the parser please');
    assert.equal(t.agents.seen.length, 1, 'with a key it goes');
    assert.equal(t.service.sessionLabel?.title, 'Refactor the parser please', 'and names the session');
  });

  it('a server on this machine needs no key: the send goes', async () => {
    const t = fakeChat();
    t.keys.status = 'missing';
    t.settings.change({ agent: { baseUrl: 'http://127.0.0.1:8787' } });
    await t.service.send('hello');
    assert.equal(t.agents.seen.length, 1);
  });

  it('the protocol carries the Set API key action and the baseUrl setting command, nothing else', () => {
    assert.ok(parseChatToHost({ type: 'command', command: 'openBaseUrlSetting' }).ok);
    assert.ok(!parseChatToHost({ type: 'command', command: 'workbench.action.openSettings' }).ok);
    const item = { kind: 'error', id: 'e1', text: 'x', retryable: false, action: 'setApiKey' };
    assert.ok(parseChatToWebview({ type: 'upsert', item }).ok);
    assert.ok(!parseChatToWebview({ type: 'upsert', item: { ...item, action: 'deleteEverything' } }).ok);
  });

  it('a rejected key (authentication) shows Set API key, and Retry for the message still unanswered', () => {
    const posts: ChatToWebview[] = [];
    const r = new TranscriptRenderer({ post: (m) => void posts.push(m) });
    r.render({
      type: 'error',
      error: { kind: 'authentication', retryable: false, message: 'The API key was rejected.' },
    });
    r.render({ type: 'error', error: { kind: 'overloaded', retryable: true, message: 'Overloaded.' } });
    const [auth, other] = errorItems(posts);
    assert.ok(auth?.kind === 'error' && other?.kind === 'error');
    assert.equal(auth.action, 'setApiKey');
    assert.equal(auth.retryable, true);
    assert.equal(other.action, undefined);
  });
});
