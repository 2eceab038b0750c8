import { strict as assert } from 'node:assert';
import { INTERRUPTED_CALL } from '../../src/core/normalize/standInAnswers';
import type { Message } from '../../src/core/conversation/conversationModel';
import { transcriptOf } from '../../src/host/chat/transcript';
import { TranscriptRenderer } from '../../src/host/chat/transcriptRenderer';
import type { ChatToWebview } from '../../src/protocol/chat';
import type { ChatItem } from '../../src/protocol/chatItems';
import { Build } from './support/builders';

/** A session closed while its tools ran (e.g. VS Code quit): the file ends with calls and no results. */
function closedWhileToolsRan(): { messages: Message[]; readId: string } {
  const b = new Build('i');
  const done = b.toolUse('list_files');
  const open = b.toolUse('read_file', { path: 'a.ts' });
  return {
    messages: [
      b.message('user', [b.text('look around')], 1),
      b.message('assistant', [done], 1),
      b.message('user', [b.toolResult(done.id, 'a.ts')], 1),
      b.message('assistant', [b.text('Reading it.', 'assistant'), open], 1),
    ],
    readId: open.id,
  };
}

const toolCards = (items: readonly ChatItem[]) =>
  items.flatMap((i) => (i.kind === 'tool' ? [[i.name, i.status, i.result] as const] : []));

describe('Transcript: a tool call that never got a result', () => {
  it('reopened with no turn running, it shows cancelled with the interrupted result its next message sends, not running…', () => {
    const { messages } = closedWhileToolsRan();
    assert.deepEqual(toolCards(transcriptOf(messages)), [
      ['list_files', 'done', 'a.ts'],
      ['read_file', 'cancelled', INTERRUPTED_CALL],
    ]);
  });

  it('while a turn runs, the calls of its last message are running', () => {
    const { messages } = closedWhileToolsRan();
    assert.deepEqual(toolCards(transcriptOf(messages, undefined, true)), [
      ['list_files', 'done', 'a.ts'],
      ['read_file', 'running', undefined],
    ]);
  });

  it('the chat renderer says running only between turn_started and turn_finished', () => {
    const { messages, readId } = closedWhileToolsRan();
    const posts: ChatToWebview[] = [];
    const r = new TranscriptRenderer({ post: (m) => void posts.push(m) });
    const statusAfterResync = () => {
      posts.length = 0;
      r.resync(messages);
      const t = posts[0];
      const card = t?.type === 'transcript' ? t.items.find((i) => i.id === readId) : undefined;
      return card?.kind === 'tool' ? card.status : undefined;
    };
    assert.equal(statusAfterResync(), 'cancelled', 'reopened: no turn runs');
    r.render({ type: 'turn_started', turn: 1 });
    assert.equal(statusAfterResync(), 'running');
    r.render({ type: 'turn_finished', reason: 'error' });
    assert.equal(statusAfterResync(), 'cancelled', 'the turn ended without its results');
    r.render({ type: 'history_replaced', messages });
    const replaced = [...posts].reverse().find((p) => p.type === 'transcript');
    assert.ok(replaced?.type === 'transcript');
    assert.deepEqual(toolCards(replaced.items).at(-1)?.slice(0, 2), ['read_file', 'cancelled']);
  });
});
