import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { CacheAnchor } from '../../src/core/cache/cacheAnchors';
import { PRIOR_GAP_STATS, ReplyGaps, startsTurn, turnEndChance, type GapStats } from '../../src/core/cache/replyGaps';
import { chooseTtls, type TtlChoiceInput } from '../../src/core/cache/ttlChoice';
import { requestCostUsd } from '../../src/core/llm/cost';
import { planningPrices } from '../../src/core/models/modelFacts';
import { PromptCache } from '../../test/fake-anthropic/promptCache';
import type { PromptLayout } from '../../test/fake-anthropic/promptLayout';
import { Build } from './support/builders';
import { anchor, STABLE as stable, tail } from './support/cacheAnchorFakes';

const MODEL = 'claude-sonnet-4-5';
const MIN = 60_000;

function input(over: Partial<Omit<TtlChoiceInput, 'gaps'>> & { gaps?: Partial<GapStats> } = {}): TtlChoiceInput {
  return {
    lifetime: 'auto',
    prices: planningPrices(MODEL),
    readTokens: 0,
    missRate: 0,
    ...over,
    gaps: { ...PRIOR_GAP_STATS, ...over.gaps },
  };
}

describe('cache lifetimes by the gap they bridge (core/cache/ttlChoice.ts)', () => {
  it('a fixed setting gives every breakpoint that lifetime', () => {
    for (const ttl of ['5m', '1h'] as const)
      assert.deepEqual(
        chooseTtls([...stable, tail(60_000)], input({ lifetime: ttl })).map((a) => a.ttl),
        [ttl, ttl, ttl],
      );
  });

  it('keeps the stable prefix an hour when pauses over 5 minutes come before it is lost; not when full misses lose it first', () => {
    const pauses = input({
      gaps: { turnEnd: 0.1, longReply: 0.5, overHour: 0.05, replies: 10, longReplies: 5, requests: 100 },
    });
    const t = chooseTtls([...stable], pauses);
    assert.deepEqual(
      t.map((a) => a.ttl),
      ['1h', '1h'],
    );
    assert.match(t[1]!.ttlReason, /kept for an hour/);
    // A session whose cache misses every tenth request and whose user never pauses: an hour would not pay.
    const busy = input({
      gaps: { turnEnd: 0.1, longReply: 0.02, overHour: 0, replies: 10, longReplies: 1, requests: 100 },
      missRate: 0.1,
    });
    assert.deepEqual(
      chooseTtls([...stable], busy).map((a) => a.ttl),
      ['5m', '5m'],
    );
  });

  it("writes the stable prefix for 5 minutes at a session's first request, and for an hour once the session has run long enough to pause", () => {
    // Nothing is known of the session yet: it has not paused, and no pause is expected in it yet.
    const first = chooseTtls([...stable], input({ gaps: { ...PRIOR_GAP_STATS, requests: 0 } }));
    assert.deepEqual(
      first.map((a) => a.ttl),
      ['5m', '5m'],
    );
    assert.match(first[1]!.ttlReason, /no reply in this session has come after 5 minutes yet/);
    // Paused once after two requests: the two to come are not expected to pause again.
    const early = chooseTtls(
      [...stable],
      input({ gaps: { ...PRIOR_GAP_STATS, replies: 1, longReplies: 1, requests: 2 } }),
    );
    assert.equal(early[1]!.ttl, '5m');
    assert.match(early[1]!.ttlReason, /pauses over 5 minutes expected in the next 2 requests/);
    // The same rhythm after 60 requests, one reply of them after 20 minutes: the next 60 are
    // expected to pause about once (0.1 × 0.2 × 60): an hour pays.
    const paused = { ...PRIOR_GAP_STATS, replies: 1, longReplies: 1, requests: 60 };
    const later = chooseTtls([...stable], input({ gaps: paused }));
    assert.deepEqual(
      later.map((a) => a.ttl),
      ['1h', '1h'],
    );
    // A session that never pauses does not pay for an hour, however long it runs.
    const never = chooseTtls(
      [...stable],
      input({ gaps: { turnEnd: 0.1, longReply: 0.01, overHour: 0.01, replies: 50, longReplies: 0, requests: 500 } }),
    );
    assert.deepEqual(
      never.map((a) => a.ttl),
      ['5m', '5m'],
    );
    // A live entry keeps its lifetime: the mark says it.
    const cached = chooseTtls([...stable], input({ gaps: { ...PRIOR_GAP_STATS, requests: 500 }, stableCached: '5m' }));
    assert.deepEqual(
      cached.map((a) => a.ttl),
      ['5m', '5m'],
    );
  });

  it('keeps the tail an hour when the turn often ends and the reply comes late, 5 minutes inside a long tool loop', () => {
    const chat = input({
      gaps: { turnEnd: 0.5, longReply: 0.5, overHour: 0.05, replies: 10, longReplies: 5 },
      readTokens: 58_000,
    });
    const c = chooseTtls([...stable, tail(60_000)], chat);
    assert.deepEqual(
      c.map((a) => a.ttl),
      ['1h', '1h', '1h'],
    );
    assert.match(c[2]!.ttlReason, /^kept for an hour: a 50 % chance the turn ends here/);
    // 100 tool rounds per turn: the same prompt, the same growth, the tail stays at 5 minutes.
    const loop = input({
      gaps: { turnEnd: 0.01, longReply: 0.5, overHour: 0.05, replies: 10, longReplies: 5, requests: 1000 },
      readTokens: 58_000,
    });
    const l = chooseTtls([...stable, tail(60_000)], loop);
    assert.deepEqual(
      l.map((a) => a.ttl),
      ['1h', '1h', '5m'],
    );
    assert.match(l[2]!.ttlReason, /^kept for 5 minutes/);
    // A request that writes its whole prompt (the cache was cold) pays the surcharge on all of it.
    const cold = chooseTtls([...stable, tail(60_000)], {
      ...chat,
      readTokens: 0,
      gaps: { ...chat.gaps, turnEnd: 0.1 },
    });
    assert.equal(cold[2]!.ttl, '5m');
  });

  it('weighs the turn ending at this request by how deep in its turn it is: 1/depth at most', () => {
    // A session whose turns end every fourth request on average, its user replying late half the time.
    const figures = {
      gaps: { turnEnd: 0.25, longReply: 0.5, overHour: 0.05, replies: 10, longReplies: 5, requests: 100 },
      readTokens: 58_000,
    };
    const at = (turnDepth: number) => chooseTtls([...stable, tail(60_000)], input({ ...figures, turnDepth }))[2]!;
    // The first requests of a turn: the session's rate, 25 %.
    assert.equal(at(1).ttl, '1h');
    assert.match(at(1).ttlReason, /a 25 % chance the turn ends here/);
    assert.match(at(4).ttlReason, /a 25 % chance the turn ends here/);
    // The 40th request of a turn that is still going: a 3 % chance, and an hour does not pay.
    assert.equal(at(40).ttl, '5m');
    assert.match(at(40).ttlReason, /^kept for 5 minutes: a 3 % chance the turn ends here/);
    // Absent, the depth is 1: the session's rate as before.
    assert.equal(chooseTtls([...stable, tail(60_000)], input(figures))[2]!.ttl, '1h');
  });

  it('never puts a 1-hour breakpoint after a 5-minute one, whatever the figures (the API refuses that)', () => {
    const target = fc.oneof(
      fc.constant<CacheAnchor['target']>({ at: 'tools' }),
      fc.constant<CacheAnchor['target']>({ at: 'system' }),
      fc.integer({ min: 0, max: 50 }).map((i): CacheAnchor['target'] => ({ at: 'message', messageIndex: i })),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(target, fc.integer({ min: 1, max: 200_000 })), { maxLength: 4 }),
        fc.record({
          turnEnd: fc.double({ min: 0, max: 1, noNaN: true }),
          longReply: fc.double({ min: 0, max: 1, noNaN: true }),
          overHour: fc.double({ min: 0, max: 1, noNaN: true }),
          longReplies: fc.integer({ min: 0, max: 5 }),
        }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 200_000 }),
        (raw, gaps, missRate, readTokens) => {
          const order = (t: CacheAnchor['target']) => (t.at === 'tools' ? -2 : t.at === 'system' ? -1 : t.messageIndex);
          const anchors = raw.map(([t, n]) => anchor(t, n)).sort((a, b) => order(a.target) - order(b.target));
          const ttls = chooseTtls(
            anchors,
            input({ gaps: { ...gaps, replies: 5, requests: 50 }, missRate, readTokens }),
          ).map((a) => a.ttl);
          const first5m = ttls.indexOf('5m');
          return first5m < 0 || !ttls.slice(first5m).includes('1h');
        },
      ),
    );
  });
});

