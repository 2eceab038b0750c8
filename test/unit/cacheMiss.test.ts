import { strict as assert } from 'node:assert';
import * as v from 'valibot';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent } from '../../src/core/agent/events';
import type { Usage } from '../../src/core/llm/llmClient';
import {
  cacheMissWarning,
  explainCacheMiss,
  fingerprintOf,
  type CacheMiss,
  type RequestFingerprint,
} from '../../src/core/pipeline/cacheMiss';
import type { ConversationState, Message } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { sessionEntrySchema, type SessionEntry } from '../../src/core/session/entries';
import { requestHistoryOf } from '../../src/core/session/requestHistory';
import { BudgetHistory } from '../../src/host/budget/budgetData';
import { cacheMissReasonOf } from '../../src/host/anthropic/sdkMessages';
import { parseBudgetToWebview } from '../../src/protocol/budget';
import { Build, emptyState, testConfig } from './support/builders';
import { ScriptedLlm } from './support/scriptedLlm';
import { nullSink } from './support/sessionSink';
import { agentDeps } from './support/agentDeps';
import { NEUTRAL_PRESSURE } from './support/budgetSnapshots';

const u = (input: number, read: number, write: number): Usage => ({
  input_tokens: input,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write,
  output_tokens: 10,
});

function conversation(): { state: ConversationState; b: Build; messages: Message[] } {
  const b = new Build('cm');
  const messages = [
    b.message('user', [b.text('Read a.ts')], 1),
    b.message('assistant', [b.text('Done.', 'assistant')], 1),
    b.message('user', [b.text('Now b.ts')], 2),
  ];
  const state = emptyState({ system: [b.text('You are a coding agent.', 'system')], messages });
  return { state, b, messages };
}

const fp = (state: ConversationState, at: number, anchored = true): RequestFingerprint =>
  fingerprintOf(
    {
      sent: state,
      params: { model: state.config.model, max_tokens: 100, messages: [] },
      anchors: anchored
        ? [
            {
              target: { at: 'system' },
              prefixTokens: 2000,
              hitProbability: 1,
              score: 1,
              reason: '',
              ttl: '5m',
              ttlReason: '',
            },
          ]
        : [],
    },
    at,
  );

