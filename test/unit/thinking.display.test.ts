import { strict as assert } from 'node:assert';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { AgentEvent } from '../../src/core/agent/events';
import type { LlmEvent } from '../../src/core/llm/llmClient';
import { appendAssistantMessage } from '../../src/core/conversation/assistant';
import type { Message, ThinkingBlock } from '../../src/core/conversation/conversationModel';
import { normalizeState } from '../../src/core/normalize/normalize';
import { serializeMessage, serializeRequest } from '../../src/core/pipeline/serialize';
import { encodeEntry } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import { midTurnWithoutThinking, stripsEarlierThinking } from '../../src/core/models/thinking';
import { TokenEstimator, type PromptRequest } from '../../src/core/tokens/estimator';
import { AnthropicLlmClient } from '../../src/host/anthropic/anthropicClient';
import { transcriptOf, type TokensOf } from '../../src/host/chat/transcript';
import { TranscriptRenderer } from '../../src/host/chat/transcriptRenderer';
import type { ChatToWebview } from '../../src/protocol/chat';
import { parseChatToWebview } from '../../src/protocol/chat';
import { thinkingLabel } from '../../src/webview/chat/thinkingView';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic';
import { rawPost } from '../fake-anthropic/testkit';
import { Build, emptyState, fakeClock, testConfig } from './support/builders';
import { countingTokenizer, mk, words } from './support/tokenFakes';

const signed = (b: Build, text: string, signature = 'sig-1'): ThinkingBlock => ({
  type: 'thinking',
  thinking: text,
  signature,
  meta: { ...b.text('x', 'assistant').meta },
});
const redacted = (b: Build, data = 'ENCRYPTED+data/=='): ThinkingBlock => ({
  type: 'thinking',
  thinking: '',
  redactedData: data,
  meta: { ...b.text('x', 'assistant').meta },
});
const words2tokens: TokensOf = Object.assign((m: Message) => m.blocks.length * 10, {
  text: (t: string) => t.split(/\s+/).filter(Boolean).length,
});

/** A tool-use turn whose assistant message starts with `first`. */
function toolTurn(b: Build, first: ThinkingBlock[]): Message[] {
  const use = b.toolUse('read_file', { path: 'a.ts' });
  return [
    b.message('user', [b.text('Read a.ts')], 1),
    b.message('assistant', [...first, b.text('Reading.', 'assistant'), use], 1),
    b.message('user', [b.toolResult(use.id, 'const a = 1;')], 1),
  ];
}

describe('thinking in the chat: protocol items', () => {
  it('validates an assistant item with thinking and the thinkingDelta message', () => {
    assert.ok(
      parseChatToWebview({
        type: 'upsert',
        item: { kind: 'assistant', id: 'a', text: 'Hi', streaming: false, thinking: { text: 'Let me see', tokens: 3 } },
      }).ok,
    );
    assert.ok(
      parseChatToWebview({
        type: 'upsert',
        item: { kind: 'assistant', id: 'a', text: '', streaming: false, thinking: { text: '', redacted: true } },
      }).ok,
    );
    assert.ok(parseChatToWebview({ type: 'thinkingDelta', id: 'stream-1', text: 'hmm' }).ok);
    assert.ok(
      !parseChatToWebview({
        type: 'upsert',
        item: { kind: 'assistant', id: 'a', text: 'Hi', streaming: false, thinking: { text: 1 } },
      }).ok,
    );
    assert.ok(
      !parseChatToWebview({
        type: 'upsert',
        item: { kind: 'assistant', id: 'a', text: 'Hi', streaming: false, thinking: { text: 'x', html: '<b>' } },
      }).ok,
    );
    assert.ok(!parseChatToWebview({ type: 'thinkingDelta', id: 'stream-1' }).ok);
  });

  it('labels the disclosure: streaming, tokens, redacted', () => {
    assert.equal(thinkingLabel({ text: 'abc' }, true), 'Thinking…');
    assert.equal(thinkingLabel({ text: 'abc', tokens: 1234 }, false), 'Thinking · 1,234 tokens');
    assert.equal(thinkingLabel({ text: '', redacted: true }, false), 'Thinking (redacted)');
    assert.equal(
      thinkingLabel({ text: 'abc', tokens: 2, redacted: true }, false),
      'Thinking · 2 tokens (partly redacted)',
    );
  });
});

