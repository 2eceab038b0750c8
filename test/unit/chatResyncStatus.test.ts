import { strict as assert } from 'node:assert';
import type { AgentEvent } from '../../src/core/agent/events';
import { TranscriptRenderer } from '../../src/host/chat/transcriptRenderer';
import type { ChatToWebview } from '../../src/protocol/chat';
import { Build } from './support/builders';

/** A renderer on a clock the test moves, and what it posted. */
function renderer() {
  const posts: ChatToWebview[] = [];
  const clock = { now: 1_000_000 };
  const r = new TranscriptRenderer({ post: (m) => void posts.push(m) }, undefined, () => clock.now);
  return { r, posts, clock };
}

const request: AgentEvent = { type: 'request_started', round: 1, attempt: 1, estimatedTokens: 10, anchored: false };
const rateLimited: AgentEvent = {
  type: 'retrying',
  attempt: 1,
  waitMs: 30_000,
  error: { kind: 'rate_limit', message: 'Rate limited by the API.', retryable: true },
};
const retrying = (posts: readonly ChatToWebview[]) =>
  posts.filter((p): p is Extract<ChatToWebview, { type: 'retrying' }> => p.type === 'retrying');

describe('Chat resync: a view shown again gets the transient state back', () => {
  const b = new Build('s');
  const user = b.message('user', [b.text('hi')], 1);

  it('during a retry wait: the countdown comes back with the time left, and goes once the retry starts', () => {
    const { r, posts, clock } = renderer();
    for (const e of [{ type: 'turn_started', turn: 1 }, request, rateLimited] satisfies AgentEvent[]) r.render(e);
    clock.now += 12_000;
    posts.length = 0;
    r.resync([user]);
    assert.deepEqual(retrying(posts).at(-1), {
      type: 'retrying',
      waitMs: 18_000,
      attempt: 1,
      reason: 'Rate limited by the API.',
    });
    assert.equal(posts[0]?.type, 'transcript', 'after the transcript');
    r.render({ ...request, attempt: 2 });
    posts.length = 0;
    r.resync([user]);
    assert.equal(retrying(posts).at(-1)?.waitMs, 0, 'the retry runs: a countdown kept by the view is cleared');
  });

  it('a countdown that ran out, or a turn that ended, shows none', () => {
    const { r, posts, clock } = renderer();
    for (const e of [{ type: 'turn_started', turn: 1 }, request, rateLimited] satisfies AgentEvent[]) r.render(e);
    clock.now += 31_000;
    posts.length = 0;
    r.resync([user]);
    assert.equal(retrying(posts).at(-1)?.waitMs, 0);
    r.render(rateLimited);
    r.render({ type: 'turn_finished', reason: 'stopped' });
    posts.length = 0;
    r.resync([user]);
    assert.equal(retrying(posts).at(-1)?.waitMs, 0);
  });

  it('during a compaction: its "Compacting…" notice comes back; not once it finished or replaced the history', () => {
    const { r, posts } = renderer();
    r.render({ type: 'compaction_started', trigger: 'manual' });
    posts.length = 0;
    r.resync([user]);
    const notices = posts.flatMap((p) => (p.type === 'upsert' && p.item.kind === 'notice' ? [p.item.text] : []));
    assert.deepEqual(notices, ['Compacting…']);
    r.render({ type: 'history_replaced', messages: [user] });
    r.render({ type: 'compaction_finished', records: [], notices: [] });
    posts.length = 0;
    r.resync([user]);
    assert.ok(!posts.some((p) => p.type === 'upsert' && p.item.kind === 'notice'), JSON.stringify(posts));
  });
});