describe('cache miss attribution', () => {
  const t0 = 1_000_000;
  const { state, b, messages } = conversation();
  const previous = { fingerprint: fp(state, t0), usage: u(100, 0, 5000) };

  it('no miss when the request read what the previous one cached, and none on the first request', () => {
    assert.equal(explainCacheMiss({ previous, current: fp(state, t0 + 1000), usage: u(200, 5000, 300) }), undefined);
    assert.equal(explainCacheMiss({ current: fp(state, t0), usage: u(100, 0, 0) }), undefined);
  });

  it('ttl_expired: more than the TTL between the requests', () => {
    const m = explainCacheMiss({ previous, current: fp(state, t0 + 6 * 60_000), usage: u(5100, 0, 0) });
    assert.equal(m?.cause, 'ttl_expired');
    assert.equal(m?.missedTokens, 5000);
    assert.equal(m?.source, 'ledger');
    assert.match(m?.detail ?? '', /6 min .* 5m cache lifetime/);
  });

  it('model_changed, tools_changed, system_changed, params_changed', () => {
    const model = explainCacheMiss({
      previous,
      current: fp({ ...state, config: { ...state.config, model: 'claude-opus-4-6' } }, t0 + 1000),
      usage: u(5100, 0, 0),
    });
    assert.equal(model?.cause, 'model_changed');
    assert.match(model?.detail ?? '', /→ claude-opus-4-6/);
    const tools = explainCacheMiss({
      previous,
      current: fp(
        { ...state, tools: [{ name: 'read_file', description: 'Reads', inputSchema: { type: 'object' } }] },
        t0 + 1000,
      ),
      usage: u(5100, 0, 0),
    });
    assert.equal(tools?.cause, 'tools_changed');
    const system = explainCacheMiss({
      previous,
      current: fp({ ...state, system: [b.text('You are a careful coding agent.', 'system')] }, t0 + 1000),
      usage: u(5100, 0, 0),
    });
    assert.equal(system?.cause, 'system_changed');
    const cur = fp(state, t0 + 1000);
    const params = explainCacheMiss({
      previous,
      current: { ...cur, params: JSON.stringify({ thinking: { type: 'adaptive' } }) },
      usage: u(5100, 0, 0),
    });
    assert.equal(params?.cause, 'params_changed');
  });

  it('message_edited: names the first changed message and what changed the history', () => {
    const edited = {
      ...state,
      messages: [
        messages[0] as Message,
        { ...(messages[1] as Message), blocks: [b.text('Summary of turn 1.', 'compactor')] },
        messages[2] as Message,
      ],
    };
    const m = explainCacheMiss({
      previous,
      current: fp(edited, t0 + 1000),
      usage: u(3000, 2000, 0),
      changes: ['compaction cmp_1 (summarise)'],
    });
    assert.equal(m?.cause, 'message_edited');
    assert.equal(m?.missedTokens, 3000);
    assert.equal(m?.detail, 'message 2 (turn 1, assistant) changed after compaction cmp_1 (summarise)');
    // A message that is only a new object with the same content is not an edit.
    const copy = { ...state, messages: messages.map((x) => ({ ...x })) };
    assert.equal(explainCacheMiss({ previous, current: fp(copy, t0 + 1000), usage: u(5100, 0, 0) })?.cause, 'unknown');
  });

  it('below_minimum: breakpoints were placed but the prompt was under the minimum, so nothing was cached', () => {
    const prev = { fingerprint: fp(state, t0), usage: u(900, 0, 0) };
    const m = explainCacheMiss({ previous: prev, current: fp(state, t0 + 1000), usage: u(1000, 0, 0) });
    assert.equal(m?.cause, 'below_minimum');
    assert.match(m?.detail ?? '', /900 tokens.*minimum of 1024/);
    const unanchored = { fingerprint: fp(state, t0, false), usage: u(900, 0, 0) };
    assert.equal(
      explainCacheMiss({ previous: unanchored, current: fp(state, t0 + 1000), usage: u(1000, 0, 0) }),
      undefined,
    );
  });

  it('unknown: nothing changed and within the TTL', () => {
    const m = explainCacheMiss({
      previous,
      current: fp(state, t0 + 1000),
      usage: u(5100, 0, 0),
      api: { type: 'unavailable' },
    });
    assert.equal(m?.cause, 'unknown');
    assert.match(m?.detail ?? '', /the API: unavailable/);
  });

  it("the API's reason and missed tokens win over our own attribution", () => {
    const m = explainCacheMiss({
      previous,
      current: fp(state, t0 + 6 * 60_000),
      usage: u(5100, 0, 0),
      api: { type: 'system_changed', cache_missed_input_tokens: 4321 },
    });
    assert.deepEqual(m, {
      cause: 'system_changed',
      missedTokens: 4321,
      source: 'api',
      detail: 'the system prompt changed',
    });
    const edited = {
      ...state,
      messages: [
        messages[0] as Message,
        { ...(messages[1] as Message), blocks: [b.text('x', 'assistant')] },
        messages[2] as Message,
      ],
    };
    const msg = explainCacheMiss({
      previous,
      current: fp(edited, t0 + 1000),
      usage: u(5100, 0, 0),
      api: { type: 'messages_changed', cache_missed_input_tokens: 77 },
    });
    assert.equal(msg?.cause, 'message_edited');
    assert.equal(msg?.detail, 'message 2 (turn 1, assistant) changed');
  });

  it("parses the SDK's cache_miss_reason; unknown reason types count as unavailable", () => {
    assert.deepEqual(cacheMissReasonOf({ type: 'tools_changed', cache_missed_input_tokens: 12 }), {
      type: 'tools_changed',
      cache_missed_input_tokens: 12,
    });
    assert.deepEqual(cacheMissReasonOf({ type: 'previous_message_not_found' }), { type: 'previous_message_not_found' });
    assert.deepEqual(cacheMissReasonOf({ type: 'something_new' } as never), { type: 'unavailable' });
    assert.equal(cacheMissReasonOf(null), null);
  });

  it('the streak warning names the causes, most frequent first', () => {
    const sys: CacheMiss = {
      cause: 'system_changed',
      missedTokens: 10,
      source: 'api',
      detail: 'the system prompt changed',
    };
    const ttl: CacheMiss = {
      cause: 'ttl_expired',
      missedTokens: 10,
      source: 'ledger',
      detail: '7 min since the previous request, over the 5m cache lifetime',
    };
    assert.equal(
      cacheMissWarning([sys, ttl, sys]),
      'The prompt cache missed 3 requests in a row. Causes: 2× the system prompt changed; 1× 7 min since the previous request, over the 5m cache lifetime. See the requests in the Context Budget panel.',
    );
    assert.match(cacheMissWarning([undefined]), /Cause: 1× no change found/);
  });
});