describe('thinking in the chat: transcript items', () => {
  it('builds the item of a message with thinking (text and tokens) and with redacted thinking', () => {
    const b = new Build('tr');
    const items = transcriptOf(toolTurn(b, [signed(b, 'I should read a.ts <script>x</script>')]), words2tokens);
    const answer = items.find((i) => i.kind === 'assistant');
    assert.ok(answer?.kind === 'assistant');
    assert.deepEqual(answer.thinking, { text: 'I should read a.ts <script>x</script>', tokens: 5 });
    const r = transcriptOf(toolTurn(new Build('r'), [redacted(new Build('r2'))])).find((i) => i.kind === 'assistant');
    assert.ok(r?.kind === 'assistant');
    assert.deepEqual(r.thinking, { text: '', redacted: true });
    const omitted = { ...signed(new Build('o'), 'x'), thinking: '' };
    const o = transcriptOf(toolTurn(new Build('o2'), [omitted])).find((i) => i.kind === 'assistant');
    assert.ok(o?.kind === 'assistant');
    assert.equal(o.thinking, undefined, 'thinking returned without text (display omitted) shows nothing');
  });

  it('shows an answer that has only thinking and tool calls (no text)', () => {
    const b = new Build('o');
    const use = b.toolUse('ls');
    const items = transcriptOf([
      b.message('user', [b.text('List')], 1),
      b.message('assistant', [signed(b, 'List the folder.'), use], 1),
    ]);
    assert.deepEqual(
      items.map((i) => i.kind),
      ['user', 'assistant', 'tool'],
    );
  });

  it('keeps the header row of a tool-only answer on resume, as the live transcript does', () => {
    const b = new Build('t');
    const use = b.toolUse('ls');
    const answer = b.message('assistant', [use], 1);
    const items = transcriptOf([b.message('user', [b.text('List')], 1), answer, b.message('assistant', [], 1)]);
    assert.deepEqual(
      items.map((i) => i.kind),
      ['user', 'assistant', 'tool'],
    );
    const header = items[1];
    assert.ok(header?.kind === 'assistant');
    assert.equal(header.text, '');
    assert.equal(header.messageId, answer.id);
    // Live: the streamed item of the same answer is upserted too (the webview draws both `silent`).
    const posts: ChatToWebview[] = [];
    const r = new TranscriptRenderer({ post: (m) => posts.push(m) }, () => words2tokens);
    r.render({ type: 'request_started', round: 1, attempt: 1, estimatedTokens: 10, anchored: false });
    r.render({ type: 'message_added', message: answer });
    const live = posts.flatMap((p) => (p.type === 'upsert' ? [p.item.kind] : []));
    assert.deepEqual(live.slice(-2), ['assistant', 'tool']);
  });

  it('streams thinking deltas to the streamed item, then upserts the final item with its thinking', () => {
    const posts: ChatToWebview[] = [];
    const r = new TranscriptRenderer({ post: (m) => posts.push(m) }, () => words2tokens);
    const b = new Build('s');
    const message = b.message('assistant', [signed(b, 'one two three'), b.text('Done.', 'assistant')], 1);
    const events: AgentEvent[] = [
      { type: 'request_started', round: 1, attempt: 1, estimatedTokens: 10, anchored: false },
      { type: 'thinking_delta', text: 'one two ' },
      { type: 'thinking_delta', text: 'three' },
      { type: 'text_delta', text: 'Done.' },
      { type: 'message_added', message },
    ];
    for (const e of events) r.render(e);
    for (const p of posts) assert.ok(parseChatToWebview(p).ok, JSON.stringify(p));
    const deltas = posts.filter((p) => p.type === 'thinkingDelta');
    assert.deepEqual(deltas, [
      { type: 'thinkingDelta', id: 'stream-1', text: 'one two ' },
      { type: 'thinkingDelta', id: 'stream-1', text: 'three' },
    ]);
    const last = posts.at(-1);
    assert.ok(last?.type === 'upsert' && last.item.kind === 'assistant');
    assert.equal(last.item.id, 'stream-1');
    assert.deepEqual(last.item.thinking, { text: 'one two three', tokens: 3 });
  });
});

