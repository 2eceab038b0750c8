import { strict as assert } from 'node:assert';
import { resolveConfig } from '../../src/core/pipeline/config';
import { contextPressure } from '../../src/core/pipeline/window';
import type { ChatToWebview } from '../../src/protocol/chat';
import { fakeChat } from './support/chatServiceFakes';
import { Gate } from './support/gate';

type Status = Extract<ChatToWebview, { type: 'status' }>;
const statuses = (posts: readonly ChatToWebview[]) => posts.filter((p): p is Status => p.type === 'status');

describe('ChatService: the status it publishes', () => {
  it('before the first request: the settings window, no prompt yet, a new session', async () => {
    const t = fakeChat();
    await t.service.onReady();
    const r = resolveConfig({});
    assert.ok(r.ok);
    const s = statuses(t.posts).at(-1);
    assert.equal(s?.model, r.config.model);
    assert.equal(s?.contextWindow, r.config.contextWindow);
    assert.equal(s?.baseUrl, 'https://one.example');
    assert.equal(s?.sessionTitle, 'Untitled session');
    assert.equal(s?.busy, false);
    assert.deepEqual(t.figures.at(-1), { promptTokens: 0, window: r.config.contextWindow });
  });

  it('after a turn: the reported prompt size, and a status while the turn ran that says busy', async () => {
    const t = fakeChat();
    await t.service.send('hello');
    const all = statuses(t.posts);
    assert.ok(all.some((s) => s.busy));
    const last = all.at(-1);
    assert.equal(last?.busy, false);
    assert.equal(last?.promptTokens, 100);
    assert.equal(last?.sessionTitle, 'hello');
    assert.equal(t.figures.at(-1)?.promptTokens, 100);
  });

  it("the header's pressure: the one % full of the usable window, and what the soft threshold does", async () => {
    const t = fakeChat();
    await t.service.send('hello');
    const p = statuses(t.posts).at(-1)?.pressure;
    const r = resolveConfig({});
    assert.ok(r.ok && p);
    const expected = contextPressure(100, r.config);
    assert.equal(p.fullness, expected.fullness);
    assert.match(p.fullness, /^0 % of the \d+k usable window$/);
    assert.equal(p.softAction, t.settings.compaction().softAction);
  });

  it('busy from Send on: a message waiting for its project context shows Stop at once, then its turn runs', async () => {
    const t = fakeChat();
    t.agents.projectGate = new Gate();
    const sending = t.service.send('hello');
    await t.agents.projectWaited.wait();
    await new Promise<void>((r) => setImmediate(r)); // the status posted at Send has gone out
    assert.equal(statuses(t.posts).at(-1)?.busy, true, 'busy while the message waits');
    assert.equal(t.agents.seen.length, 0, 'nothing sent yet');
    t.agents.projectGate.open();
    await sending;
    assert.equal(t.agents.seen.length, 1);
    assert.equal(statuses(t.posts).at(-1)?.busy, false);
  });

  it('Stop while a message is being prepared: it is not sent, the chat says how to get it back, and the next one goes', async () => {
    const t = fakeChat();
    t.agents.projectGate = new Gate();
    const sending = t.service.send('hello');
    await t.agents.projectWaited.wait();
    t.service.stop();
    t.agents.projectGate.open();
    await sending;
    assert.equal(t.agents.seen.length, 0, 'not sent');
    const notice = t.posts.find((p) => p.type === 'upsert' && p.item.kind === 'notice');
    assert.match(
      notice?.type === 'upsert' && notice.item.kind === 'notice' ? notice.item.text : '',
      /Stopped before the message was sent; it is back in the message box/,
    );
    assert.equal(t.posts.filter((p) => p.type === 'unsent').length, 1, 'the composer takes it back');
    assert.equal(statuses(t.posts).at(-1)?.busy, false);
    await t.service.send('again');
    assert.equal(t.agents.seen.length, 1, 'a later message is not stopped');
    assert.equal(t.posts.filter((p) => p.type === 'unsent').length, 1, 'a message that went is not given back');
  });

  // The composer must never be idle and empty between the two: words typed there would be
  // overwritten, or a message queued during the turn sent in place of the one given back.
  it('a message that did not go is given back before the status that ends busy (stopped while prepared, refused by the agent)', async () => {
    const stopped = fakeChat();
    stopped.agents.projectGate = new Gate();
    const sending = stopped.service.send('hello');
    await stopped.agents.projectWaited.wait();
    stopped.service.stop();
    stopped.agents.projectGate.open();
    await sending;
    // A whitespace-only message stands for any the agent refuses before it enters the conversation.
    const refused = fakeChat();
    await refused.service.send('   ');
    for (const t of [stopped, refused]) {
      const fromBusy = t.posts.slice(t.posts.findIndex((p) => p.type === 'status' && p.busy));
      const seq = fromBusy.map((p) => (p.type === 'status' ? (p.busy ? 'busy' : 'idle') : p.type));
      assert.ok(seq.includes('unsent'), `given back: ${seq.join(' ')}`);
      assert.ok(seq.indexOf('unsent') < seq.indexOf('idle'), `unsent before idle: ${seq.join(' ')}`);
      assert.equal(statuses(t.posts).at(-1)?.busy, false);
    }
  });

  it('with invalid settings: the header says so, no figures are published, and a message is refused with the reason', async () => {
    const t = fakeChat();
    t.settings.pipeline = { contextWindow: 10 };
    const resolved = t.settings.pipelineConfig();
    assert.ok(!resolved.ok, 'the fixture settings must be invalid');
    await t.service.postStatus();
    assert.equal(statuses(t.posts).at(-1)?.model, '(invalid settings)');
    assert.deepEqual(t.figures, []);
    await t.service.send('hi');
    assert.equal(t.posts.at(-1)?.type, 'unsent', 'the composer takes the message back');
    const err = t.posts.at(-2);
    assert.ok(err?.type === 'upsert' && err.item.kind === 'error');
    assert.equal(err.item.kind === 'error' && err.item.text.endsWith('your message was not sent.'), true);
    assert.deepEqual(t.agents.seen, []);
  });

  it('a refused pin is shown in the chat as a warning', async () => {
    const t = fakeChat();
    await t.service.pin('no-such-message', true);
    const notice = t.posts.at(-1);
    assert.ok(notice?.type === 'upsert' && notice.item.kind === 'notice' && notice.item.level === 'warning');
  });
});
