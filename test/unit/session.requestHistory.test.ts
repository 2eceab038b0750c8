import { strict as assert } from 'node:assert';
import type { AgentEvent } from '../../src/core/agent/events';
import type { Usage } from '../../src/core/llm/llmClient';
import type { Message } from '../../src/core/conversation/conversationModel';
import type { SessionEntry } from '../../src/core/session/entries';
import { replaySession } from '../../src/core/session/replay';
import { EMPTY_REQUEST_HISTORY, requestHistoryOf } from '../../src/core/session/requestHistory';
import { BudgetHistory } from '../../src/host/budget/budgetData';
import { analyzeSession } from '../../src/host/sessions/sessionLoader';
import { Build } from './support/builders';
import { compactionEntry, entriesOf, sampleConversation, summaryReplacement } from './support/sessionSamples';
import { withStorePort } from './support/storePort';

const usage = (input: number, read: number, write: number, output: number): Usage => ({
  input_tokens: input,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write,
  output_tokens: output,
});
const usageEntry = (requestIndex: number, turn: number, u: Usage, cost = 0.01): SessionEntry => ({
  type: 'usage',
  at: 2e12 + requestIndex,
  requestIndex,
  turn,
  model: 'claude-sonnet-4-6',
  usage: u,
  estimatedInputTokens: u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens + 7,
  costUsd: cost,
});

/** A session's conversation, then three requests with a compaction between the second and the third. */
function file(): { entries: SessionEntry[]; conv: Message[] } {
  const b = new Build('rh');
  const conv = sampleConversation(b);
  const replacement = summaryReplacement(b, 'cmp_1', 'The user had a.ts read.');
  const entries: SessionEntry[] = [
    ...entriesOf(conv),
    usageEntry(1, 1, usage(900, 0, 800, 40), 0.02),
    usageEntry(2, 1, usage(50, 800, 120, 30)),
    compactionEntry({
      at: 2e12 + 10,
      id: 'cmp_1',
      trigger: 'manual',
      originals: conv.slice(0, 4),
      replacement,
      tokensBefore: 1000,
      tokensAfter: 100,
    }),
    usageEntry(3, 2, usage(300, 0, 200, 25)),
  ];
  return { entries, conv };
}