describe('cache miss in the agent loop, the session file and the budget panel', () => {
  it('asks for diagnostics, explains each miss, persists it and names the cause in the streak warning', async () => {
    const b = new Build('ag');
    const big = Array.from({ length: 1500 }, (_, i) => `word${i}`).join(' ');
    const llm = new ScriptedLlm([
      { content: [{ type: 'text', text: 'one' }], usage: { cache_creation_input_tokens: 3000 } },
      { content: [{ type: 'text', text: 'two' }], usage: { cache_creation_input_tokens: 3000 } },
      { content: [{ type: 'text', text: 'three' }], usage: { cache_creation_input_tokens: 3000 } },
      { content: [{ type: 'text', text: 'four' }], usage: { cache_creation_input_tokens: 3000 } },
    ]);
    const records: { cacheMiss?: CacheMiss }[] = [];
    const events: AgentEvent[] = [];
    const deps = agentDeps({
      llm,
      sink: nullSink({ usage: async (r) => void records.push(r) }),
      ids: counterIds('s'),
    });
    const session = new AgentSession(emptyState({ config: testConfig(), system: [b.text(big, 'system')] }), deps, (e) =>
      events.push(e),
    );
    for (const [i, text] of ['a', 'b', 'c', 'd'].entries()) {
      if (i > 0) session.update({ system: [b.text(`${big} v${i}`, 'system')] });
      await session.send(text);
    }
    assert.deepEqual(llm.requests[0]?.diagnostics, { previous_message_id: null });
    assert.equal(records[0]?.cacheMiss, undefined);
    assert.deepEqual(
      records.slice(1).map((r) => r.cacheMiss?.cause),
      ['system_changed', 'system_changed', 'system_changed'],
    );
    const usageEvents = events.flatMap((e) => (e.type === 'usage' ? [e] : []));
    assert.equal(usageEvents[1]?.cacheMiss?.cause, 'system_changed');
    const notices = events.flatMap((e) => (e.type === 'notice' ? [e.text] : []));
    assert.ok(
      notices.includes(
        'The prompt cache missed 3 requests in a row. Cause: 3× the system prompt changed. See the requests in the Context Budget panel.',
      ),
      notices.join('\n'),
    );
  });

  it('a usage entry keeps its cache miss in the file, and the request history and the panel rebuild it', () => {
    const miss: CacheMiss = {
      cause: 'ttl_expired',
      missedTokens: 4000,
      source: 'ledger',
      detail: '9 min since the previous request, over the 5m cache lifetime',
    };
    const entry: SessionEntry = {
      type: 'usage',
      at: 1,
      requestIndex: 1,
      turn: 1,
      model: 'claude-sonnet-4-6',
      usage: u(4100, 0, 0),
      estimatedInputTokens: 4100,
      costUsd: 0.01,
      cacheMiss: miss,
    };
    const parsed = v.safeParse(sessionEntrySchema, JSON.parse(JSON.stringify(entry)));
    assert.ok(parsed.success);
    assert.ok(!v.safeParse(sessionEntrySchema, { ...entry, cacheMiss: { ...miss, cause: 'gremlins' } }).success);
    const history = requestHistoryOf([parsed.output]);
    assert.deepEqual(history.requests[0]?.cacheMiss, miss);
    const panel = new BudgetHistory(history);
    assert.deepEqual(panel.requests[0]?.cacheMiss, miss);
  });

  it('the budget protocol carries a request cache miss and refuses an unknown cause', () => {
    const row = {
      index: 1,
      promptTokens: 1,
      input: 1,
      cacheRead: 0,
      cacheWrite: 0,
      output: 1,
      estimated: 1,
      costUsd: 0,
      compactedBefore: false,
    };
    const snapshot = (requests: unknown[]) => ({
      type: 'snapshot',
      session: 's',
      model: 'm',
      contextWindow: 1,
      outputReserve: 1,
      softThreshold: 0.7,
      hardThreshold: 0.9,
      pressure: NEUTRAL_PRESSURE,
      categories: [],
      nextTotal: 0,
      nextEstimate: 0,
      calibration: 1,
      tokenizer: 't',
      requests,
      subagents: [],
      summariesCostUsd: 0,
      ledger: [],
      compactions: [],
      pinned: [],
      forecast: { growthPerTurn: 0, past: false, limit: 1 },
      busy: false,
    });
    assert.ok(
      parseBudgetToWebview(
        snapshot([
          {
            ...row,
            cacheMiss: { cause: 'system_changed', missedTokens: 3, source: 'api', detail: 'the system prompt changed' },
          },
        ]),
      ).ok,
    );
    assert.ok(
      !parseBudgetToWebview(
        snapshot([{ ...row, cacheMiss: { cause: 'nope', missedTokens: 3, source: 'api', detail: '' } }]),
      ).ok,
    );
  });
});
