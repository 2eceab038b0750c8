import { strict as assert } from 'node:assert';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic';
import { filler } from '../fake-anthropic/testkit';
import { AnthropicLlmClient } from '../../src/host/anthropic/anthropicClient';
import {
  COMPACT_BETA,
  CONTEXT_MANAGEMENT_BETA,
  DEFAULT_SERVER_CONTEXT_SETTINGS,
  serverRequestParts,
  supportsServerCompaction,
} from '../../src/core/server/serverContext';
import { billedUsages, parseServerReport } from '../../src/core/llm/serverReport';
import { requestCostUsd, requestCostWithServerUsd } from '../../src/core/llm/cost';
import {
  acceptedServerCompaction,
  MAX_SERVER_SUMMARY_CHARS,
  serverCompactionRecord,
  SERVER_COMPACTION_PLACEHOLDER,
} from '../../src/core/compaction/serverCompaction';
import { appendAssistantMessage } from '../../src/core/conversation/assistant';
import { serializeMessage } from '../../src/core/pipeline/serialize';
import { normalizeState } from '../../src/core/normalize/normalize';
import { encodeEntry } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import type { ConversationState, Message } from '../../src/core/conversation/conversationModel';
import type { LlmEvent } from '../../src/core/llm/llmClient';
import { resolveConfig } from '../../src/core/pipeline/config';
import { serverRequestFor } from '../../src/core/agent/serverRequest';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';

const base = {
  strategy: 'server-clear-tool-uses',
  settings: DEFAULT_SERVER_CONTEXT_SETTINGS,
  model: 'claude-sonnet-4-6',
  softTokens: 100_000.4,
  thinking: false,
  hasCompactionBlock: false,
};
const meta = (id: string) => ({
  id,
  tier: 1 as const,
  source: 'user' as const,
  createdAt: 0,
  pinned: false,
  compactable: true,
});
const user = (id: string, text: string, turn: number): Message => ({
  id,
  role: 'user',
  turn,
  blocks: [{ type: 'text', text, meta: meta(`${id}b`) }],
});

function state(messages: readonly Message[]): ConversationState {
  return {
    system: [],
    tools: [],
    messages,
    pending: [],
    config: {
      model: 'claude-sonnet-4-6',
      summarizerModel: 'claude-haiku-4-5',
      contextWindow: 200_000,
      outputReserve: 8_000,
      softThreshold: 0.6,
      hardThreshold: 0.85,
      keepRecentTurns: 0,
      keepRecentTokens: 1_000,
      cacheTtl: '5m',
      minCacheableTokens: 1024,
      pasteThresholdChars: 10_000,
    },
  };
}

