import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CutUsage, LlmError, LlmEvent } from '../../src/core/llm/llmClient';
import { CUT_OUTPUT_CHARS_PER_TOKEN, cutBilledUsage } from '../../src/core/llm/cutRequest';
import { requestCostUsd } from '../../src/core/llm/cost';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent, SessionSink } from '../../src/core/agent/events';
import { encodeEntry, type SessionEntry, type UsageEntry } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import { replaySession } from '../../src/core/session/replay';
import { sessionToMarkdown } from '../../src/core/session/markdown';
import { sessionCostUsd } from '../../src/core/session/sessionCost';
import { SessionBill } from '../../src/app/sessionBill';
import { requestHistoryOf } from '../../src/core/session/requestHistory';
import { BudgetHistory, buildBudgetSnapshot } from '../../src/host/budget/budgetData';
import { parseBudgetToWebview } from '../../src/protocol/budget';
import { chars4Tokenizer } from '../../src/core/tokens/chars4';
import { TokenEstimator } from '../../src/core/tokens/estimator';
import { AnthropicLlmClient } from '../../src/host/anthropic/anthropicClient';
import { StreamMeter } from '../../src/host/anthropic/streamMeter';
import { agentDeps } from './support/agentDeps';
import { emptyState, testConfig } from './support/builders';
import { ScriptedLlm, type Step } from './support/scriptedLlm';
import { nullSink } from './support/sessionSink';
import { sampleHeader } from './support/sessionSamples';

const KEY = 'sk-ant-api03-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const MODEL = 'claude-sonnet-4-6';

/** The usage a `message_start` reports in these tests (its output count is the API's placeholder). */
const START_USAGE: CutUsage['usage'] = {
  input_tokens: 12,
  output_tokens: 1,
  cache_read_input_tokens: 40_000,
  cache_creation_input_tokens: 900,
  cache_creation: { ephemeral_5m_input_tokens: 900, ephemeral_1h_input_tokens: 0 },
};

/** What message_start reported for a request cut after `chars` characters of answer. */
function cutOf(chars: number, usage: Partial<CutUsage['usage']> = {}): CutUsage {
  return {
    model: MODEL,
    streamedChars: chars,
    usage: { ...START_USAGE, ...usage },
  };
}

