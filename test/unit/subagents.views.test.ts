import { strict as assert } from 'node:assert';
import type { AgentEvent } from '../../src/core/agent/events';
import { Build, testConfig } from './support/builders';
import { contextPressure } from '../../src/core/pipeline/window';
import type { SubagentFigures, SubagentRecord } from '../../src/core/subagents/subagentRecord';
import { BudgetHistory } from '../../src/host/budget/budgetData';
import { TranscriptRenderer } from '../../src/host/chat/transcriptRenderer';
import { statusBarText, type ContextFigures } from '../../src/host/statusBarText';
import { parseChatToHost, parseChatToWebview, type ChatToWebview } from '../../src/protocol/chat';
import { SessionBill } from '../../src/app/sessionBill';
import { EMPTY_REQUEST_HISTORY } from '../../src/core/session/requestHistory';
import type { CompactionRecord } from '../../src/core/compaction/types';

const FIGURES: SubagentFigures = {
  sessionId: '2026-11-29T10-00-05-child1',
  description: 'Find the store',
  model: 'claude-haiku-4-5',
  state: 'running',
  requests: 1,
  rounds: 2,
  toolCalls: 1,
  lastTool: 'Read src/store.ts',
  compactions: 0,
  usage: { input_tokens: 1000, output_tokens: 100, cache_read_input_tokens: 500, cache_creation_input_tokens: 0 },
  costUsd: 0.0016,
};
const RECORD: SubagentRecord = { ...FIGURES, state: 'done', requests: 2, costUsd: 0.003, toolUseId: 'toolu_t', at: 5 };