describe('server context management (strategies, report, cost, record, fake server)', () => {
  it('server compaction follows the Models API capability when it said, else the model table', () => {
    const compact = { ...base, strategy: 'server-compact' };
    assert.ok(serverRequestParts(compact).ok, 'Sonnet 4.6 is in the table');
    const refused = serverRequestParts({ ...compact, compactionCapability: false });
    assert.ok(!refused.ok && /Models API says/.test(refused.reason), 'the API said no');
    assert.ok(!serverRequestParts({ ...compact, model: 'claude-haiku-4-5' }).ok, 'not in the table');
    assert.ok(
      serverRequestParts({ ...compact, model: 'claude-haiku-4-5', compactionCapability: true }).ok,
      'the API said yes',
    );
    const cfg = resolveConfig(
      { model: 'claude-haiku-4-5' },
      { id: 'claude-haiku-4-5', maxInputTokens: 200_000, serverCompaction: true },
    );
    assert.ok(cfg.ok && cfg.config.serverCompaction === true, 'resolveConfig carries the capability');
    const other = resolveConfig({ model: 'claude-haiku-4-5' }, { id: 'claude-sonnet-4-6', serverCompaction: true });
    assert.ok(other.ok && other.config.serverCompaction === undefined, 'only for the model it was asked about');
    const st = {
      ...state([user('u1', 'hi', 1)]),
      config: { ...state([]).config, model: 'claude-haiku-4-5', serverCompaction: true },
    };
    assert.ok(
      serverRequestFor(st, { ...DEFAULT_COMPACTION_SETTINGS, strategy: 'server-compact' }).ok,
      'the request of a state whose config says so',
    );
  });

  it('builds clear_tool_uses with the API defaults and the context-management beta', () => {
    const r = serverRequestParts(base);
    assert.ok(r.ok);
    assert.deepEqual(r.value, {
      contextManagement: {
        edits: [
          {
            type: 'clear_tool_uses_20250919',
            trigger: { type: 'input_tokens', value: 100_000 },
            keep: { type: 'tool_uses', value: 3 },
          },
        ],
      },
      betas: [CONTEXT_MANAGEMENT_BETA],
    });
    const custom = serverRequestParts({
      ...base,
      settings: { triggerTokens: 5000, keepToolUses: 2, clearAtLeastTokens: 1000, excludeTools: ['read_file'] },
    });
    assert.ok(custom.ok);
    assert.deepEqual(custom.value.contextManagement?.edits[0], {
      type: 'clear_tool_uses_20250919',
      trigger: { type: 'input_tokens', value: 5000 },
      keep: { type: 'tool_uses', value: 2 },
      clear_at_least: { type: 'input_tokens', value: 1000 },
      exclude_tools: ['read_file'],
    });
  });

  it('builds compact_20260112 (trigger at least 50k) only where the model supports it; clear_thinking goes first', () => {
    const r = serverRequestParts({ ...base, strategy: 'server-compact', softTokens: 20_000, thinking: true });
    assert.ok(r.ok);
    assert.deepEqual(
      r.value.contextManagement?.edits.map((e) => e.type),
      ['clear_thinking_20251015', 'compact_20260112'],
    );
    assert.deepEqual(r.value.contextManagement?.edits[1], {
      type: 'compact_20260112',
      trigger: { type: 'input_tokens', value: 50_000 },
    });
    assert.deepEqual([...r.value.betas].sort(), [COMPACT_BETA, CONTEXT_MANAGEMENT_BETA].sort());
    const refused = serverRequestParts({ ...base, strategy: 'server-compact', model: 'claude-haiku-4-5' });
    assert.equal(refused.ok, false);
    assert.ok(supportsServerCompaction('claude-opus-4-6') && !supportsServerCompaction('claude-haiku-4-5'));
    const ours = serverRequestParts({ ...base, strategy: 'summarise', hasCompactionBlock: true });
    assert.ok(ours.ok);
    assert.deepEqual(ours.value, { betas: [COMPACT_BETA] });
  });

  it('parses applied edits and iterations, and bills the compaction iteration on top of the top-level usage', () => {
    const report = parseServerReport(
      { applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_input_tokens: 1200, cleared_tool_uses: 4 }] },
      [
        {
          type: 'compaction',
          input_tokens: 180_000,
          output_tokens: 3_500,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
        },
        {
          type: 'message',
          input_tokens: 23_000,
          output_tokens: 1_000,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
        },
      ],
    );
    assert.ok(report);
    assert.deepEqual(report.appliedEdits, [
      { type: 'clear_tool_uses_20250919', clearedInputTokens: 1200, clearedToolUses: 4 },
    ]);
    const usage = {
      input_tokens: 23_000,
      output_tokens: 1_000,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    assert.equal(billedUsages(usage, report).length, 2);
    const expected =
      (requestCostUsd('claude-sonnet-4-6', usage) ?? NaN) +
      (requestCostUsd('claude-sonnet-4-6', { ...usage, input_tokens: 180_000, output_tokens: 3_500 }) ?? NaN);
    assert.ok(Math.abs((requestCostWithServerUsd('claude-sonnet-4-6', usage, report) ?? NaN) - expected) < 1e-12);
    assert.equal(parseServerReport(null, null), undefined);
  });

  it('turns a server compaction into a record: originals out, placeholder in, block sent back verbatim, normalize-safe, session round-trip', () => {
    let n = 0;
    const deps = { clock: { now: () => 1 }, ids: { next: (p: string) => `${p}${++n}` } };
    const s0 = state([
      user('u1', 'first', 1),
      { id: 'a1', role: 'assistant', turn: 1, blocks: [{ type: 'text', text: 'ok', meta: meta('a1b') }] },
      user('u2', 'second', 2),
    ]);
    const appended = appendAssistantMessage(
      s0,
      [
        { type: 'compaction', content: 'The summary.', encryptedContent: 'enc_1' },
        { type: 'text', text: 'Answer.' },
      ],
      deps,
    );
    assert.ok(appended.ok);
    const r = serverCompactionRecord(appended.state, appended.message, {
      ...deps,
      tokensOf: () => 10,
      costUsd: 0.5,
      model: 'claude-sonnet-4-6',
      strategy: 'server-compact',
    });
    assert.ok(r);
    assert.equal(r.record.layer, 'server-compact');
    assert.equal(r.record.summary, 'The summary.');
    assert.deepEqual(
      r.record.originals.map((m) => m.id),
      ['u1', 'a1', 'u2'],
    );
    assert.deepEqual(
      r.state.messages.map((m) => m.role),
      ['user', 'assistant'],
    );
    const placeholder = r.state.messages[0]?.blocks[0];
    assert.ok(placeholder?.type === 'text' && placeholder.text === SERVER_COMPACTION_PLACEHOLDER);
    const { state: normalized, repairs } = normalizeState({
      ...r.state,
      messages: [...r.state.messages, user('u3', 'next', 3)],
    });
    assert.deepEqual(repairs, []);
    const sent = serializeMessage(normalized.messages[1] as Message);
    assert.deepEqual(sent.content, [
      { type: 'compaction', content: 'The summary.', encrypted_content: 'enc_1' },
      { type: 'text', text: 'Answer.' },
    ]);
    const line = encodeEntry({ type: 'message', at: 1, message: appended.message });
    const back = decodeLine(line);
    assert.ok(back.ok && back.entry.type === 'message', JSON.stringify(back));
    assert.deepEqual(back.entry.message.blocks[0], appended.message.blocks[0]);
  });

  describe('through the fake server and the real client', () => {
    let fake: FakeAnthropic;
    before(async () => {
      fake = await startFakeAnthropic();
    });
    after(() => fake.close());
    beforeEach(() => fake.reset());
    const llm = () =>
      new AnthropicLlmClient({
        apiKey: async () => 'sk-ant-test',
        baseUrl: fake.url,
        retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
        sleep: async () => undefined,
      });
    const toolRound = (i: number) => [
      {
        role: 'assistant' as const,
        content: [
          { type: 'tool_use' as const, id: `toolu_${i}`, name: i === 0 ? 'keep_me' : 'read_file', input: { i } },
        ],
      },
      {
        role: 'user' as const,
        content: [{ type: 'tool_result' as const, tool_use_id: `toolu_${i}`, content: filler(400, i) }],
      },
    ];
    const messages = [{ role: 'user' as const, content: 'start' }, ...[0, 1, 2, 3, 4].flatMap(toolRound)];
    const tools = [
      { name: 'read_file', description: 'r', input_schema: { type: 'object' as const } },
      { name: 'keep_me', description: 'k', input_schema: { type: 'object' as const } },
    ];

    it('rejects context_management without its beta header', async () => {
      const r = await llm().stream(
        {
          model: 'claude-sonnet-4-6',
          max_tokens: 100,
          messages,
          tools,
          context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
        } as never,
        { signal: new AbortController().signal, onEvent: () => undefined },
      );
      assert.equal(r.ok, false);
      assert.equal(fake.requests[0]?.error?.rule, 'beta_required');
    });

    it('clears old tool results at the trigger and reports the applied edit in the final message_delta', async () => {
      const parts = serverRequestParts({
        ...base,
        settings: { triggerTokens: 1000, keepToolUses: 2, clearAtLeastTokens: 0, excludeTools: ['keep_me'] },
      });
      assert.ok(parts.ok);
      const r = await llm().stream(
        { model: 'claude-sonnet-4-6', max_tokens: 100, messages, tools },
        { signal: new AbortController().signal, onEvent: () => undefined, server: parts.value },
      );
      assert.ok(r.ok, JSON.stringify(r));
      const edit = r.result.server?.appliedEdits[0];
      assert.ok(edit && edit.type === 'clear_tool_uses_20250919');
      assert.equal(edit.clearedToolUses, 2, 'toolu_0 excluded, toolu_3/4 kept');
      assert.ok(edit.clearedInputTokens > 700);
      assert.equal(fake.requests[0]?.headers['anthropic-beta'], CONTEXT_MANAGEMENT_BETA);
      const rec = fake.requests[0];
      assert.ok(
        rec?.contextManagement &&
          rec.inputTokens !== undefined &&
          rec.inputTokens < rec.contextManagement.tokensBeforeEdits,
      );
    });

    it('streams a scripted server compaction: the block first, usage iterations, and the block is accepted back', async () => {
      fake.script({ text: 'Continuing.', compaction: { summary: 'We read five files.' } });
      const parts = serverRequestParts({ ...base, strategy: 'server-compact' });
      assert.ok(parts.ok);
      const events: LlmEvent[] = [];
      const r = await llm().stream(
        { model: 'claude-sonnet-4-6', max_tokens: 100, messages, tools },
        { signal: new AbortController().signal, onEvent: (e) => events.push(e), server: parts.value },
      );
      assert.ok(r.ok, JSON.stringify(r));
      assert.deepEqual(r.result.content[0], {
        type: 'compaction',
        content: 'We read five files.',
        encryptedContent: `enc_${fake.requests[0]?.requestId}`,
      });
      assert.deepEqual(
        r.result.server?.iterations.map((i) => i.type),
        ['compaction', 'message'],
      );
      assert.ok(
        (r.result.server?.iterations[0]?.input_tokens ?? 0) > r.result.usage.input_tokens,
        'the answer read the compacted prompt',
      );
      const back = await llm().stream(
        {
          model: 'claude-sonnet-4-6',
          max_tokens: 100,
          tools,
          messages: [
            { role: 'user', content: 'placeholder' },
            {
              role: 'assistant',
              content: [
                { type: 'compaction', content: 'We read five files.', encrypted_content: 'x' } as never,
                { type: 'text', text: 'Continuing.' },
              ],
            },
            { role: 'user', content: 'next' },
          ],
        },
        { signal: new AbortController().signal, onEvent: () => undefined, server: parts.value },
      );
      assert.ok(back.ok, JSON.stringify(back));
      const noBeta = await llm().stream(
        {
          model: 'claude-sonnet-4-6',
          max_tokens: 100,
          messages: [
            { role: 'user', content: 'p' },
            { role: 'assistant', content: [{ type: 'compaction', content: 'S', encrypted_content: 'x' } as never] },
            { role: 'user', content: 'n' },
          ],
        },
        { signal: new AbortController().signal, onEvent: () => undefined },
      );
      assert.equal(noBeta.ok, false);
    });
  });
});

describe('a server compaction block is adopted only when asked for (issue 34 #4)', () => {
  const text = { type: 'text' as const, text: 'answer' };
  const block = (content: string) => ({ type: 'compaction' as const, content });
  it('keeps the block when the request asked for compact_20260112 and the summary is of a sane size', () => {
    const r = acceptedServerCompaction([block('summary'), text], true);
    assert.equal(r.content.length, 2);
    assert.equal(r.dropped, undefined);
  });
  it('drops a block nobody asked for, and one of a 5 MB summary, saying why', () => {
    const unasked = acceptedServerCompaction([block('summary'), text], false);
    assert.deepEqual(unasked.content, [text]);
    assert.match(unasked.dropped ?? '', /did not ask for/);
    const huge = acceptedServerCompaction([block('x'.repeat(5_000_000)), text], true);
    assert.deepEqual(huge.content, [text]);
    assert.match(huge.dropped ?? '', /over 512,000 characters/);
    assert.equal(MAX_SERVER_SUMMARY_CHARS, 512_000);
  });
});