describe('a request cut off before its answer ended is billed', () => {
  it('for the prompt the API reported as the answer began and the output estimated from what arrived', () => {
    const cut = cutOf(70);
    const billed = cutBilledUsage(cut);
    assert.deepEqual({ ...billed, output_tokens: 1 }, cut.usage, 'the input and cache figures are taken as reported');
    assert.equal(billed.output_tokens, Math.ceil(70 / CUT_OUTPUT_CHARS_PER_TOKEN));
    assert.equal(cutBilledUsage(cutOf(0)).output_tokens, 1, 'nothing streamed: the reported count stands');
    assert.equal(cutBilledUsage(cutOf(7, { output_tokens: 50 })).output_tokens, 50, 'a larger reported count wins');
  });

  /** An agent session over `steps`, with its usage records kept as a session file would keep them. */
  function setup(steps: Step[], saveFails?: Error) {
    const llm = new ScriptedLlm(steps);
    const events: AgentEvent[] = [];
    const lines: UsageEntry[] = [];
    let requestIndex = 0;
    const sink: SessionSink = nullSink({
      usage: async (u) => {
        if (saveFails) throw saveFails;
        const entry: UsageEntry = {
          type: 'usage',
          at: u.at,
          requestIndex: ++requestIndex,
          turn: 1,
          model: u.model,
          usage: u.usage,
          estimatedInputTokens: u.estimatedTokens,
          ...(u.costUsd !== undefined ? { costUsd: u.costUsd } : {}),
          ...(u.cut ? { cut: u.cut } : {}),
        };
        const read = decodeLine(encodeEntry(entry));
        assert.ok(read.ok, 'the record is a valid session line');
        lines.push(read.entry as UsageEntry);
      },
    });
    const bill = new SessionBill();
    const session = new AgentSession(
      emptyState({ config: testConfig({ model: MODEL }) }),
      agentDeps({ llm, sink }),
      (e) => {
        events.push(e);
        bill.observe(e);
      },
    );
    return { session, llm, events, lines, bill };
  }

  const usages = (events: readonly AgentEvent[]) => events.flatMap((e) => (e.type === 'usage' ? [e] : []));

  it('on Stop: the stopped request is saved, shown and in the bill, marked as cut', async () => {
    const cut = cutOf(35);
    const t = setup([{ hangUntilAbort: true, partialText: 'Partial answer that', cut }]);
    const turn = t.session.send('tell me');
    await t.llm.hanging.reached(1);
    t.session.stop();
    await turn;
    assert.ok(t.events.some((e) => e.type === 'turn_finished' && e.reason === 'stopped'));
    const [u] = usages(t.events);
    const expected = requestCostUsd(MODEL, cutBilledUsage(cut));
    assert.ok(u && u.cut === true && expected !== undefined && expected > 0);
    assert.equal(u.costUsd, expected);
    assert.equal(u.reportedTokens, 12 + 40_000 + 900, "the prompt size is the API's own");
    assert.equal(t.bill.costUsd, expected, "the session's bill counts it");
    assert.equal(t.lines.length, 1);
    assert.equal(t.lines[0]?.cut, true);
    assert.equal(t.lines[0]?.costUsd, expected);
  });

  it('a connection cut mid-answer and retried bills the cut attempt, then the answer', async () => {
    const dropped: LlmError = { kind: 'network', message: 'The connection closed', retryable: true, cut: cutOf(350) };
    const t = setup([{ error: dropped, retries: 1 }]);
    await t.session.send('go');
    const billed = usages(t.events);
    assert.equal(billed.length, 2, 'the retried attempt and the last one, each cut');
    assert.ok(billed.every((u) => u.cut === true && (u.costUsd ?? 0) > 0));
    assert.equal(t.lines.length, 2);
    const replayed = replaySession([sampleHeader(), ...(t.lines as SessionEntry[])]);
    const total = sessionCostUsd({ usage: replayed.usage, compactions: [], subagents: [] });
    assert.ok(
      total !== undefined && Math.abs(total - (t.bill.costUsd ?? NaN)) < 1e-12,
      'a reopened session bills the same',
    );
    const md = sessionToMarkdown(
      replaySession([
        sampleHeader(),
        ...t.session.state.messages.map((message) => ({ type: 'message' as const, at: 1, message })),
        ...(t.lines as SessionEntry[]),
      ]),
    );
    assert.match(md, /\| 1 \(cut off\) \| claude-sonnet-4-6 \| 12 \| 40000 \| 900 \| ~100 \|/);
    assert.match(md, /ended before its answer did/);
  });

  it('a cut request whose line cannot be saved is still billed, and a notice says it was not kept', async () => {
    const t = setup([{ hangUntilAbort: true, partialText: 'Part', cut: cutOf(35) }], new Error('ENOSPC: disk full'));
    const turn = t.session.send('tell me');
    await t.llm.hanging.reached(1);
    t.session.stop();
    await turn;
    assert.ok(
      t.events.some((e) => e.type === 'turn_finished' && e.reason === 'stopped'),
      'the turn ends as stopped',
    );
    assert.ok(
      t.events.some((e) => e.type === 'notice' && /ENOSPC.*cut off was not kept/.test(e.text)),
      'the notice names the cause and what was not kept',
    );
    assert.equal(t.lines.length, 0);
    assert.equal(t.bill.costUsd, requestCostUsd(MODEL, cutBilledUsage(cutOf(35))));
  });

  it('a request that failed before its answer began bills nothing', async () => {
    const refused: LlmError = { kind: 'overloaded', message: 'Overloaded', retryable: true };
    const t = setup([{ error: refused, retries: 2 }]);
    await t.session.send('go');
    assert.equal(usages(t.events).length, 0);
    assert.equal(t.lines.length, 0);
    assert.equal(t.bill.costUsd, 0);
  });

  it("the budget panel's request rows say which request was cut off, live and after a reload", async () => {
    const t = setup([{ hangUntilAbort: true, partialText: 'Partial', cut: cutOf(35) }]);
    const panel = new BudgetHistory();
    const turn = t.session.send('tell me');
    await t.llm.hanging.reached(1);
    t.session.stop();
    await turn;
    for (const e of t.events) panel.observe(e);
    const reloaded = new BudgetHistory(requestHistoryOf(t.lines));
    for (const rows of [panel.requests, reloaded.requests]) {
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.cut, true);
      assert.equal(rows[0]?.output, 10);
    }
    assert.deepEqual(reloaded.requests, panel.requests, 'the same row either way');
    const snap = buildBudgetSnapshot({
      session: 's',
      state: emptyState(),
      tokenizer: chars4Tokenizer,
      estimator: new TokenEstimator(chars4Tokenizer),
      history: panel,
      compactions: [],
      busy: false,
    });
    assert.ok(parseBudgetToWebview(snap).ok, 'the protocol carries the mark');
    const forged = { ...snap, requests: snap.requests.map((r) => ({ ...r, cut: false })) };
    assert.equal(parseBudgetToWebview(forged).ok, false, 'only `true` marks a cut request');
  });

  it('the session file reads a cut usage back; anything but `true` there is damage', () => {
    const line: UsageEntry = {
      type: 'usage',
      at: 1,
      requestIndex: 1,
      turn: 1,
      model: MODEL,
      usage: cutOf(0).usage,
      estimatedInputTokens: 40_000,
      costUsd: 0.02,
      cut: true,
    };
    const read = decodeLine(encodeEntry(line));
    assert.ok(read.ok);
    assert.deepEqual(read.entry, line);
    const bad = encodeEntry({ ...line, cut: false } as unknown as UsageEntry);
    assert.equal(decodeLine(bad).ok, false);
  });
});