describe('subagents in the views: the card, the budget row, the status bar', () => {
  it('the task card follows its subagent live, keeps its figures when it ends and after a reload', () => {
    const b = new Build('v');
    const posts: ChatToWebview[] = [];
    const records: SubagentRecord[] = [];
    const r = new TranscriptRenderer(
      { post: (m) => void posts.push(m) },
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      () => records,
    );
    const call = { id: 'toolu_t', name: 'task', input: { description: 'Find the store', prompt: 'Where?' } };
    const user = b.message('user', [b.text('go')], 1);
    const asked = b.message('assistant', [{ ...b.toolUse('task', call.input), id: call.id }], 1);
    for (const e of [
      { type: 'turn_started', turn: 1 },
      { type: 'message_added', message: user },
      { type: 'message_added', message: asked },
      { type: 'tool_started', call },
      { type: 'subagent_progress', toolUseId: call.id, figures: FIGURES },
    ] satisfies AgentEvent[])
      r.render(e);
    const live = posts.at(-1);
    assert.ok(live?.type === 'upsert' && live.item.kind === 'tool');
    assert.equal(live.item.status, 'running');
    assert.deepEqual(live.item.subagent, {
      sessionId: FIGURES.sessionId,
      model: 'claude-haiku-4-5',
      state: 'running',
      requests: 1,
      rounds: 2,
      toolCalls: 1,
      lastTool: 'Read src/store.ts',
      compactions: 0,
      tokens: 1600,
      costUsd: 0.0016,
    });
    for (const p of posts) assert.ok(parseChatToWebview(p).ok, 'every post is valid for the webview');
    records.push(RECORD);
    r.render({ type: 'subagent_finished', record: RECORD });
    r.render({ type: 'tool_finished', call, outcome: { content: 'The store is in store.ts.', isError: false } });
    const done = posts.at(-1);
    assert.ok(done?.type === 'upsert' && done.item.kind === 'tool');
    assert.equal(done.item.status, 'done');
    assert.equal(done.item.subagent?.state, 'done');
    assert.equal(done.item.subagent?.costUsd, 0.003);
    r.render({ type: 'turn_finished', reason: 'end_turn' });
    // After a reload the card is built from the conversation and the session's records.
    posts.length = 0;
    const results = b.message('user', [b.toolResult(call.id, 'The store is in store.ts.')], 1);
    r.resync([user, asked, results]);
    const transcript = posts.find((p) => p.type === 'transcript');
    assert.ok(transcript?.type === 'transcript');
    const card = transcript.items.find((i) => i.kind === 'tool');
    assert.ok(card?.kind === 'tool');
    assert.equal(card.subagent?.sessionId, FIGURES.sessionId);
    assert.ok(parseChatToWebview(transcript).ok);
    assert.ok(parseChatToHost({ type: 'openSubagent', sessionId: FIGURES.sessionId }).ok);
    assert.ok(!parseChatToHost({ type: 'openSubagent', sessionId: '../../etc/passwd' }).ok, 'a path is no session id');
  });

  it('the budget panel lists the subagents apart from the requests, with the turn each ran in', () => {
    const h = new BudgetHistory();
    h.observe({ type: 'turn_started', turn: 3 });
    h.observe({
      type: 'usage',
      usage: { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      model: 'claude-sonnet-4-6',
      costUsd: 0.001,
      estimatedTokens: 10,
      reportedTokens: 10,
    });
    h.observe({ type: 'subagent_finished', record: RECORD });
    assert.equal(h.requests.length, 1);
    assert.deepEqual(h.subagents, [
      {
        turn: 3,
        description: 'Find the store',
        model: 'claude-haiku-4-5',
        state: 'done',
        requests: 2,
        rounds: 2,
        toolCalls: 1,
        promptTokens: 1500,
        cacheRead: 500,
        cacheWrite: 0,
        output: 100,
        costUsd: 0.003,
      },
    ]);
  });

  it('the status bar and the header bill count the subagents, and say how much was theirs', () => {
    const cfg = testConfig();
    const figures: ContextFigures = {
      promptTokens: 10_000,
      window: cfg.contextWindow,
      outputReserve: cfg.outputReserve,
      softThreshold: cfg.softThreshold,
      hardThreshold: cfg.hardThreshold,
      pressure: contextPressure(10_000, cfg),
      costUsd: 0.0131,
      compactions: 0,
    };
    assert.match(statusBarText(figures).tooltip, /Cost this session: \$0\.0131\./);
    // The context engine in use is named (the host sets it); absent, nothing is said.
    assert.match(statusBarText({ ...figures, engine: 'Sliding window' }).tooltip, /Context engine: Sliding window\./);
    assert.doesNotMatch(statusBarText(figures).tooltip, /Context engine/);
    assert.match(
      statusBarText({ ...figures, subagents: { costUsd: 0.003 } }).tooltip,
      /Cost this session: \$0\.0131 \(subagents \$0\.0030\)\./,
    );
    // What the compaction summariser spent is named beside it.
    assert.match(
      statusBarText({ ...figures, summaries: { costUsd: 0.004 }, subagents: { costUsd: 0.003 } }).tooltip,
      /Cost this session: \$0\.0131 \(summaries \$0\.0040, subagents \$0\.0030\)\./,
    );
    // …and what the handoff note that started the session cost.
    assert.match(
      statusBarText({ ...figures, summaries: { costUsd: 0.004 }, handoff: { costUsd: 0.0051 } }).tooltip,
      /Cost this session: \$0\.0131 \(summaries \$0\.0040, handoff note \$0\.0051\)\./,
    );
    const handedOff = new SessionBill();
    handedOff.opened({
      costUsd: 0.0051,
      subagents: [],
      compactions: [],
      lastPromptTokens: 0,
      requestHistory: EMPTY_REQUEST_HISTORY,
      continuedFrom: { sessionId: 'old', title: 'Old', noteCostUsd: 0.0051 },
    });
    assert.equal(handedOff.handoffCostUsd, 0.0051);
    const bill = new SessionBill();
    bill.opened({
      costUsd: 0.01,
      subagents: [],
      compactions: [],
      lastPromptTokens: 5,
      requestHistory: EMPTY_REQUEST_HISTORY,
    });
    assert.equal(bill.observe({ type: 'subagent_finished', record: RECORD }), true);
    assert.ok(Math.abs((bill.costUsd ?? 0) - 0.013) < 1e-12);
    assert.equal(bill.subagentsCostUsd, 0.003);
    bill.observe({ type: 'subagent_finished', record: { ...RECORD, costUsd: undefined } });
    assert.equal(bill.costUsd, undefined, 'an unknown price makes the total unknown, never a guess');
    // A summary or a handoff note by a model without a known price: its share and the total read —.
    assert.match(
      statusBarText({ ...figures, costUsd: undefined, summaries: { costUsd: undefined } }).tooltip,
      /\(summaries —\)\./,
    );
    const unpriced = new SessionBill();
    unpriced.opened({
      costUsd: undefined,
      subagents: [],
      compactions: [],
      lastPromptTokens: 0,
      requestHistory: EMPTY_REQUEST_HISTORY,
      continuedFrom: { sessionId: 'old', title: 'Old', noteCostUnknown: true },
    });
    assert.equal(unpriced.handoffCostUsd, undefined);
    const summarised = new SessionBill();
    summarised.opened({
      costUsd: 0.01,
      subagents: [],
      compactions: [],
      lastPromptTokens: 5,
      requestHistory: EMPTY_REQUEST_HISTORY,
    });
    const records = [{ costUsd: 0, costUnknown: true } as unknown as CompactionRecord];
    assert.equal(summarised.observe({ type: 'compaction_finished', records } as unknown as AgentEvent), true);
    assert.equal(summarised.summariesCostUsd, undefined);
    assert.equal(summarised.costUsd, undefined);
  });
});
