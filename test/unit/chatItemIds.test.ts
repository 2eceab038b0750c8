import { strict as assert } from 'node:assert';
import { ChatNotices } from '../../src/app/chatNotices';
import type { AgentEvent } from '../../src/core/agent/events';
import { TranscriptRenderer } from '../../src/host/chat/transcriptRenderer';
import type { ChatToWebview } from '../../src/protocol/chat';

/** The ids of the items upserted, in order. */
const upserted = (posts: readonly ChatToWebview[]) => posts.flatMap((p) => (p.type === 'upsert' ? [p.item.id] : []));

describe('Chat notice and error ids: two in the same millisecond never share one', () => {
  it('the renderer: notices, errors, compaction notices on a clock that does not move', () => {
    const posts: ChatToWebview[] = [];
    const r = new TranscriptRenderer({ post: (m) => void posts.push(m) }, undefined, () => 42);
    const error: AgentEvent = {
      type: 'error',
      error: { kind: 'network', message: 'Network down.', retryable: true },
    };
    const events: AgentEvent[] = [
      { type: 'notice', level: 'warning', text: 'one' },
      { type: 'notice', level: 'warning', text: 'two' },
      error,
      error,
      { type: 'compaction_queued' },
      { type: 'compaction_queued' },
      // Two compactions, each with its outcome line (a second start of the same one keeps its line).
      { type: 'compaction_started', trigger: 'manual' },
      { type: 'compaction_finished', records: [], notices: [] },
      { type: 'compaction_started', trigger: 'manual' },
      { type: 'compaction_finished', records: [], notices: [] },
    ];
    for (const e of events) r.render(e);
    const ids = upserted(posts);
    assert.equal(ids.length, events.length);
    assert.equal(new Set(ids).size, ids.length, `ids repeat: ${ids.join(', ')}`);
  });

  it('two renderers (a session switch) on the same millisecond', () => {
    const posts: ChatToWebview[] = [];
    const view = { post: (m: ChatToWebview) => void posts.push(m) };
    new TranscriptRenderer(view, undefined, () => 42).render({ type: 'notice', level: 'info', text: 'a' });
    new TranscriptRenderer(view, undefined, () => 42).render({ type: 'notice', level: 'info', text: 'b' });
    const ids = upserted(posts);
    assert.equal(new Set(ids).size, 2, `ids repeat: ${ids.join(', ')}`);
  });

  it("the chat service's notices and errors, and never one of the renderer's", () => {
    const posts: ChatToWebview[] = [];
    const view = { post: (m: ChatToWebview) => void posts.push(m) };
    const notices = new ChatNotices(view, { now: () => 42 });
    notices.notice('n', 'warning', 'one');
    notices.notice('n', 'warning', 'two');
    notices.error('first');
    notices.error('second');
    notices.project([
      { level: 'info', text: 'a' },
      { level: 'info', text: 'b' },
    ]);
    const r = new TranscriptRenderer(view, undefined, () => 42);
    r.render({ type: 'notice', level: 'warning', text: 'three' });
    r.render({ type: 'error', error: { kind: 'unknown', message: 'x', retryable: false } });
    const ids = upserted(posts);
    assert.equal(ids.length, 8);
    assert.equal(new Set(ids).size, ids.length, `ids repeat: ${ids.join(', ')}`);
  });
});