describe('redacted thinking: kept, stored, sent back', () => {
  it('appends a redacted_thinking answer block as a ThinkingBlock with its data', () => {
    const b = new Build('ap');
    const state = emptyState({ messages: [b.message('user', [b.text('hi')], 1)] });
    const r = appendAssistantMessage(
      state,
      [
        { type: 'redacted_thinking', data: 'ABC==' },
        { type: 'text', text: 'Hello' },
      ],
      { clock: fakeClock(), ids: b.ids },
    );
    assert.ok(r.ok);
    const first = r.message.blocks[0];
    assert.ok(
      first?.type === 'thinking' &&
        first.redactedData === 'ABC==' &&
        first.thinking === '' &&
        first.signature === undefined,
    );
  });

  it('keeps signed thinking whose text is empty (display `omitted`) and drops unsigned empty thinking', () => {
    const b = new Build('om');
    const state = emptyState({ messages: [b.message('user', [b.text('hi')], 1)] });
    const r = appendAssistantMessage(
      state,
      [
        { type: 'thinking', thinking: '', signature: 'EqQBCkYIBxgC' },
        { type: 'thinking', thinking: '  ' },
        { type: 'text', text: 'Hello' },
      ],
      { clock: fakeClock(), ids: b.ids },
    );
    assert.ok(r.ok);
    assert.deepEqual(
      r.message.blocks.map((x) => (x.type === 'thinking' ? `thinking:${x.signature ?? ''}` : x.type)),
      ['thinking:EqQBCkYIBxgC', 'text'],
    );
  });

  it('is stored in the session file and read back with its data', () => {
    const b = new Build('st');
    const message = b.message('assistant', [redacted(b, 'opaque=='), b.text('ok', 'assistant')], 1);
    const line = decodeLine(encodeEntry({ type: 'message', at: 1, message }));
    assert.ok(line.ok && line.entry.type === 'message', JSON.stringify(line));
    assert.deepEqual(line.entry.message.blocks[0], message.blocks[0]);
  });

  it('serializes it unchanged, normalize keeps it, and it counts as the turn’s thinking', () => {
    const b = new Build('se');
    const messages = toolTurn(b, [redacted(b, 'opaque/DATA=='), signed(b, 'More.')]);
    const assistant = messages[1] as Message;
    const content = serializeMessage(assistant).content;
    assert.ok(Array.isArray(content));
    assert.deepEqual(content.slice(0, 2), [
      { type: 'redacted_thinking', data: 'opaque/DATA==' },
      { type: 'thinking', thinking: 'More.', signature: 'sig-1' },
    ]);
    const state = emptyState({
      messages,
      config: testConfig({ model: 'claude-sonnet-4-5', thinking: 'low', outputReserve: 8_000 }),
    });
    const n = normalizeState(state);
    assert.equal(n.repairs.length, 0);
    assert.equal(n.state, state);
    assert.equal(midTurnWithoutThinking(messages), false);
    const params = serializeRequest(n.state);
    assert.deepEqual(params.thinking, { type: 'enabled', budget_tokens: 4_000 });
    const sent = params.messages[1] as MessageParam;
    assert.ok(Array.isArray(sent.content) && sent.content[0]?.type === 'redacted_thinking');
  });

  it('normalize drops a redacted block in a user message or with empty data', () => {
    const b = new Build('nd');
    const messages = [
      b.message('user', [b.text('hi'), redacted(b)], 1),
      b.message('assistant', [redacted(b, ''), b.text('ok', 'assistant')], 1),
      b.message('user', [b.text('next')], 2),
    ];
    const n = normalizeState(emptyState({ messages }));
    assert.deepEqual(n.repairs.map((r) => r.kind).sort(), ['block_wrong_role', 'thinking_dropped']);
  });
});