describe("the session's rhythm (core/cache/replyGaps.ts)", () => {
  it('starts from the priors and moves toward what the session does', () => {
    const g = new ReplyGaps();
    for (const k of ['turnEnd', 'longReply', 'overHour', 'replies'] as const)
      assert.ok(Math.abs(g.stats[k] - PRIOR_GAP_STATS[k]) < 1e-12, k);
    // Ten turns of four requests each, the user replying after 20 minutes every time.
    let t = 0;
    for (let turn = 0; turn < 10; turn++)
      for (let r = 0; r < 4; r++) {
        t += r === 0 ? 20 * MIN : 10_000;
        g.observe(t, r === 0);
      }
    const s = g.stats;
    assert.equal(s.replies, 9);
    assert.equal(s.longReplies, 9);
    // Nine long replies of nine, against a prior of one in five worth five replies.
    assert.ok(s.longReply > 0.7, `long replies ${s.longReply}`);
    assert.ok(Math.abs(s.turnEnd - 0.25) < 0.05, `turn end ${s.turnEnd}`);
    // Replies after two hours count as lost to any lifetime, not as long replies.
    const late = new ReplyGaps();
    for (let i = 0; i < 10; i++) late.observe(i * 120 * MIN, true);
    assert.ok(late.stats.overHour > 0.6 && late.stats.longReply < 0.15, JSON.stringify(late.stats));
  });

  it('counts the requests of the current turn; the chance a turn ends falls as 1/depth past the session rate', () => {
    const g = new ReplyGaps();
    assert.equal(g.stats.turnRequests, 0);
    let t = 0;
    for (const starts of [true, false, false, true, false]) g.observe((t += 10_000), starts);
    assert.equal(g.stats.turnRequests, 2);
    g.observe(t + 10_000, true);
    assert.equal(g.stats.turnRequests, 1);
    assert.equal(turnEndChance(0.1, 1), 0.1);
    assert.equal(turnEndChance(0.1, 10), 0.1);
    assert.equal(turnEndChance(0.1, 40), 1 / 40);
    assert.equal(turnEndChance(0.1, 0), 0.1);
  });

  it('a request starts a turn when its last message is the user’s with no tool result', () => {
    const b = new Build('rg');
    const call = b.toolUse('read', { path: 'a' });
    const hello = b.message('user', [b.text('hello')], 1);
    assert.equal(startsTurn([hello]), true);
    assert.equal(startsTurn([hello, b.message('assistant', [b.text('hi', 'assistant')], 1)]), false);
    const round = [hello, b.message('assistant', [call], 1), b.message('user', [b.toolResult(call.id, 'text')], 1)];
    assert.equal(startsTurn(round), false);
    assert.equal(startsTurn([]), false);
  });
});

