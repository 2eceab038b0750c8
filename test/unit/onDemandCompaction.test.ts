import { strict as assert } from 'node:assert';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic';
import { compactionSignature } from '../fake-anthropic/compactionRequest';
import { AnthropicLlmClient } from '../../src/host/anthropic/anthropicClient';
import type { LlmClient } from '../../src/core/llm/llmClient';
import { serverRequestFor } from '../../src/core/agent/serverRequest';
import { restoreRecord } from '../../src/core/compaction/apply';
import type { CompactionRun } from '../../src/core/compaction/compactor';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import { serverAnchor, withServerRoute } from '../../src/core/compaction/serverRoute';
import { describeChoice } from '../../src/core/compaction/summariserRoute';
import { buildCompactionRequest } from '../../src/core/compaction/serverSummary';
import type { ConversationState, Message, PipelineConfig } from '../../src/core/conversation/conversationModel';
import { normalizeState } from '../../src/core/normalize/normalize';
import { prepareRequest } from '../../src/core/pipeline/pipeline';
import { compactionBlockBetas, serializeMessage } from '../../src/core/pipeline/serialize';
import {
  COMPACT_BETA,
  ON_DEMAND_COMPACTION_BETA,
  supportsOnDemandCompaction,
} from '../../src/core/server/serverContext';
import { encodeEntry } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import { fakeClock } from './support/builders';
import { Convo, testCompactor, tokensOf } from './support/compactionBuilders';
import { ScriptedLlm } from './support/scriptedLlm';

const signal = new AbortController().signal;

/** Six finished turns of a read and an answer, then a seventh question (Opus 4.6 unless said). */
function history(config: Partial<PipelineConfig> = {}, fileChars = 400, turns = 6): ConversationState {
  const convo = new Convo();
  for (let t = 1; t <= turns; t++)
    convo
      .user(`question ${t} about src/f${t}.ts`)
      .read(`src/f${t}.ts`, `export const f${t} = ${t}; // ${'x'.repeat(fileChars)}`)
      .say(`answer ${t}`);
  convo.user(`question ${turns + 1}`);
  return convo.state({
    model: 'claude-opus-4-6',
    summarizer: 'server',
    keepRecentTurns: 1,
    keepRecentTokens: 0,
    outputReserve: 8_000,
    ...config,
  });
}

const settings = () => ({ ...DEFAULT_COMPACTION_SETTINGS, maskToolResults: false, reattachAfterCompaction: false });

/** Compacts everything compactable now (Compact Now) with `summariser`. */
function compactAll(state: ConversationState, summariser: LlmClient): Promise<CompactionRun> {
  return testCompactor(summariser, { settings }).compact(state, { trigger: 'manual', tokensToFree: 'all', signal });
}

