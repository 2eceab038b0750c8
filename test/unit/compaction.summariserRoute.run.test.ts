import { strict as assert } from 'node:assert';
import { Compactor } from '../../src/core/compaction/compactor';
import { mainPrefixOf, type CompactorDeps } from '../../src/core/compaction/compactorRuns';
import { stretchOfRequest, type MainPrefix } from '../../src/core/compaction/mainSummary';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import { SUMMARY_SYSTEM_PROMPT, TRANSCRIPT_LIMITS } from '../../src/core/compaction/summaryPrompt';
import { transcriptTokens } from '../../src/core/compaction/transcriptTokens';
import { expectedSummaryTokens, smallRouteUsd } from '../../src/core/compaction/summariserRoute';
import { expectedReplacementTokens } from '../../src/core/compaction/regions';
import type { ConversationState, Message, PipelineConfig } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { fakeClock } from './support/builders';
import { Convo } from './support/compactionBuilders';
import { refusal } from './support/normalizeFixtures';
import { ScriptedLlm } from './support/scriptedLlm';
import type { CutUsage } from '../../src/core/llm/llmClient';
import { requestCostUsd } from '../../src/core/llm/cost';
import { cutBilledUsage } from '../../src/core/llm/cutRequest';

/**
 * Tool results weigh 20k tokens each, everything else 200 (the plan's figures by hand); a result
 * weighs as much in the transcript the summariser model reads (transcriptTokens.ts), since these
 * short files are not cut there.
 */
const tokensOf = (m: Message) =>
  m.blocks.some((b) => b.type === 'tool_result' || (b.type === 'text' && /^Result of /m.test(b.text))) ? 20_000 : 200;

/** Seven turns of one big read each (about 154k tokens with the 10k overhead), then the next question: over the hard threshold. */
function bigState(
  config: Partial<PipelineConfig>,
  content = (t: number) => `export const f${t} = ${t};`,
): ConversationState {
  const convo = new Convo();
  for (let t = 1; t <= 7; t++) convo.user(`question ${t}`).read(`src/f${t}.ts`, content(t)).say(`answer ${t}`);
  convo.user('question 8');
  return convo.state({
    model: 'claude-opus-4-6',
    summarizerModel: 'claude-haiku-4-5',
    contextWindow: 200_000,
    outputReserve: 32_000,
    keepRecentTurns: 1,
    keepRecentTokens: 0,
    ...config,
  });
}

function compactorWith(llm: ScriptedLlm, clock = fakeClock()) {
  const deps: CompactorDeps = {
    summariser: llm,
    clock,
    ids: counterIds('r'),
    tokensOf,
    measure: (s) => 10_000 + s.messages.reduce((n, m) => n + tokensOf(m), 0),
    settings: () => ({ ...DEFAULT_COMPACTION_SETTINGS, maskToolResults: false, reattachAfterCompaction: false }),
    timeout: () => new Promise(() => undefined),
  };
  return { compactor: new Compactor(deps), deps, clock };
}

const summary = () => ({ content: [{ type: 'text' as const, text: 'Read f1 to f6: each exports its number.' }] });
/** Enough answers for the summariser model's chunks (it may split a region the main model reads at once). */
const summaries = () => Array.from({ length: 6 }, summary);

