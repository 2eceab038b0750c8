import { strict as assert } from 'node:assert';
import type { AgentEvent } from '../../src/core/agent/events';
import { TranscriptRenderer } from '../../src/host/chat/transcriptRenderer';
import type { ChatToWebview } from '../../src/protocol/chat';
import type { ChatItem } from '../../src/protocol/chatItems';
import { Build } from './support/builders';
import { fakeChat } from './support/chatServiceFakes';
import { Gate } from './support/gate';

/**
 * The chat webview's transcript as its message handler builds it (webview/chat/main.ts): a
 * transcript replaces everything, an upsert replaces its id in place or adds it at the end, a
 * delta appends to an assistant item it names (and is lost when there is none).
 */
function viewOf(posts: readonly ChatToWebview[]): ChatItem[] {
  let items: ChatItem[] = [];
  for (const p of posts) {
    if (p.type === 'transcript') items = [...p.items];
    else if (p.type === 'upsert') {
      const at = items.findIndex((i) => i.id === p.item.id);
      if (at >= 0) items[at] = p.item;
      else items.push(p.item);
    } else if (p.type === 'delta' || p.type === 'thinkingDelta')
      items = items.map((i) =>
        i.id !== p.id || i.kind !== 'assistant'
          ? i
          : p.type === 'delta'
            ? { ...i, text: i.text + p.text }
            : { ...i, thinking: { ...i.thinking, text: (i.thinking?.text ?? '') + p.text } },
      );
  }
  return items;
}

const request: AgentEvent = { type: 'request_started', round: 1, attempt: 1, estimatedTokens: 10, anchored: false };

describe('Chat resync: a view hidden and shown again mid-turn gets the turn in flight back', () => {
  it('the answer streamed so far comes back (not only the saved transcript), and later deltas go on from it', async () => {
    const t = fakeChat({ realTranscript: true });
    const hold = new Gate();
    t.agents.answers.push({ content: [{ type: 'text', text: 'Hello world' }], streamed: ['Hel', 'lo '], hold });
    const sending = t.service.send('hi');
    await t.agents.requests.reached(1);
    // Hidden meanwhile: what was posted before is gone with the old webview; the new one posts ready.
    const shownAt = t.posts.length;
    await t.service.onReady();
    const shown = viewOf(t.posts.slice(shownAt));
    const answer = shown.at(-1);
    assert.equal(shown[0]?.kind, 'user');
    assert.ok(answer?.kind === 'assistant', `the answer in flight is shown: ${JSON.stringify(shown)}`);
    assert.equal(answer.text, 'Hello ');
    assert.equal(answer.streaming, true);
    hold.open();
    await sending;
    const done = viewOf(t.posts.slice(shownAt)).filter((i) => i.kind === 'assistant');
    assert.deepEqual(
      done.map((i) => i.kind === 'assistant' && [i.text, i.streaming]),
      [['Hello world', false]],
      'the finished answer replaces the one in flight, none is left behind',
    );
  });

  it('the tool cards of the round in progress come back as they stand (finished ones done, the rest running), and the thinking streamed', () => {
    const b = new Build('r');
    const posts: ChatToWebview[] = [];
    const r = new TranscriptRenderer({ post: (m) => void posts.push(m) });
    const user = b.message('user', [b.text('look around')], 1);
    const [read, list] = [b.toolUse('read_file', { path: 'a.ts' }), b.toolUse('list_files')];
    const calls = b.message('assistant', [b.text('Reading.', 'assistant'), read, list], 1);
    for (const e of [
      { type: 'turn_started', turn: 1 },
      { type: 'message_added', message: user },
      request,
      { type: 'message_added', message: calls },
      { type: 'tool_started', call: read },
      { type: 'tool_finished', call: read, outcome: { content: 'const a = 1;', isError: false, durationMs: 3 } },
      { type: 'tool_started', call: list },
    ] satisfies AgentEvent[])
      r.render(e);
    posts.length = 0;
    r.resync([user, calls]);
    const tools = viewOf(posts).filter((i) => i.kind === 'tool');
    assert.deepEqual(
      tools.map((i) => i.kind === 'tool' && [i.name, i.status, i.result]),
      [
        ['read_file', 'done', 'const a = 1;'],
        ['list_files', 'running', undefined],
      ],
    );
    // The results are in the conversation: the next round streams, thinking first.
    const results = b.message('user', [b.toolResult(read.id, 'const a = 1;'), b.toolResult(list.id, 'a.ts')], 1);
    for (const e of [
      { type: 'tool_finished', call: list, outcome: { content: 'a.ts', isError: false } },
      { type: 'message_added', message: results },
      request,
      { type: 'thinking_delta', text: 'The file ' },
      { type: 'thinking_delta', text: 'is short.' },
      { type: 'text_delta', text: 'It sets' },
    ] satisfies AgentEvent[])
      r.render(e);
    posts.length = 0;
    r.resync([user, calls, results]);
    const shown = viewOf(posts);
    assert.deepEqual(
      shown.filter((i) => i.kind === 'tool').map((i) => i.kind === 'tool' && i.status),
      ['done', 'done'],
    );
    const answer = shown.at(-1);
    assert.ok(answer?.kind === 'assistant' && answer.streaming);
    assert.deepEqual([answer.text, answer.thinking?.text], ['It sets', 'The file is short.']);
    // Once the turn is over nothing is in flight: a resync is the saved transcript alone, with the plan (none), and no countdown.
    r.render({ type: 'turn_finished', reason: 'stopped' });
    posts.length = 0;
    r.resync([user, calls, results]);
    assert.deepEqual(
      posts.map((p) => (p.type === 'retrying' ? `retrying ${p.waitMs}` : p.type)),
      ['transcript', 'plan', 'retrying 0'],
    );
  });
});
