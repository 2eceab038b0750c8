import { strict as assert } from 'node:assert';
import { AgentSession } from '../../src/core/agent/agentSession';
import { ReplyGaps, type PastRequest } from '../../src/core/cache/replyGaps';
import type { Usage } from '../../src/core/llm/llmClient';
import { Build, emptyState, fakeClock } from './support/builders';
import { agentDeps } from './support/agentDeps';
import { FakeTools, ScriptedLlm } from './support/scriptedLlm';
import { withStorePort } from './support/storePort';
import { ttlsOf } from './support/cacheAnchorFakes';

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 30, 9, 0, 0);

/** Two turns of one request each, the second asked 20 minutes after the first was answered. */
const PAST: readonly PastRequest[] = [
  { at: T0, turn: 1 },
  { at: T0 + 20 * MIN, turn: 2 },
];

/**
 * A reopened session with two earlier turns and a long system prompt, whose next turn reads a
 * file and answers: the breakpoints each of its two requests sends.
 */
async function nextTurn(past: readonly PastRequest[] | undefined): Promise<string[][]> {
  const b = new Build('rg');
  const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
  const state = emptyState({
    system: [b.text(`You are a coding agent. ${words(3000)}`, 'system')],
    messages: [
      b.message('user', [b.text(`first question ${words(400)}`)], 1),
      b.message('assistant', [b.text(`first answer ${words(400)}`, 'assistant')], 1),
      b.message('user', [b.text(`second question ${words(400)}`)], 2),
      b.message('assistant', [b.text(`second answer ${words(400)}`, 'assistant')], 2),
    ],
  });
  const llm = new ScriptedLlm([
    { content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } }] },
    { content: [{ type: 'text', text: 'done' }] },
  ]);
  // Reopened two minutes after the last answer.
  const clock = fakeClock(T0 + 22 * MIN);
  const session = new AgentSession(
    state,
    agentDeps({
      llm,
      clock,
      tools: new FakeTools({ read_file: 'export const a = 1;' }),
      ...(past ? { pastRequests: past } : {}),
    }),
    () => undefined,
  );
  const sent = await session.send('and the third?');
  assert.ok(sent.ok);
  assert.equal(llm.requests.length, 2);
  return llm.requests.map(ttlsOf);
}

describe('a reopened session goes on from the rhythm of replies it saved (cache lifetimes)', () => {
  it('ReplyGaps.fromPast: a turn begun 20 minutes after an answer is a long reply; the reopening pause is the next reply', () => {
    const gaps = ReplyGaps.fromPast(PAST);
    assert.deepEqual(
      { replies: gaps.stats.replies, longReplies: gaps.stats.longReplies, requests: gaps.stats.requests },
      { replies: 1, longReplies: 1, requests: 1 },
    );
    // A request of the same turn is no reply; a new turn after 2 minutes is a short one.
    const again = ReplyGaps.fromPast([...PAST, { at: T0 + 20 * MIN + 5_000, turn: 2 }]);
    again.observe(T0 + 23 * MIN, true);
    assert.deepEqual(
      { replies: again.stats.replies, longReplies: again.stats.longReplies },
      { replies: 2, longReplies: 1 },
    );
    assert.equal(ReplyGaps.fromPast([]).stats.replies, 0);
  });

  it('the session file gives back every request with its turn, oldest first (StoreSessionPort)', async () => {
    await withStorePort('cp-rg-', T0, async (port, clock) => {
      const open = await port.create('claude-sonnet-4-6');
      assert.deepEqual(open.pastRequests, []);
      const b = new Build('rgs');
      const usage: Usage = {
        input_tokens: 10,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
        output_tokens: 5,
      };
      const request = () =>
        open.sink.usage({ usage, model: 'claude-sonnet-4-6', costUsd: 0.001, estimatedTokens: 10, at: clock.now() });
      await open.sink.message(b.message('user', [b.text('one')], 1));
      await request();
      clock.advance(20 * MIN);
      await open.sink.message(b.message('user', [b.text('two')], 2));
      await request();
      await open.close();
      const again = await port.open(open.id);
      assert.ok(again.ok);
      assert.deepEqual(again.session.pastRequests, PAST);
      await again.session.close();
    });
  });

  it('its next turn may keep a tail for an hour at once; opened without its past, every breakpoint is 5 minutes until it pauses', async () => {
    const withPast = await nextTurn(PAST);
    assert.ok(
      withPast.some((ttls) => ttls.includes('1h')),
      `a session that has paused before prices an hour: ${JSON.stringify(withPast)}`,
    );
    const without = await nextTurn(undefined);
    assert.ok(
      without.every((ttls) => ttls.length > 0 && ttls.every((t) => t === '5m')),
      `no pause seen yet: ${JSON.stringify(without)}`,
    );
  });
});