describe('request history rebuilt from the session file', () => {
  it('makes one row per usage entry, in order, with the API usage, estimate and cost', () => {
    const h = requestHistoryOf(file().entries);
    assert.deepEqual(h.requests, [
      {
        index: 1,
        turn: 1,
        promptTokens: 1700,
        input: 900,
        cacheRead: 0,
        cacheWrite: 800,
        output: 40,
        estimated: 1707,
        costUsd: 0.02,
        compactedBefore: false,
      },
      {
        index: 2,
        turn: 1,
        promptTokens: 970,
        input: 50,
        cacheRead: 800,
        cacheWrite: 120,
        output: 30,
        estimated: 977,
        costUsd: 0.01,
        compactedBefore: false,
      },
      {
        index: 3,
        turn: 2,
        promptTokens: 500,
        input: 300,
        cacheRead: 0,
        cacheWrite: 200,
        output: 25,
        estimated: 507,
        costUsd: 0.01,
        compactedBefore: true,
      },
    ]);
    // The forecast's series: per turn, the last prompt plus its answer.
    assert.deepEqual(h.turnPrompts, [970 + 30, 500 + 25]);
    assert.equal(h.compactedSinceLast, false);
  });

  it('carries a compaction after the last request over to the next one', () => {
    const { entries } = file();
    const compaction = entries.find((e) => e.type === 'compaction');
    assert.ok(compaction);
    const h = requestHistoryOf([...entries.filter((e) => e !== compaction), compaction]);
    assert.deepEqual(
      h.requests.map((r) => r.compactedBefore),
      [false, false, false],
    );
    assert.equal(h.compactedSinceLast, true);
  });

  it('is empty for a session without requests', () => {
    assert.deepEqual(requestHistoryOf(entriesOf(sampleConversation())), EMPTY_REQUEST_HISTORY);
  });

  it('comes with the replayed session, and a compaction replay skipped marks nothing', () => {
    const { entries } = file();
    assert.deepEqual(replaySession(entries).requestHistory, requestHistoryOf(entries));
    const b = new Build('sk');
    const bogus = compactionEntry({
      at: 1,
      id: 'cmp_ghost',
      replacedIds: ['msg_nowhere'],
      originals: [],
      replacement: [b.message('user', [b.text('x')], 1)],
      tokensBefore: 1,
      tokensAfter: 1,
    });
    const withBogus = [...entries.slice(0, -1), bogus, ...entries.slice(-1)].filter(
      (e) => e.type !== 'compaction' || e.id === 'cmp_ghost',
    );
    const replayed = replaySession(withBogus);
    assert.equal(replayed.problems.length, 1, 'the bogus compaction is reported as skipped');
    assert.deepEqual(
      replayed.requestHistory.requests.map((r) => r.compactedBefore),
      [false, false, false],
    );
  });

  it('loads from a session file written before the history was rebuilt (no new field, format version 1)', () => {
    const msg = (id: string, role: string, turn: number, text: string, source: string) =>
      JSON.stringify({
        type: 'message',
        at: 1_700_000_000_100,
        message: {
          id,
          role,
          turn,
          blocks: [
            {
              type: 'text',
              text,
              meta: { id: `b_${id}`, tier: 1, source, createdAt: 0, pinned: false, compactable: source !== 'user' },
            },
          ],
        },
      });
    const lines = [
      '{"type":"header","format":"context-pipeline-session","version":1,"sessionId":"2026-11-21T23-59-00-old001","createdAt":1700000000000,"model":"claude-sonnet-4-5","workspace":"demo"}',
      msg('m1', 'user', 1, 'What does greet do?', 'user'),
      msg('m2', 'assistant', 1, 'It greets.', 'assistant'),
      '{"type":"usage","at":1700000000200,"requestIndex":1,"turn":1,"model":"claude-sonnet-4-5","usage":{"input_tokens":2400,"output_tokens":12,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"estimatedInputTokens":2390,"costUsd":0.0074}',
      '{"type":"pin","at":1700000000300,"blockId":"b_m1"}',
    ];
    const a = analyzeSession(new TextEncoder().encode(`${lines.join('\n')}\n`), 'old001', 1_700_000_001_000);
    assert.equal(a.error, undefined);
    assert.equal(a.changed, true, 'a version 1 file is saved again in the current version');
    assert.deepEqual(a.droppedLines, [], 'every line of it reads');
    assert.deepEqual(a.session?.requestHistory.requests, [
      {
        index: 1,
        turn: 1,
        promptTokens: 2400,
        input: 2400,
        cacheRead: 0,
        cacheWrite: 0,
        output: 12,
        estimated: 2390,
        costUsd: 0.0074,
        compactedBefore: false,
      },
    ]);
  });

  it('survives closing and reopening the session through the store (what a window reload does)', async () => {
    await withStorePort('cp-rh-', Date.UTC(2026, 10, 21, 23, 59, 0), async (port, clock) => {
      const open = await port.create('claude-sonnet-4-6');
      assert.deepEqual(open.requestHistory, EMPTY_REQUEST_HISTORY);
      const b = new Build('rt');
      for (const m of [b.message('user', [b.text('hi')], 1), b.message('assistant', [b.text('hello', 'assistant')], 1)])
        await open.sink.message(m);
      await open.sink.usage({
        usage: usage(1000, 0, 900, 20),
        model: 'claude-sonnet-4-6',
        costUsd: 0.004,
        estimatedTokens: 1890,
        at: clock.now(),
      });
      await open.sink.usage({
        usage: usage(30, 900, 50, 15),
        model: 'claude-sonnet-4-6',
        costUsd: 0.001,
        estimatedTokens: 985,
        at: clock.now(),
      });
      await open.close();
      const again = await port.open(open.id);
      assert.ok(again.ok);
      assert.deepEqual(
        again.session.requestHistory.requests.map((r) => [
          r.index,
          r.promptTokens,
          r.cacheRead,
          r.cacheWrite,
          r.output,
          r.estimated,
          r.costUsd,
        ]),
        [
          [1, 1900, 0, 900, 20, 1890, 0.004],
          [2, 980, 900, 50, 15, 985, 0.001],
        ],
      );
      await again.session.close();
    });
  });
});

describe('BudgetHistory seeded from the session file', () => {
  it('shows the saved requests and numbers new ones after them, with a pending compaction marker', () => {
    const { entries } = file();
    const compaction = entries.find((e) => e.type === 'compaction');
    assert.ok(compaction);
    const saved = requestHistoryOf([...entries.filter((e) => e !== compaction), compaction]);
    const h = new BudgetHistory(saved);
    assert.deepEqual(
      h.requests.map((r) => r.index),
      [1, 2, 3],
    );
    assert.ok(
      h.requests.every((r) => !('turn' in r)),
      'rows carry exactly the protocol fields',
    );
    assert.deepEqual(h.turnPrompts, [1000, 525]);
    const u = usage(200, 300, 0, 10);
    const events: AgentEvent[] = [
      { type: 'turn_started', turn: 3 },
      { type: 'request_started', round: 1, attempt: 1, estimatedTokens: 505, anchored: true },
      {
        type: 'usage',
        usage: u,
        model: 'claude-sonnet-4-6',
        costUsd: 0.002,
        estimatedTokens: 505,
        reportedTokens: 500,
      },
      { type: 'turn_finished', reason: 'end_turn' },
    ];
    for (const e of events) h.observe(e);
    assert.deepEqual(h.requests.at(-1), {
      index: 4,
      promptTokens: 500,
      input: 200,
      cacheRead: 300,
      cacheWrite: 0,
      output: 10,
      estimated: 505,
      costUsd: 0.002,
      compactedBefore: true,
    });
    assert.deepEqual(h.turnPrompts, [1000, 525, 510]);
    // A turn that ends with no reported usage (stopped, failed) adds no forecast point, as in the file.
    h.observe({ type: 'turn_started', turn: 4 });
    h.observe({ type: 'request_started', round: 1, attempt: 1, estimatedTokens: 520, anchored: true });
    h.observe({ type: 'turn_finished', reason: 'stopped' });
    assert.deepEqual(h.turnPrompts, [1000, 525, 510]);
  });

  it('starts empty without a saved history', () => {
    const h = new BudgetHistory();
    assert.deepEqual([h.requests, h.turnPrompts], [[], []]);
  });
});