describe('compaction: the route the plan picks is the route the run takes', () => {
  it('Opus with a warm cache: the plan picks the main model, whose request is the main prefix plus the instruction', async () => {
    const llm = new ScriptedLlm([summary()]);
    const { compactor, deps, clock } = compactorWith(llm);
    const state = bigState({});
    const plan = compactor.plan(state, { cacheWarm: true, routeCacheWarm: true, mode: 'auto' });
    assert.equal(plan.action, 'summarise');
    assert.equal(plan.summariser?.route, 'main');
    assert.ok(plan.summariser.main && plan.summariser.main.usd < plan.summariser.small.usd);
    const prefix = mainPrefixOf(deps, state);
    const run = await compactor.beforeRequest(state, {
      lastRequestAt: clock.now() - 60_000,
      signal: new AbortController().signal,
    });
    assert.equal(llm.requests.length, 1);
    const request = llm.requests[0];
    assert.ok(request);
    assert.equal(request.model, 'claude-opus-4-6');
    assert.equal(JSON.stringify(request.messages.slice(0, -1)), JSON.stringify(prefix.params.messages.slice(0, -1)));
    assert.equal(JSON.stringify(request.system), JSON.stringify(prefix.params.system));
    assert.equal(refusal(request), undefined);
    const region = plan.regions[0];
    assert.ok(region);
    assert.deepEqual(stretchOfRequest(request), {
      from: region.startIndex + 1,
      to: region.startIndex + region.messageIds.length,
    });
    assert.equal(run.records[0]?.model, 'claude-opus-4-6', 'the record names the model that wrote it');
  });

  it("the main model's record counts an attempt of it that was cut mid-answer", async () => {
    const cut: CutUsage = {
      model: 'claude-opus-4-6',
      streamedChars: 350,
      usage: { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 150_000, cache_creation_input_tokens: 0 },
    };
    const usage = {
      input_tokens: 10,
      output_tokens: 300,
      cache_read_input_tokens: 150_000,
      cache_creation_input_tokens: 0,
    };
    const { compactor, clock } = compactorWith(new ScriptedLlm([{ ...summary(), usage, cutBefore: cut }]));
    const run = await compactor.beforeRequest(bigState({}), {
      lastRequestAt: clock.now() - 60_000,
      signal: new AbortController().signal,
    });
    const rec = run.records.find((r) => r.layer === 'summarise');
    assert.equal(rec?.model, 'claude-opus-4-6');
    const expected =
      (requestCostUsd('claude-opus-4-6', usage) ?? NaN) +
      (requestCostUsd('claude-opus-4-6', cutBilledUsage(cut)) ?? NaN);
    assert.ok(rec && Math.abs(rec.costUsd - expected) < 1e-12, `${rec?.costUsd} = ${expected}`);
  });

  it('answers billed beyond what they show (thinking) make the main route dearer by that much per summary request', () => {
    const { compactor } = compactorWith(new ScriptedLlm([]));
    const state = bigState({});
    const planOf = () => compactor.plan(state, { cacheWarm: true, routeCacheWarm: true, mode: 'auto' });
    const before = planOf();
    const answer = [...state.messages].reverse().find((m) => m.role === 'assistant');
    assert.ok(answer && before.summariser?.main && before.regions.length > 0);
    // The fixture counts 200 tokens for the answer; the API billed 6 200 output tokens for it.
    for (let i = 0; i < 30; i++) compactor.observeAnswer({ output_tokens: 6_200, cache_read_input_tokens: 1 }, answer);
    const after = planOf().summariser;
    assert.ok(after?.main);
    const expected = (6_000 * 25 * before.regions.length) / 1e6;
    assert.ok(
      Math.abs(after.main.usd - before.summariser.main.usd - expected) < 1e-3,
      `about 6 000 thinking tokens at $25 per million per request (${after.main.usd} vs ${before.summariser.main.usd})`,
    );
    assert.equal(after.small.usd, before.summariser.small.usd, 'the summariser model does not think');
  });

  it('full cache misses seen on requests that expected a read make the main route dearer; a compacted request is not one', async () => {
    const signal = new AbortController().signal;
    const planOf = (c: Compactor) =>
      c.plan(bigState({}), { cacheWarm: true, routeCacheWarm: true, mode: 'auto' }).summariser;
    const answer = new Convo().user('hi').say('hello').state().messages[1] as Message;
    const small = new Convo().user('hi').say('hello').user('next').state(bigState({}).config);
    const fresh = compactorWith(new ScriptedLlm([])).compactor;
    const before = planOf(fresh);
    assert.equal(before?.route, 'main');
    // Five requests within the TTL that compact nothing, each finding the cache empty.
    const missed = compactorWith(new ScriptedLlm([]));
    for (let i = 0; i < 5; i++) {
      const run = await missed.compactor.beforeRequest(small, { lastRequestAt: missed.clock.now() - 1_000, signal });
      assert.equal(run.records.length, 0);
      missed.compactor.observeAnswer({ output_tokens: 10, cache_read_input_tokens: 0 }, answer);
    }
    const after = planOf(missed.compactor);
    assert.ok(
      after?.main && before.main && after.main.usd > before.main.usd,
      `${after?.main?.usd} > ${before.main?.usd}`,
    );
    assert.equal(after.route, 'small', 'a third of the reads missed: the summariser model is cheaper');
    // A request that compacted changed the prefix: its empty read is expected, not a miss.
    const compacted = compactorWith(new ScriptedLlm(summaries()));
    const run = await compacted.compactor.beforeRequest(bigState({}), {
      lastRequestAt: compacted.clock.now() - 1_000,
      signal,
    });
    assert.ok(run.records.length > 0);
    compacted.compactor.observeAnswer({ output_tokens: 10, cache_read_input_tokens: 0 }, answer);
    assert.equal(planOf(compacted.compactor)?.main?.usd, before.main.usd);
    // Nor is the first request after Compact Now, which compacted before beforeRequest ran.
    const manual = compactorWith(new ScriptedLlm(summaries()));
    const done = await manual.compactor.compact(bigState({}), { trigger: 'manual', tokensToFree: 'all', signal });
    assert.ok(done.records.length > 0);
    const next = await manual.compactor.beforeRequest(small, { lastRequestAt: manual.clock.now() - 1_000, signal });
    assert.equal(next.records.length, 0);
    manual.compactor.observeAnswer({ output_tokens: 10, cache_read_input_tokens: 0 }, answer);
    assert.equal(planOf(manual.compactor)?.main?.usd, before.main.usd);
    // Nor the first after a restore (the session tells the compactor the history was edited).
    const restored = compactorWith(new ScriptedLlm([]));
    restored.compactor.historyEdited();
    await restored.compactor.beforeRequest(small, { lastRequestAt: restored.clock.now() - 1_000, signal });
    restored.compactor.observeAnswer({ output_tokens: 10, cache_read_input_tokens: 0 }, answer);
    assert.equal(planOf(restored.compactor)?.main?.usd, before.main.usd);
  });

  it('prices the summariser model on the transcript it reads: results past its cut count for the part kept', () => {
    // Tokens by length here (a quarter of the characters), so the transcript's cut shows in the count.
    const byLength = (m: Message) => Math.ceil(JSON.stringify(m.blocks).length / 4);
    const { deps } = compactorWith(new ScriptedLlm([]));
    const compactor = new Compactor({
      ...deps,
      tokensOf: byLength,
      measure: (s) => 10_000 + s.messages.reduce((n, m) => n + byLength(m), 0),
    });
    // Each file is 4× what the transcript keeps of a result: about 12k tokens, of which Haiku reads 3k.
    const state = bigState({}, (t) => `// f${t}\n${'x'.repeat(4 * TRANSCRIPT_LIMITS.toolResult)}`);
    const plan = compactor.plan(state, { cacheWarm: true, routeCacheWarm: true, mode: 'manual' });
    const region = plan.regions[0];
    assert.ok(region && plan.regions.length === 1 && plan.summariser?.main);
    const messages = state.messages.slice(region.startIndex, region.startIndex + region.messageIds.length);
    const read = transcriptTokens(messages, byLength);
    assert.ok(read < region.tokens / 3, `${read} of ${region.tokens}`);
    const outputTokens = expectedSummaryTokens(region.tokens, expectedReplacementTokens(region) - region.userTokens);
    assert.equal(
      plan.summariser.small.usd,
      smallRouteUsd({
        smallModel: 'claude-haiku-4-5',
        regions: [{ tokens: region.tokens, readTokens: read, outputTokens }],
      }),
    );
    const whole = smallRouteUsd({ smallModel: 'claude-haiku-4-5', regions: [{ tokens: region.tokens, outputTokens }] });
    assert.ok(
      plan.summariser.main.usd < whole,
      'priced on every token, Haiku would look dearer than Opus from its cache',
    );
    assert.equal(plan.summariser.route, 'small', 'priced on what it reads, Haiku is cheaper');
  });

  it('the same conversation on a cold cache (or the first request) goes to the summariser model', async () => {
    for (const lastRequestAt of [undefined, 'idle'] as const) {
      const llm = new ScriptedLlm(summaries());
      const { compactor, clock } = compactorWith(llm);
      const run = await compactor.beforeRequest(bigState({}), {
        ...(lastRequestAt === 'idle' ? { lastRequestAt: clock.now() - 10 * 60_000 } : {}),
        signal: new AbortController().signal,
      });
      const request = llm.requests[0];
      assert.equal(request?.model, 'claude-haiku-4-5', String(lastRequestAt));
      assert.equal(request.system, SUMMARY_SYSTEM_PROMPT);
      assert.equal(run.records[0]?.model, 'claude-haiku-4-5');
    }
  });

  it('`summarizer: small` keeps the summariser model on a warm cache; `main` takes the main one on a cold one', async () => {
    const small = new ScriptedLlm(summaries());
    const a = compactorWith(small);
    await a.compactor.beforeRequest(bigState({ summarizer: 'small' }), {
      lastRequestAt: a.clock.now() - 60_000,
      signal: new AbortController().signal,
    });
    assert.equal(small.requests[0]?.model, 'claude-haiku-4-5');
    const main = new ScriptedLlm([summary()]);
    const b = compactorWith(main);
    const state = bigState({ summarizer: 'main', model: 'claude-sonnet-4-6' });
    assert.equal(b.compactor.plan(state, { cacheWarm: false, mode: 'manual' }).summariser?.route, 'main');
    await b.compactor.compact(state, { trigger: 'manual', tokensToFree: 'all', signal: new AbortController().signal });
    assert.equal(main.requests[0]?.model, 'claude-sonnet-4-6');
  });

  it('Compact Now shows both estimates, and a failing main model hands the region to the summariser model', async () => {
    const llm = new ScriptedLlm([
      { error: { kind: 'overloaded', message: 'Overloaded.', retryable: true } },
      ...summaries(),
    ]);
    const { compactor } = compactorWith(llm);
    const state = bigState({ summarizer: 'main' });
    const preview = await compactor.preview(state);
    assert.equal(preview.summariser?.route, 'main');
    assert.ok(preview.summariser.main && preview.summariser.small.usd > 0);
    const run = await compactor.compact(state, {
      trigger: 'manual',
      tokensToFree: 'all',
      signal: new AbortController().signal,
    });
    const models = llm.requests.map((r) => r.model);
    assert.equal(models[0], 'claude-opus-4-6');
    assert.ok(models.length > 1 && models.slice(1).every((m) => m === 'claude-haiku-4-5'), models.join());
    assert.equal(run.records[0]?.layer, 'summarise');
    assert.equal(run.records[0]?.model, 'claude-haiku-4-5');
    assert.match(
      run.records[0]?.fallbacks.join('; ') ?? '',
      /the main model failed \(Overloaded\.\) → claude-haiku-4-5/,
    );
  });

  it("takes the agent's own request when given one (its breakpoints), and falls back while it answers undefined", async () => {
    const state = bigState({});
    // The agent's request differs from the fallback only in where it placed breakpoints.
    const fallback = mainPrefixOf(compactorWith(new ScriptedLlm([])).deps, state);
    const agents: MainPrefix = structuredClone(fallback);
    const second = agents.params.messages[1];
    const lastBlock = second && typeof second.content !== 'string' ? second.content.at(-1) : undefined;
    assert.ok(lastBlock);
    Object.assign(lastBlock, { cache_control: { type: 'ephemeral' } });
    assert.notEqual(JSON.stringify(agents), JSON.stringify(fallback));
    let built = false;
    const llm = new ScriptedLlm([summary()]);
    const { deps, clock } = compactorWith(llm);
    const withAgent: CompactorDeps = { ...deps, mainRequest: () => (built ? agents : undefined) };
    assert.equal(JSON.stringify(mainPrefixOf(withAgent, state)), JSON.stringify(fallback), 'before the agent exists');
    built = true;
    assert.equal(mainPrefixOf(withAgent, state), agents);
    await new Compactor(withAgent).beforeRequest(state, {
      lastRequestAt: clock.now() - 60_000,
      signal: new AbortController().signal,
    });
    const request = llm.requests[0];
    assert.ok(request, 'the main model was asked');
    assert.equal(request.model, 'claude-opus-4-6');
    assert.equal(JSON.stringify(request.messages.slice(0, -1)), JSON.stringify(agents.params.messages.slice(0, -1)));
  });
});