describe('the stream meter', () => {
  type Event = Parameters<StreamMeter['see']>[0];
  const ev = (e: unknown) => e as Event;

  it('has nothing to bill before message_start, then the figures it reported and the characters that came', () => {
    const m = new StreamMeter();
    m.see(ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'early' } }));
    assert.equal(m.cut(), undefined);
    m.see(ev({ type: 'message_start', message: { model: MODEL, usage: START_USAGE } }));
    m.see(ev({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'abc' } }));
    m.see(ev({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"a"' } }));
    m.see(ev({ type: 'message_delta', delta: {}, usage: { output_tokens: 42 } }));
    assert.deepEqual(m.cut(), {
      model: MODEL,
      usage: { ...START_USAGE, output_tokens: 42 },
      streamedChars: 'early'.length + 3 + 4,
    });
  });

  it('never throws on events of a hostile shape, and reads a figure that is not a count as 0', () => {
    const m = new StreamMeter();
    for (const e of [
      { type: 'message_start' },
      { type: 'message_start', message: null },
      { type: 'content_block_delta' },
      { type: 'content_block_delta', delta: { type: 'text_delta', text: 7 } },
      { type: 'message_delta', usage: null },
      { type: 'message_delta', usage: { output_tokens: '9e9' } },
    ])
      assert.doesNotThrow(() => m.see(ev(e)));
    assert.equal(m.cut(), undefined);
    m.see(
      ev({
        type: 'message_start',
        message: {
          model: 5,
          usage: { input_tokens: '12', output_tokens: -1, cache_read_input_tokens: 1.5, cache_creation: 'x' },
        },
      }),
    );
    assert.deepEqual(m.cut(), {
      model: '',
      streamedChars: 0,
      usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    });
  });
});

describe('the SDK client reports what a cut attempt had used', () => {
  const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  const start = sse('message_start', {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: START_USAGE,
    },
  });
  const blockStart = sse('content_block_start', {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'text', text: '' },
  });
  const delta = (text: string) =>
    sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });

  /** A server answering each request with `write(res)` (which may leave the response open). */
  async function serve(
    write: (res: import('node:http').ServerResponse) => void,
  ): Promise<{ url: string; server: Server }> {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => write(res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
  }

  const client = (url: string) =>
    new AnthropicLlmClient({
      apiKey: async () => KEY,
      baseUrl: url,
      retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 },
      sleep: async () => undefined,
    });
  const params = { model: MODEL, max_tokens: 64, messages: [{ role: 'user' as const, content: 'hi' }] };

  it('a stream closed mid-answer: each attempt carries the usage of its message_start and the characters that came', async () => {
    const { url, server } = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(start + blockStart + delta('Hello, ') + delta('world'));
    });
    try {
      const retried: LlmError[] = [];
      const r = await client(url).stream(params, {
        signal: new AbortController().signal,
        onEvent: (e: LlmEvent) => void (e.type === 'retrying' && retried.push(e.error)),
      });
      assert.ok(!r.ok);
      assert.equal(r.error.kind, 'network');
      for (const cut of [retried[0]?.cut, r.error.cut]) {
        assert.ok(cut, 'both attempts were cut after their answers began');
        assert.equal(cut.model, MODEL);
        assert.equal(cut.streamedChars, 'Hello, world'.length);
        assert.deepEqual(cut.usage, START_USAGE);
      }
    } finally {
      server.close();
    }
  });

  it('Stop while the answer streams: the stopped attempt carries what it used', async () => {
    const open: import('node:http').ServerResponse[] = [];
    const { url, server } = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(start + blockStart + delta('Partial'));
      open.push(res); // the answer goes on; the client stops it
    });
    try {
      const stop = new AbortController();
      const r = await client(url).stream(params, {
        signal: stop.signal,
        onEvent: (e) => void (e.type === 'text_delta' && stop.abort()),
      });
      assert.ok(!r.ok);
      assert.equal(r.error.kind, 'aborted');
      assert.equal(r.error.cut?.streamedChars, 'Partial'.length);
      assert.equal(r.error.cut?.usage.cache_read_input_tokens, 40_000);
    } finally {
      for (const res of open) res.destroy();
      server.close();
    }
  });

  it('an error before the answer began carries nothing to bill', async () => {
    const { url, server } = await serve((res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'no' } }));
    });
    try {
      const r = await client(url).stream(params, { signal: new AbortController().signal, onEvent: () => undefined });
      assert.ok(!r.ok);
      assert.equal(r.error.cut, undefined);
    } finally {
      server.close();
    }
  });
});
