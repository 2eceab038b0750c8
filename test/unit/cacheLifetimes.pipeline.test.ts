import { strict as assert } from 'node:assert';
import { Compactor } from '../../src/core/compaction/compactor';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import type { ConversationState } from '../../src/core/conversation/conversationModel';
import { buildLedger } from '../../src/core/pipeline/ledger';
import { prepareRequest } from '../../src/core/pipeline/pipeline';
import type { RequestTokens } from '../../src/core/tokens/requestTokens';
import { counterIds } from '../../src/core/platform/platformPorts';
import { validateRequest } from '../../test/fake-anthropic/validateRequest';
import { initialCalibration } from '../../src/core/tokens/calibration';
import { fakeClock } from './support/builders';
import { Convo, lines, tokensOf } from './support/compactionBuilders';
import { countingTokenizer } from './support/tokenFakes';
import { ttlsOf } from './support/cacheAnchorFakes';

const MIN = 60_000;
const CHATTY = { turnEnd: 0.5, longReply: 0.6, overHour: 0.05, replies: 10, longReplies: 6, requests: 40 };
const LOOPING = { turnEnd: 0.01, longReply: 0.6, overHour: 0.05, replies: 10, longReplies: 6, requests: 200 };

/** A conversation whose system prompt is 15k tokens and whose messages are 40k, counted by hand. */
function request() {
  const count = (s: ConversationState): RequestTokens => ({
    tools: 0,
    system: 15_000,
    messages: s.messages.map(() => 40_000 / Math.max(1, s.messages.length)),
    total: 55_000,
    anchored: false,
  });
  return { count, clock: fakeClock() };
}

describe('cache lifetimes through the pipeline', () => {
  const convo = new Convo().user('look at a.ts').read('a.ts', lines(40)).say('done').user('and b.ts?');
  const withSystem: ConversationState = {
    ...convo.state(),
    system: [convo.b.text('You are a coding agent.', 'system')],
  };

  it('writes each breakpoint with its lifetime, 1-hour ones first; the fake API accepts the request', () => {
    const { count, clock } = request();
    // The previous request wrote everything up to the answer a minute ago: this one writes only the new question.
    const answer = withSystem.messages.at(-2);
    assert.ok(answer);
    const n = withSystem.messages.length;
    const through = 15_000 + (40_000 * (n - 1)) / n;
    const previous = { messageId: answer.id, sentAt: clock.now() - MIN, ttl: '5m' as const, prefixTokens: through };
    const cold = prepareRequest(withSystem, { count, clock, gaps: CHATTY });
    assert.deepEqual(
      ttlsOf(cold.params),
      ['1h', '5m'],
      'writing the whole prompt for an hour costs more than it saves',
    );
    const chatty = prepareRequest(withSystem, { count, clock, gaps: CHATTY, previous });
    assert.deepEqual(ttlsOf(chatty.params), ['1h', '1h']);
    assert.equal(chatty.lastBreakpoint?.ttl, '1h');
    validateRequest(JSON.parse(JSON.stringify(chatty.params)), 'messages');
    const looping = prepareRequest(withSystem, { count, clock, gaps: LOOPING, previous });
    assert.deepEqual(ttlsOf(looping.params), ['1h', '5m']);
    validateRequest(JSON.parse(JSON.stringify(looping.params)), 'messages');
    // The ledger says each breakpoint's lifetime and why.
    const ledger = buildLedger(looping.sent, looping.anchors, countingTokenizer(), initialCalibration());
    const marked = ledger.filter((r) => r.breakpoint);
    assert.deepEqual(
      marked.map((r) => r.ttl?.value),
      ['1h', '5m'],
    );
    assert.match(marked[1]?.ttl?.reason ?? '', /kept for 5 minutes: a 1 % chance the turn ends here/);
  });

  it("deep in a long tool loop the tail stays 5 minutes; the request carrying the user's message is weighed at the session rate", () => {
    const { count, clock } = request();
    const convoLoop = new Convo().user('fix the tests').read('a.ts', lines(40)).read('b.ts', lines(40));
    const inLoop = { ...convoLoop.state(), system: [convoLoop.b.text('You are a coding agent.', 'system')] };
    const answer = inLoop.messages.at(-2);
    assert.ok(answer);
    const n = inLoop.messages.length;
    const previous = {
      messageId: answer.id,
      sentAt: clock.now() - MIN,
      ttl: '5m' as const,
      prefixTokens: 15_000 + (40_000 * (n - 1)) / n,
    };
    // The session's turns are short (half its requests end one), but this one has sent 39 requests already.
    const deep = prepareRequest(inLoop, { count, clock, gaps: { ...CHATTY, turnRequests: 39 }, previous });
    assert.equal(ttlsOf(deep.params).at(-1), '5m');
    assert.match(deep.anchors.at(-1)?.ttlReason ?? '', /a 3 % chance the turn ends here/);
    // Its second request: the session's rate.
    const early = prepareRequest(inLoop, { count, clock, gaps: { ...CHATTY, turnRequests: 1 }, previous });
    assert.equal(ttlsOf(early.params).at(-1), '1h');
    // A new message of the user's is a turn's first request, however long the last turn ran.
    const asked = prepareRequest(withSystem, {
      count,
      clock,
      gaps: { ...CHATTY, turnRequests: 39 },
      previous: {
        messageId: withSystem.messages.at(-2)!.id,
        sentAt: clock.now() - MIN,
        ttl: '5m' as const,
        prefixTokens: 15_000 + (40_000 * (withSystem.messages.length - 1)) / withSystem.messages.length,
      },
    });
    assert.equal(ttlsOf(asked.params).at(-1), '1h');
    assert.match(asked.anchors.at(-1)?.ttlReason ?? '', /a 50 % chance the turn ends here/);
  });

  it('the stable prefix keeps the lifetime its live entry was written with, and is given one when written again', () => {
    const { count, clock } = request();
    const answer = withSystem.messages.at(-2);
    assert.ok(answer);
    const n = withSystem.messages.length;
    const through = 15_000 + (40_000 * (n - 1)) / n;
    const base = { messageId: answer.id, sentAt: clock.now() - MIN, ttl: '5m' as const, prefixTokens: through };
    // Written for 5 minutes by the session's first request and still warm: its mark stays 5 minutes, whatever the figures say.
    const warm5m = prepareRequest(withSystem, {
      count,
      clock,
      gaps: LOOPING,
      previous: { ...base, stable: { tokens: 15_000, ttl: '5m' } },
    });
    assert.deepEqual(ttlsOf(warm5m.params), ['5m', '5m']);
    assert.match(warm5m.anchors[0]?.ttlReason ?? '', /cached for 5 minutes already/);
    assert.deepEqual(warm5m.lastBreakpoint?.stable, { tokens: 15_000, ttl: '5m' });
    // The same entry written for an hour stays an hour.
    const warm1h = prepareRequest(withSystem, {
      count,
      clock,
      gaps: LOOPING,
      previous: { ...base, stable: { tokens: 15_000, ttl: '1h' } },
    });
    assert.deepEqual(ttlsOf(warm1h.params), ['1h', '5m']);
    // Expired (the last request was 10 minutes ago): written again, for an hour in a session long enough to pause in.
    const expired = prepareRequest(withSystem, {
      count,
      clock,
      gaps: LOOPING,
      previous: { ...base, sentAt: clock.now() - 10 * MIN, stable: { tokens: 15_000, ttl: '5m' } },
    });
    assert.equal(ttlsOf(expired.params)[0], '1h');
    assert.deepEqual(expired.lastBreakpoint?.stable, { tokens: 15_000, ttl: '1h' });
    // A changed system prompt (another size) is written again too.
    const changed = prepareRequest(withSystem, {
      count,
      clock,
      gaps: LOOPING,
      previous: { ...base, stable: { tokens: 9_000, ttl: '5m' } },
    });
    assert.equal(ttlsOf(changed.params)[0], '1h');
  });

  it('a fixed cacheTtl setting writes every breakpoint with it', () => {
    const { count, clock } = request();
    const fixed = { ...withSystem, config: { ...withSystem.config, cacheTtl: '5m' as const } };
    assert.deepEqual(ttlsOf(prepareRequest(fixed, { count, clock, gaps: CHATTY }).params), ['5m', '5m']);
  });
});