describe('compaction on demand: the server summariser route', () => {
  describe('through the real client and the fake server', () => {
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

    it('summarises the region that starts the history; the block goes first; later requests carry it under the beta; Restore undoes it', async () => {
      fake.script({ compaction: { summary: 'Read src/f1.ts to src/f5.ts; each exports its number.' } });
      const state = history();
      const run = await compactAll(state, llm());
      assert.deepEqual(run.notices, []);
      const req = fake.requests[0];
      assert.ok(req?.valid, JSON.stringify(req?.error));
      assert.equal(req.headers['anthropic-beta'], ON_DEMAND_COMPACTION_BETA);
      assert.deepEqual((req.body as { compaction?: unknown }).compaction, { type: 'summarize' });
      assert.equal((req.body as { context_management?: unknown }).context_management, undefined);
      const record = run.records[0];
      assert.ok(record && record.layer === 'summarise');
      assert.equal(record.model, 'claude-opus-4-6');
      assert.match(record.summary ?? '', /^Read src\/f1\.ts to src\/f5\.ts/);
      assert.match(record.fallbacks[0] ?? '', /compaction on demand/);
      // The request sent exactly the region: the history up to its last message.
      assert.equal((req.body as { messages: unknown[] }).messages.length, record.originals.length);
      // The block first, in an assistant message; the user's words and the note after it.
      const [head, lead] = run.state.messages;
      const block = head?.blocks[0];
      assert.ok(head?.role === 'assistant' && block?.type === 'summary' && block.server?.onDemand);
      assert.equal(block.server.signature, compactionSignature(block.text));
      assert.ok(lead?.role === 'user' && lead.blocks.some((b) => b.type === 'text' && b.meta.source === 'user'));
      assert.ok(record.tokensAfter < record.tokensBefore);

      // The next request: the block first, no placeholder before it, the on-demand beta.
      const { sent, params, repairs } = prepareRequest(run.state, {
        count: (s) => ({ tools: 0, system: 0, messages: s.messages.map(tokensOf), total: 0, anchored: false }),
        clock: fakeClock(),
      });
      assert.deepEqual(repairs, []);
      assert.equal(sent.messages[0]?.id, head.id);
      const parts = serverRequestFor(run.state, undefined);
      assert.ok(parts.ok && parts.value);
      assert.deepEqual(parts.value.betas, [ON_DEMAND_COMPACTION_BETA]);
      const next = await llm().stream(params, { signal, onEvent: () => undefined, server: parts.value });
      assert.ok(next.ok, JSON.stringify(next));
      assert.ok(fake.requests[1]?.valid);
      // Without the beta the API refuses the block.
      const refused = await llm().stream(params, { signal, onEvent: () => undefined, server: { betas: [] } });
      assert.equal(refused.ok, false);
      assert.equal(fake.requests[2]?.error?.rule, 'beta_required');

      const restored = restoreRecord(run.state, record);
      assert.ok(restored.ok);
      assert.deepEqual(
        restored.state.messages.map((m) => m.id),
        state.messages.map((m) => m.id),
      );
    });

    it('a 400 from the API falls back to our own summariser, with a notice; the history is kept', async () => {
      fake.script({ status: 400, message: 'compaction is unavailable', match: { model: 'claude-opus-4-6' } });
      const state = history();
      const run = await compactAll(state, llm());
      assert.equal(fake.requests[0]?.headers['anthropic-beta'], ON_DEMAND_COMPACTION_BETA);
      assert.ok(fake.requests.slice(1).every((r) => r.valid));
      const record = run.records[0];
      assert.ok(record && record.layer === 'summarise', JSON.stringify(run.notices));
      assert.notEqual(record.model, undefined);
      assert.match(record.fallbacks.join(' '), /compaction on demand failed/);
      assert.ok(run.notices.some((n) => /Compaction on demand failed/.test(n)));
      assert.ok(!run.state.messages.some((m) => m.blocks.some((b) => b.type === 'summary' && b.server)));
      assert.deepEqual(
        record.originals.map((m) => m.id),
        state.messages.slice(0, record.originals.length).map((m) => m.id),
      );
    });
  });

  it('an answer without a compaction block falls back too', async () => {
    const llm = new ScriptedLlm([
      { content: [{ type: 'text', text: 'Here is a summary.' }], stopReason: 'end_turn' },
      ...Array.from({ length: 4 }, () => ({ content: [{ type: 'text' as const, text: 'Our summary of f1–f5.' }] })),
    ]);
    const run = await compactAll(history(), llm);
    assert.ok(run.notices.some((n) => /without a usable compaction block/.test(n)));
    assert.match(run.records[0]?.summary ?? '', /Our summary/);
    assert.equal(llm.requests[0]?.model, 'claude-opus-4-6');
  });

  it('the route runs only where it can: the model supports it, no server strategy, the region starts the history', () => {
    assert.ok(
      supportsOnDemandCompaction('claude-opus-4-6') && supportsOnDemandCompaction('claude-sonnet-4-6-20260101'),
    );
    assert.ok(!supportsOnDemandCompaction('claude-haiku-4-5') && !supportsOnDemandCompaction('claude-opus-4-5'));
    const compactor = testCompactor(new ScriptedLlm([]), { settings });
    const plan = (s: ConversationState) => compactor.plan(s, { cacheWarm: true, mode: 'manual' });
    const deps = { tokensOf, fixedTokens: 500, now: 0, strategy: 'summarise' };
    const s = history();
    const p = plan(s);
    assert.equal(withServerRoute(p.summariser, s, p.regions, deps)?.route, 'server');
    const haiku = history({ model: 'claude-haiku-4-5' });
    const h = plan(haiku);
    const choice = withServerRoute(h.summariser, haiku, h.regions, deps);
    assert.notEqual(choice?.route, 'server');
    assert.match(choice?.reason ?? '', /does not support compaction on demand/);
    assert.notEqual(
      withServerRoute(p.summariser, s, p.regions, { ...deps, strategy: 'server-clear-tool-uses' })?.route,
      'server',
    );
    const later = p.regions.map((r) => ({ ...r, messageIds: r.messageIds.slice(2) }));
    assert.notEqual(withServerRoute(p.summariser, s, later, deps)?.route, 'server');
    const said = { ...s, config: { ...s.config, onDemandCompaction: false } };
    assert.match(withServerRoute(p.summariser, said, p.regions, deps)?.reason ?? '', /the Models API says so/);
    const haikuSaid = { ...haiku, config: { ...haiku.config, onDemandCompaction: true } };
    assert.equal(withServerRoute(h.summariser, haikuSaid, h.regions, deps)?.route, 'server', 'the capability wins');
    const small = { ...s, config: { ...s.config, summarizer: 'small' as const } };
    assert.equal(withServerRoute(p.summariser, small, p.regions, deps), p.summariser, '`small` is left alone');
  });

  it('auto takes the server route when the cache holds the history up to the region end, not when it is cold', () => {
    const now = 1_000_000;
    // Fifty reads of about 3k tokens each, short of the transcript's cut (so the summariser model reads them
    // whole): reading them from the cache beats reading them fresh with the summariser model.
    const base = history({ summarizer: 'auto', contextWindow: 1_000_000, outputReserve: 8_000 }, 11_900, 50);
    // Everything written a minute ago: the request after the region's last user message cached the prefix to it.
    const warm: ConversationState = {
      ...base,
      messages: base.messages.map((m) => ({
        ...m,
        blocks: m.blocks.map((b) => ({ ...b, meta: { ...b.meta, createdAt: now - 60_000 } })),
      })),
    };
    const compactor = testCompactor(new ScriptedLlm([]), { settings });
    const p = compactor.plan(warm, { cacheWarm: true, mode: 'manual' });
    const region = p.regions[0];
    assert.ok(region);
    const end = warm.messages.findIndex((m) => m.id === region.messageIds.at(-1));
    assert.equal(serverAnchor(warm.messages, end, now, '5m')?.alive, true);
    assert.equal(serverAnchor(warm.messages, end, now + 600_000, '5m')?.alive, false);
    const deps = { tokensOf, fixedTokens: 20_000, now, strategy: 'summarise' };
    const hot = withServerRoute(p.summariser, warm, p.regions, deps);
    assert.equal(hot?.route, 'server', hot?.reason);
    assert.ok(hot.server && hot.fallback);
    assert.match(describeChoice(hot), /^summariser: the API \(compaction on demand, claude-opus-4-6\), est\. \$/);
    const cold = withServerRoute(p.summariser, warm, p.regions, { ...deps, now: now + 3_600_000 });
    assert.notEqual(cold?.route, 'server');
    assert.ok(cold?.server && cold.server.usd > hot.server.usd, 'weighed, and dearer cold');
  });

  it('the request is the main request cut after the region, one message breakpoint at the anchor', () => {
    const params = {
      model: 'claude-opus-4-6',
      max_tokens: 100,
      system: [{ type: 'text' as const, text: 's', cache_control: { type: 'ephemeral' as const } }],
      messages: [
        {
          role: 'user' as const,
          content: [{ type: 'text' as const, text: 'a', cache_control: { type: 'ephemeral' as const } }],
        },
        { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'b' }] },
        { role: 'user' as const, content: [{ type: 'text' as const, text: 'c' }] },
        { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'd' }] },
        {
          role: 'user' as const,
          content: [{ type: 'text' as const, text: 'e', cache_control: { type: 'ephemeral' as const } }],
        },
      ],
    };
    const r = buildCompactionRequest(params, 3, { index: 2, ttl: '1h' });
    assert.equal(r.messages.length, 4);
    assert.deepEqual(r.system, params.system);
    const marks = r.messages.flatMap((m, i) =>
      typeof m.content === 'string'
        ? []
        : m.content.flatMap((b) => ('cache_control' in b && b.cache_control ? [i] : [])),
    );
    assert.deepEqual(marks, [2]);
    assert.equal('cache_control' in (params.messages[0]?.content[0] ?? {}), true, 'the main params are not touched');
  });

  it('the block serialises with its signature, survives normalize first, round-trips the session file, and asks its beta', async () => {
    {
      const llm = new ScriptedLlm([
        {
          content: [
            { type: 'compaction', content: 'Summary.', encryptedContent: null, signature: 'sig', toolChanges: [] },
          ],
          stopReason: 'compaction',
        },
      ]);
      const run = await compactAll(history(), llm);
      const head = run.state.messages[0] as Message;
      assert.deepEqual(serializeMessage(head).content, [
        { type: 'compaction', content: 'Summary.', encrypted_content: null, signature: 'sig', tool_changes: [] },
      ]);
      const n = normalizeState(run.state);
      assert.deepEqual(n.repairs, []);
      assert.equal(n.state, run.state, 'valid as it is: no placeholder before the block');
      assert.deepEqual(compactionBlockBetas(run.state), [ON_DEMAND_COMPACTION_BETA]);
      const threshold = { ...run.state, messages: run.state.messages.slice(1) };
      assert.deepEqual(compactionBlockBetas(threshold), []);
      const line = encodeEntry({ type: 'message', at: 1, message: head });
      const back = decodeLine(line);
      assert.ok(back.ok && back.entry.type === 'message', JSON.stringify(back));
      const [again, first] = [back.entry.message.blocks[0], head.blocks[0]];
      assert.ok(again?.type === 'summary' && first?.type === 'summary');
      assert.deepEqual([again.text, again.server], [first.text, first.server]);
    }
    assert.notEqual(COMPACT_BETA, ON_DEMAND_COMPACTION_BETA);
  });
});
