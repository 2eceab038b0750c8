import { strict as assert } from 'node:assert';
import type { Usage } from '../../src/core/llm/llmClient';
import type { AgentEvent, SessionSink } from '../../src/core/agent/events';
import type { CompactionRecord } from '../../src/core/compaction/types';
import type { Message } from '../../src/core/conversation/conversationModel';
import { reportedPromptTokens } from '../../src/core/tokens/promptTokens';
import { BudgetHistory } from '../../src/host/budget/budgetData';
import { SessionBill } from '../../src/app/sessionBill';
import { Build } from './support/builders';
import { summaryBlock } from './support/sessionSamples';
import { withStorePort } from './support/storePort';

const usage = (input: number, read: number, write: number, output: number): Usage => ({
  input_tokens: input,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write,
  output_tokens: output,
});

/**
 * Plays one session twice at once, as the controller does: every message, usage and
 * compaction goes to the session file (the real StoreSessionPort sink) and, as agent events,
 * to the live BudgetHistory. Turns with one and with several requests, a compaction between
 * requests, a turn that failed before any usage, a request with a cache miss, server figures
 * and a count_tokens anchor.
 */
async function playSession(
  sink: SessionSink,
  live: Pick<BudgetHistory, 'observe'>,
  clock: { now(): number },
): Promise<void> {
  const b = new Build('lv');
  const messages: Message[] = [];
  const say = async (m: Message) => {
    messages.push(m);
    await sink.message(m);
  };
  const event = (e: AgentEvent) => live.observe(e);
  const request = async (u: Usage, extra: Partial<Parameters<SessionSink['usage']>[0]> = {}) => {
    event({
      type: 'request_started',
      round: 1,
      attempt: 1,
      estimatedTokens: reportedPromptTokens(u) + 9,
      anchored: true,
    });
    const record = {
      usage: u,
      model: 'claude-sonnet-4-6',
      costUsd: 0.001 * u.output_tokens,
      estimatedTokens: reportedPromptTokens(u) + 9,
      at: clock.now(),
      ...extra,
    };
    await sink.usage(record);
    event({ type: 'usage', ...record, reportedTokens: reportedPromptTokens(u) });
  };
  const turn = async (n: number, body: () => Promise<void>) => {
    event({ type: 'turn_started', turn: n });
    await say(b.message('user', [b.text(`question ${n}`)], n));
    await body();
    event({ type: 'turn_finished', reason: 'end_turn' });
  };

  await turn(1, async () => {
    await request(usage(1200, 0, 1000, 40));
    await say(b.message('assistant', [b.text('reading', 'assistant')], 1));
    await request(usage(60, 1000, 240, 30));
    await say(b.message('assistant', [b.text('done', 'assistant')], 1));
  });
  // A compaction between turns: the next request carries the marker.
  const replaced = messages.slice(0, 2);
  const summary = summaryBlock('cmp_lv', 'Turn 1 read a file.', 'blk_lv_sum');
  const record: CompactionRecord = {
    id: 'cmp_lv',
    at: clock.now(),
    trigger: 'manual',
    layer: 'summarise',
    strategy: 'summarise',
    regions: [],
    originals: replaced,
    replacement: [b.message('user', [summary], 1)],
    summary: summary.text,
    tokensBefore: 1300,
    tokensAfter: 200,
    costUsd: 0.001,
    durationMs: 5,
    fallbacks: [],
  };
  await sink.compaction(record);
  event({ type: 'compaction_finished', records: [record], notices: [] });
  await turn(2, async () => {
    await request(usage(300, 0, 200, 25));
    await say(b.message('assistant', [b.text('two', 'assistant')], 2));
  });
  // A turn that failed before any usage: no row, no forecast point.
  await turn(3, async () => {
    event({ type: 'request_started', round: 1, attempt: 1, estimatedTokens: 600, anchored: true });
    event({ type: 'error', error: { kind: 'overloaded', message: 'busy', retryable: true } });
  });
  await turn(4, async () => {
    await request(usage(80, 500, 20, 12), {
      cacheMiss: { cause: 'ttl_expired', missedTokens: 500, source: 'ledger', detail: 'The cache expired.' },
      counted: 600,
      server: {
        appliedEdits: [{ type: 'clear_tool_uses_20250919', clearedInputTokens: 900, clearedToolUses: 2 }],
        iterations: [],
      },
    });
    await say(b.message('assistant', [b.text('four', 'assistant')], 4));
    await request(usage(20, 600, 10, 8));
  });
}

describe('request history: the live rows equal the rows rebuilt from the saved file', () => {
  it('for the same session, row by row and forecast point by point', async () => {
    await withStorePort('cp-lvs-', Date.UTC(2026, 10, 23, 12, 0, 0), async (port, clock) => {
      const open = await port.create('claude-sonnet-4-6');
      const live = new BudgetHistory(open.requestHistory);
      await playSession(open.sink, live, clock);
      await open.close();
      const again = await port.open(open.id);
      assert.ok(again.ok);
      const reloaded = new BudgetHistory(again.session.requestHistory);
      assert.equal(live.requests.length, 5);
      assert.deepEqual(reloaded.requests, live.requests);
      assert.deepEqual(reloaded.turnPrompts, live.turnPrompts);
      assert.deepEqual(
        live.requests.map((r) => r.compactedBefore),
        [false, false, true, false, false],
      );
      assert.deepEqual(live.turnPrompts, [1300 + 30, 500 + 25, 630 + 8]);
      assert.equal(live.requests[3]?.serverCleared, 900);
      assert.equal(live.requests[3]?.counted, 600);
      await again.session.close();
    });
  });

  it('the bill counts the summaries: live and reopened, the same total', async () => {
    await withStorePort('cp-lvs-', Date.UTC(2026, 10, 23, 12, 0, 0), async (port, clock) => {
      const open = await port.create('claude-sonnet-4-6');
      const bill = new SessionBill();
      bill.opened(open);
      const live = new BudgetHistory(open.requestHistory);
      await playSession(open.sink, { observe: (e) => (bill.observe(e), live.observe(e)) }, clock);
      await open.close();
      // Five requests at $0.001 an output token, and the summary's $0.001.
      const expected = 0.001 * (40 + 30 + 25 + 12 + 8) + 0.001;
      assert.ok(Math.abs((bill.costUsd ?? 0) - expected) < 1e-9, `${bill.costUsd}`);
      assert.ok(Math.abs((bill.summariesCostUsd ?? NaN) - 0.001) < 1e-12);
      const again = await port.open(open.id);
      assert.ok(again.ok);
      assert.ok(Math.abs((again.session.costUsd ?? 0) - expected) < 1e-9, `${again.session.costUsd}`);
      const reopened = new SessionBill();
      reopened.opened(again.session);
      assert.ok(Math.abs((reopened.summariesCostUsd ?? NaN) - 0.001) < 1e-12);
      await again.session.close();
    });
  });
});