describe('the cache counts as cold after the lifetime the last request wrote', () => {
  /** Five long tool results, then a new question: microcompact material once the cache is cold. */
  function idleSession(): ConversationState {
    const c = new Convo().user();
    for (let i = 0; i < 5; i++) c.call('run_command', { command: `c${i}` }, lines(10, 50, `o${i}`));
    c.say()
      .user()
      .read('a.ts', lines(10, 50, 'r1'))
      .read('b.ts', lines(10, 50, 'r2'))
      .read('c.ts', lines(10, 50, 'r3'));
    return c.say().user('next').state();
  }

  it('20 minutes after a 1-hour tail nothing is cleared; after a 5-minute tail old results are', async () => {
    const clock = fakeClock();
    const compactor = new Compactor({
      summariser: { complete: () => Promise.reject(new Error('no summary expected')) } as never,
      clock,
      ids: counterIds('r'),
      tokensOf,
      measure: (s) => s.messages.reduce((n, m) => n + tokensOf(m), 0),
      settings: () => DEFAULT_COMPACTION_SETTINGS,
      timeout: () => new Promise(() => undefined),
    });
    const signal = new AbortController().signal;
    const state = idleSession();
    const lastRequestAt = clock.now() - 20 * MIN;
    const warm = await compactor.beforeRequest(state, { lastRequestAt, lastTtl: '1h', signal });
    assert.deepEqual(
      warm.records.map((r) => r.layer),
      [],
    );
    const cold = await compactor.beforeRequest(state, { lastRequestAt, lastTtl: '5m', signal });
    assert.ok(
      cold.records.some((r) => r.layer === 'microcompact'),
      cold.records.map((r) => r.layer).join(),
    );
  });
});