describe('writes priced per lifetime (core/llm/cost.ts)', () => {
  it('prices the 1-hour part of the writes at the 1-hour price, the rest at 5 minutes', () => {
    const p = planningPrices(MODEL);
    const usage = {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 1_000_000,
    };
    const split = requestCostUsd(MODEL, {
      ...usage,
      cache_creation: { ephemeral_5m_input_tokens: 400_000, ephemeral_1h_input_tokens: 600_000 },
    });
    assert.ok(split !== undefined);
    assert.ok(Math.abs(split - (0.4 * p.cacheWrite5m + 0.6 * p.cacheWrite1h)) < 1e-9);
    // Without a split, all writes at the lifetime given.
    assert.ok(Math.abs((requestCostUsd(MODEL, usage, '1h') ?? 0) - p.cacheWrite1h) < 1e-9);
    assert.ok(Math.abs((requestCostUsd(MODEL, usage) ?? 0) - p.cacheWrite5m) < 1e-9);
  });
});

describe('the fake prompt cache and lifetimes (test/fake-anthropic/promptCache.ts)', () => {
  const layout = (n: number, ttl: '5m' | '1h'): PromptLayout => ({
    blocks: Array.from({ length: n }, (_, i) => ({
      loc: i < 2 ? `system.${i}` : `messages.${i}`,
      key: `b${i}`,
      tokens: 1000,
      cacheable: true,
      ...(i === n - 1 ? { breakpoint: ttl } : {}),
    })),
    totalTokens: n * 1000,
  });

  it('a 1-hour entry survives a 20-minute pause; a 5-minute one does not; marking a 5-minute entry 1h later does not extend it', () => {
    let now = 0;
    const cache = new PromptCache(() => now);
    cache.process(MODEL, layout(5, '1h'), 1024);
    now += 20 * MIN;
    assert.equal(cache.process(MODEL, layout(6, '5m'), 1024).cache_read_input_tokens, 5000);

    const other = new PromptCache(() => now);
    other.process(MODEL, layout(5, '5m'), 1024);
    now += 1 * MIN;
    // The same prefix marked 1h: a read, refreshed for its own 5 minutes, nothing written at 1h.
    const again = other.process(MODEL, layout(5, '1h'), 1024);
    assert.equal(again.cache_creation.ephemeral_1h_input_tokens, 0);
    now += 20 * MIN;
    assert.equal(other.process(MODEL, layout(5, '5m'), 1024).cache_read_input_tokens, 0);
  });

  it('keepWarm marks a shared prefix as just read, whatever the pause', () => {
    let now = 0;
    const cache = new PromptCache(() => now);
    cache.process(MODEL, layout(5, '5m'), 1024);
    now += 40 * MIN;
    const l = layout(5, '5m');
    cache.keepWarm(MODEL, l, 2, '5m');
    const withSystemBreakpoint: PromptLayout = {
      ...l,
      blocks: l.blocks.map((b, i) => (i === 1 ? { ...b, breakpoint: '5m' as const } : b)),
    };
    assert.equal(cache.process(MODEL, withSystemBreakpoint, 1024).cache_read_input_tokens, 2000);
    assert.equal(cache.stats().hits, 1);
  });
});