describe('estimate: thinking of earlier turns', () => {
  it('names the models whose earlier-turn thinking the API strips', () => {
    for (const m of [
      'claude-sonnet-4-5',
      'claude-sonnet-4-20250514',
      'claude-opus-4-1',
      'claude-haiku-4-5',
      'claude-3-7-sonnet-latest',
    ])
      assert.ok(stripsEarlierThinking(m), m);
    for (const m of ['claude-opus-4-5', 'claude-opus-4-7', 'claude-sonnet-4-6', 'claude-opus-5', 'my-proxy'])
      assert.ok(!stripsEarlierThinking(m), m);
  });

  const conversation = (): Message[] => [
    mk.message('user', [mk.text(words(20))], 1),
    mk.message(
      'assistant',
      [{ type: 'thinking', thinking: words(500, 3), signature: 's', meta: mk.text('').meta }, mk.text(words(10))],
      1,
    ),
    mk.message('user', [mk.text(words(20, 1))], 2),
  ];
  const req = (messages: readonly Message[]): PromptRequest => ({ system: [], tools: [], messages });

  it('leaves out earlier-turn thinking for a stripping model, counts it for one that keeps it', () => {
    const strip = new TokenEstimator(countingTokenizer(), { safetyMargin: 0 });
    strip.useModel('claude-sonnet-4-5', 1);
    const keep = new TokenEstimator(countingTokenizer(), { safetyMargin: 0 });
    keep.useModel('claude-opus-4-6', 1);
    const messages = conversation();
    const diff = keep.estimate(req(messages)).tokens - strip.estimate(req(messages)).tokens;
    assert.ok(diff >= 500 && diff <= 502, String(diff));
    // The current turn's thinking (a tool-use continuation) is counted by both.
    const current = messages.slice(0, 2).concat(mk.message('user', [mk.text('go on')], 1));
    assert.equal(keep.estimate(req(current)).tokens, strip.estimate(req(current)).tokens);
  });

  it('takes the previous turn’s thinking off an anchored estimate when a new turn starts', () => {
    const est = new TokenEstimator(countingTokenizer(), { safetyMargin: 0 });
    est.useModel('claude-sonnet-4-5', 1);
    const messages = conversation();
    const turn1 = messages.slice(0, 2).concat(mk.message('user', [mk.text('go on')], 1));
    est.observe(req(turn1), { input_tokens: 2_000 });
    const next = turn1.concat(
      mk.message('assistant', [mk.text('ok')], 1),
      mk.message('user', [mk.text(words(20, 2))], 2),
    );
    const e = est.estimate(req(next));
    assert.equal(e.mode, 'anchored');
    assert.ok(e.tokens < 2_000 - 400, String(e.tokens));
  });
});

describe('fake Anthropic and the client: redacted thinking', () => {
  let server: FakeAnthropic;
  before(async () => {
    server = await startFakeAnthropic({});
  });
  after(() => server.close());

  it('emits a scripted redacted block; the client keeps it and streams thinking; sent back, it is accepted', async () => {
    server.script({
      thinking: 'Plan it.',
      redactedThinking: 'RWNyeXB0ZWQ=',
      text: 'Reading.',
      toolUses: [{ name: 'read_file', input: { path: 'a.ts' } }],
    });
    const client = new AnthropicLlmClient({ apiKey: async () => 'sk-ant-test', baseUrl: server.url });
    const events: LlmEvent[] = [];
    const first = {
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      messages: [{ role: 'user' as const, content: 'Read a.ts' }],
    };
    const r = await client.stream(first, { signal: new AbortController().signal, onEvent: (e) => events.push(e) });
    assert.ok(r.ok, r.ok ? '' : r.error.message);
    assert.deepEqual(r.result.content.slice(0, 2), [
      { type: 'thinking', thinking: 'Plan it.', signature: (r.result.content[0] as { signature: string }).signature },
      { type: 'redacted_thinking', data: 'RWNyeXB0ZWQ=' },
    ]);
    assert.equal(
      events
        .filter((e) => e.type === 'thinking_delta')
        .map((e) => (e.type === 'thinking_delta' ? e.thinking : ''))
        .join(''),
      'Plan it.',
    );
    const b = new Build('fk');
    const appended = appendAssistantMessage(
      emptyState({ messages: [b.message('user', [b.text('Read a.ts')], 1)] }),
      r.result.content,
      { clock: fakeClock(), ids: b.ids },
    );
    assert.ok(appended.ok);
    const use = appended.message.blocks.find((x) => x.type === 'tool_use');
    assert.ok(use?.type === 'tool_use');
    const messages = [...appended.state.messages, b.message('user', [b.toolResult(use.id, 'const a = 1;')], 1)];
    const body = serializeRequest(
      emptyState({
        messages,
        config: testConfig({ model: 'claude-sonnet-4-5', thinking: 'low', outputReserve: 8_000 }),
      }),
    );
    const res = await rawPost(server, '/v1/messages', body);
    assert.equal(res.status, 200, JSON.stringify(res.json));
  });

  it('accepts a continuation whose assistant message starts with redacted_thinking', async () => {
    const res = await rawPost(server, '/v1/messages', {
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [
        { role: 'user', content: 'Read a.ts' },
        {
          role: 'assistant',
          content: [
            { type: 'redacted_thinking', data: 'RWNyeXB0ZWQ=' },
            { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'const a = 1;' }] },
      ],
    });
    assert.equal(res.status, 200, JSON.stringify(res.json));
  });
});