describe('the writes split by lifetime reach the usage record and the session file', () => {
  it('the client keeps the API’s cache_creation split; a version 7 usage line keeps it; a malformed one is refused', async () => {
    const { AnthropicLlmClient } = await import('../../src/host/anthropic/anthropicClient');
    const { createServer } = await import('node:http');
    const usage = {
      input_tokens: 5,
      output_tokens: 1,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 3000,
      cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
    };
    const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const message = { id: 'm', type: 'message', role: 'assistant', model: 'claude-x', content: [], usage };
        res.write(sse('message_start', { type: 'message_start', message: { ...message, stop_reason: null } }));
        res.write(
          sse('message_delta', {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn' },
            usage: { output_tokens: 1 },
          }),
        );
        res.end(sse('message_stop', { type: 'message_stop' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const address = server.address();
      assert.ok(address && typeof address === 'object');
      const client = new AnthropicLlmClient({
        apiKey: async () => 'sk-ant-api03-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
        baseUrl: `http://127.0.0.1:${address.port}`,
        retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
        sleep: async () => undefined,
      });
      const r = await client.stream(
        { model: 'claude-x', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
        { signal: new AbortController().signal, onEvent: () => undefined },
      );
      assert.ok(r.ok);
      assert.deepEqual(r.result.usage.cache_creation, usage.cache_creation);
    } finally {
      server.close();
    }

    const { encodeEntry } = await import('../../src/core/session/entries');
    const { decodeLine } = await import('../../src/core/session/lineCodec');
    const entry = {
      type: 'usage' as const,
      at: 1,
      requestIndex: 1,
      turn: 1,
      model: MODEL,
      usage: { ...usage, output_tokens: 1 },
      estimatedInputTokens: 3100,
    };
    const d = decodeLine(encodeEntry(entry));
    assert.ok(d.ok);
    assert.deepEqual(d.entry, entry);
    const bad = encodeEntry(entry).replace('"ephemeral_1h_input_tokens":2000', '"ephemeral_1h_input_tokens":"x"');
    assert.equal(decodeLine(bad).ok, false);
  });
});
