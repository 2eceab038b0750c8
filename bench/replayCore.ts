/**
 * Replays a real transcript through the whole pipeline under one compaction policy: tool
 * results through the arrival guard, the policy's compaction before each request, cache
 * anchors, serialization, the fake API's validation and prompt cache — on the transcript's own
 * clock (each usage's `at`, so cache TTLs expire and the idle microcompact runs as they would
 * have) and with the real session's own full cache misses replayed. Each request is priced by
 * the model that served it, the summariser by its own; a refused request counts as a failure,
 * priced as fully uncached. Retention is measured as forward-reference recall (frr.ts).
 * Files re-attached after a compaction are read from the transcript (reattachProxy.ts) and
 * count in cost and recall like everything else the prompt holds.
 * Token counts are the calibrated estimate learned from the transcript's real usage.
 */
import { CostBreakdown, writeCause } from './costBreakdown';
import { ttlMs } from '../src/core/cache/cacheAnchors';
import { ReplyGaps, startsTurn } from '../src/core/cache/replyGaps';
import { usualWriteTtl } from '../src/core/cache/usualWriteTtl';
import type { Usage } from '../src/core/llm/llmClient';
import { Compactor } from '../src/core/compaction/compactor';
import { effectiveWindow } from '../src/core/compaction/policy';
import { resolveConfig } from '../src/core/pipeline/config';
import { buildLedger } from '../src/core/pipeline/ledger';
import type { ConversationState, Message, PipelineConfig } from '../src/core/conversation/conversationModel';
import type { RepairKind } from '../src/core/normalize/normalize';
import { prepareRequest, type PreparedRequest } from '../src/core/pipeline/pipeline';
import { requestPrefixDigest } from '../src/core/pipeline/thinkingBinding';
import { checksThinkingPrefix } from '../src/core/models/preservedThinking';
import { counterIds, type Tokenizer } from '../src/core/platform/platformPorts';
import { serverRequestFor } from '../src/core/agent/serverRequest';
import { isServerStrategy } from '../src/core/server/serverContext';
import type { Calibration } from '../src/core/tokens/calibration';
import { calibratedMessageTokens, calibratedTextTokens } from '../src/core/tokens/calibratedTokens';
import { TokenEstimator } from '../src/core/tokens/estimator';
import { appendMerged, guardArrival, withBoundAnswer, type ToolNames } from './arrival';
import { forwardReferences, FrrTally, type Reference } from './frr';
import { LastKnownFiles } from './reattachProxy';
import { CostTally, plusPrice, priceRequest } from './pricing';
import { costFloor } from './costFloor';
import { SYSTEM_STANDIN, systemStandin } from './systemStandin';
import { ReplayApi } from './replayApi';
import { compactionLogLine, fmtTokens, reattachedTokens } from './replayReport';
import { withClearedResults } from './clearedResults';
import { ScriptedSummariser } from './scriptedSummariser';
import { ReplayServerSummariser } from './serverSummariser';
import { SUMMARY_LENGTH } from './summaryLength';
import type { TranscriptEvent } from './transcript';
import type { ReplayOptions, ReplayResult, RequestTrace } from './replayTypes';
import { isRealFullMiss, REPLAY_START, ReplayClock, reportsCacheUse } from './replayClock';
import { withLoadedTools } from './tools/toolLoad';

export type { ReplayOptions, ReplayResult, ReplayToolLoad, RequestTrace } from './replayTypes';

export { FALLBACK_GAP_MS } from './replayClock';

/** A transcript with what every replay of it shares (pass 1). */
export interface PreparedTranscript {
  readonly name: string;
  readonly events: readonly TranscriptEvent[];
  readonly tokenizer: Tokenizer;
  /** Calibration learned from the real usage. */
  readonly calibration: Calibration;
  /** Tokens the transcript does not hold (system prompt, tools): the median of reported − calibrated count. */
  readonly overhead: number;
  /** Forward references by usage event index. */
  readonly references: ReadonlyMap<number, readonly Reference[]>;
  /** What no policy can go below (costFloor.ts). */
  readonly floor: CostTally;
  /** Whether the session used the prompt cache at all (replayClock.ts `reportsCacheUse`): else no request of it is a real miss. */
  readonly reportsCache: boolean;
}

/**
 * Pass 1: learns the calibration from every real report (the history re-anchored on the
 * original agent's own compactions, as its prompts were), then the unseen overhead as the
 * median of reported − calibrated count over the requests before its first compaction (after
 * one, Claude Code re-attaches files its log does not keep), and the forward references.
 */
export function prepareTranscript(
  name: string,
  events: readonly TranscriptEvent[],
  tokenizer: Tokenizer,
): PreparedTranscript {
  const learner = new TokenEstimator(tokenizer);
  let history: Message[] = [];
  let compacted = false;
  const samples: { reported: number; messages: readonly Message[] }[] = [];
  for (const e of events) {
    if (e.kind === 'message') history = appendMerged(history, e.message);
    else if (e.kind === 'compaction') {
      history = [e.message];
      compacted = true;
    } else if (e.usage) {
      learner.observe({ system: [], tools: [], messages: history }, e.usage);
      if (!compacted)
        samples.push({
          reported: e.usage.input_tokens + e.usage.cache_read_input_tokens + e.usage.cache_creation_input_tokens,
          messages: history,
        });
    }
  }
  const cal = learner.calibration;
  const overheads = samples
    .map((x) => x.reported - x.messages.reduce((n, m) => n + calibratedMessageTokens(m, tokenizer, cal), 0))
    .sort((a, b) => a - b);
  const overhead = overheads.length === 0 ? 0 : (overheads[Math.floor(overheads.length / 2)] as number);
  const unseen = Math.max(0, Math.round(overhead));
  return {
    name,
    events,
    tokenizer,
    calibration: cal,
    overhead: unseen,
    references: forwardReferences(events),
    floor: costFloor(events, tokenizer, cal, unseen),
    reportsCache: reportsCacheUse(events),
  };
}

/** Replays a prepared transcript under one policy and window. */
export async function replay(t: PreparedTranscript, opts: ReplayOptions): Promise<ReplayResult> {
  const { tokenizer, calibration: cal } = t;
  // The transcript's unseen system prompt and tools, and the tool definitions the bench adds (toolLoad.ts).
  const overhead = t.overhead + (opts.toolLoad?.prefixTokens ?? 0);
  const textTokens = (text: string) => Math.round(calibratedTextTokens(text, tokenizer, cal));
  const tokensOf = (m: Message) => calibratedMessageTokens(m, tokenizer, cal);
  const measure = (s: ConversationState) => overhead + s.messages.reduce((n, m) => n + tokensOf(m), 0);
  const configs = new Map<string, PipelineConfig>();
  const configFor = (model: string): PipelineConfig => {
    let c = configs.get(model);
    if (!c) {
      const r = resolveConfig({ ...opts.policy.pipeline, ...(model ? { model } : {}), contextWindow: opts.window });
      if (!r.ok) throw new Error(r.error);
      c = r.config;
      configs.set(model, c);
    }
    return c;
  };

  const time = new ReplayClock();
  const clock = { now: () => time.now };
  const api = new ReplayApi(clock.now, textTokens);
  // The main model's thinking per answer, as the compactor measures it (below), bills a main-model summary.
  const summariser: ScriptedSummariser = new ScriptedSummariser({
    tokens: textTokens,
    length: opts.summaryLength ?? SUMMARY_LENGTH,
    api,
    mainThinking: (): number => compactor.measured.thinkingTokens ?? 0,
  });
  const files = new LastKnownFiles();
  // The main request the replay would send for a state (the counts and previous breakpoint below):
  // the main-model summary route appends its instruction to exactly this.
  const count = (sending: ConversationState) => ({
    tools: 0,
    system: overhead,
    messages: sending.messages.map(tokensOf),
    total: measure(sending),
    anchored: false,
  });
  let previous: ReturnType<typeof prepareRequest>['lastBreakpoint'];
  // The session's rhythm of turns and replies, learned as the extension learns it (requestAccounting.ts).
  const gaps = new ReplyGaps();
  // The request the replay sends for a state now, as the extension builds it (sessionCore.ts `prepare`).
  const prepare = (s: ConversationState): PreparedRequest =>
    prepareRequest(s, {
      count,
      clock,
      gaps: gaps.stats,
      missRate: compactor.measured.cacheMissRate,
      ...(previous ? { previous } : {}),
    });
  const compactor = new Compactor({
    // Compaction on demand (the `server` route) beside the scripted routes, through the same API and cache.
    summariser: new ReplayServerSummariser(summariser, api, {
      tokens: textTokens,
      length: opts.summaryLength ?? SUMMARY_LENGTH,
    }),
    clock,
    ids: counterIds('r'),
    tokensOf,
    measure,
    settings: () => opts.policy.settings,
    timeout: () => new Promise(() => undefined),
    readFresh: files.readFresh,
    mainRequest: (s) => {
      const p = prepare(s);
      return { params: p.params, sent: p.sent };
    },
  });
  const firstModel = t.events.find((e) => e.kind === 'usage' && e.usage !== null);
  let state: ConversationState = {
    // The unseen system prompt and tools: one block, counted as `overhead` tokens.
    system: [systemStandin(REPLAY_START)],
    tools: [],
    messages: [],
    pending: [],
    config: configFor(firstModel?.kind === 'usage' ? firstModel.model : ''),
  };
  const names: ToolNames = new Map();
  const cost = new CostTally();
  const frr = new FrrTally();
  const log: string[] = [];
  const repairs = new Map<RepairKind, number>();
  const trace: RequestTrace[] = [];
  const totals = {
    requests: 0,
    overflows: 0,
    peak: 0,
    compactions: 0,
    summaries: 0,
    guarded: 0,
    pastes: 0,
    reattached: 0,
    flushes: 0,
    serverClears: 0,
    serverClearedTokens: 0,
    input: 0,
    read: 0,
    write: 0,
    output: 0,
  };
  const serverSide = isServerStrategy(opts.policy.settings.strategy);
  const signal = new AbortController().signal;
  let lastRequestAt: number | undefined;
  const breakdown = new CostBreakdown();
  let afterCompaction = false;
  /** Usage of the request just sent (as the replay's cache served it), until its answer arrives. */
  let answered: Usage | undefined;
  /** The prefix digest of the request just sent, for a model that checks its thinking's prefix (thinkingBinding.ts). */
  let answerPrefix: string | undefined;
  /** The session's cost so far (null once anything was unpriced), and the summariser calls it counts. */
  let soFar: number | null = 0;
  let summariserCallsPriced = 0;

  for (const [index, e] of t.events.entries()) {
    if (e.kind === 'compaction') {
      // The original agent compacted here; the replay decides for itself (but its next request was a cold one).
      afterCompaction = true;
      continue;
    }
    if (e.kind === 'message') {
      // The answer to the request just sent: what it billed beyond its words is the model's thinking.
      if (e.message.role === 'assistant' && answered !== undefined) compactor.observeAnswer(answered, e.message);
      answered = undefined;
      files.observe(e.message);
      const loadedText = opts.toolLoad?.loadedText;
      const arrived = loadedText ? withLoadedTools(e.message, state.messages, loadedText) : e.message;
      const g = guardArrival(arrived, state, compactor, state.config.contextWindow, names);
      totals.guarded += g.guarded;
      totals.pastes += g.pastes;
      state = { ...state, messages: appendMerged(state.messages, g.message) };
      // The answer's thinking is bound to the request it answered, as the extension binds it (sessionCore.ts).
      if (e.message.role === 'assistant' && answerPrefix !== undefined) state = withBoundAnswer(state, answerPrefix);
      else if (e.message.role === 'user') answerPrefix = undefined;
      continue;
    }
    if (!e.usage) continue;
    const now = time.advance(e.at);
    const flushed = isRealFullMiss(e.usage, totals.requests, afterCompaction, t.reportsCache);
    if (flushed) {
      api.flush();
      totals.flushes++;
    }
    afterCompaction = false;
    totals.requests++;
    state = { ...state, config: configFor(e.model) };

    const run = await opts.policy.beforeRequest(state, {
      compactor,
      measure,
      signal,
      ...(lastRequestAt !== undefined ? { lastRequestAt } : {}),
      ...(previous ? { lastTtl: previous.ttl } : {}),
    });
    state = run.state;
    for (const r of run.records) {
      totals.compactions++;
      if (r.layer === 'summarise' || r.layer === 'fallback-drop') totals.summaries++;
      totals.reattached += reattachedTokens(r);
      log.push(compactionLogLine(totals.requests, r));
    }

    // Overflows and peak on the history we send: the server's edits are not counted in our favour.
    const tokens = measure(state);
    totals.peak = Math.max(totals.peak, tokens / effectiveWindow(state.config));
    if (tokens + state.config.outputReserve > state.config.contextWindow) totals.overflows++;
    // count gets the normalized state: per-message tokens must index its messages, as the anchors do.
    const prepared = prepare(state);
    gaps.observe(now, startsTurn(prepared.sent.messages));
    const lifetimeMs = ttlMs(previous?.ttl ?? usualWriteTtl(state.config.cacheTtl));
    previous = prepared.lastBreakpoint;
    answerPrefix = checksThinkingPrefix(e.model) ? requestPrefixDigest(prepared.sent) : undefined;
    for (const kind of new Set(prepared.repairs.map((r) => r.kind))) repairs.set(kind, (repairs.get(kind) ?? 0) + 1);
    const ledger = buildLedger(prepared.sent, prepared.anchors, tokenizer, cal);
    // Under a server strategy the request carries the app's own context_management (serverRequest.ts).
    const server = serverRequestFor(state, serverSide ? opts.policy.settings : undefined);
    const sent =
      server && !server.ok
        ? api.refuse(`server strategy: ${server.reason}`)
        : api.sendMain(
            prepared.params,
            ledger.map((r) => r.tokens),
            overhead - textTokens(SYSTEM_STANDIN),
            server?.value,
            opts.policy.sharedPrefix === true,
          );
    const split = sent.ok
      ? sent.split
      : {
          input_tokens: Math.round(tokens),
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        };
    const cleared = sent.ok ? sent.cleared : undefined;
    if (cleared) {
      totals.serverClears++;
      totals.serverClearedTokens += cleared.tokens;
      log.push(
        `  request ${String(totals.requests).padStart(3)}: ${'server-clear'.padEnd(14)} ${'server'.padEnd(9)} ${fmtTokens(tokens)} → ${fmtTokens(tokens - cleared.tokens)} tokens (${cleared.toolUses} tool results)`,
      );
    }
    const usage: Usage = { ...split, output_tokens: e.usage.output_tokens };
    const usualTtl = usualWriteTtl(state.config.cacheTtl);
    const price = cost.add(e.model, usage, usualTtl);
    for (const c of summariser.requests.slice(summariserCallsPriced))
      soFar = plusPrice(soFar, priceRequest(c.model, c.usage, usualTtl));
    summariserCallsPriced = summariser.requests.length;
    soFar = plusPrice(soFar, price);
    breakdown.request(
      e.model,
      usage,
      usualTtl,
      writeCause({
        flushed,
        gapMs: lastRequestAt === undefined ? undefined : now - lastRequestAt,
        ttlMs: lifetimeMs,
        compacted: run.records.length > 0,
        serverEdited: cleared !== undefined,
      }),
    );
    totals.input += usage.input_tokens;
    totals.read += usage.cache_read_input_tokens;
    totals.write += usage.cache_creation_input_tokens;
    totals.output += usage.output_tokens;
    answered = usage;
    trace.push({
      at: now,
      model: e.model,
      tokens,
      usage,
      flushed,
      costSoFarUsd: soFar,
      ...(sent.ok ? {} : { invalid: sent.reason }),
      ...(cleared ? { serverCleared: { tokens: cleared.tokens, toolUses: cleared.toolUses } } : {}),
    });
    // Retention of what the model saw: results the server cleared are gone from it.
    frr.add(
      cleared ? withClearedResults(state.messages, cleared.toolUseIds) : state.messages,
      t.references.get(index) ?? [],
    );
    lastRequestAt = now;
  }

  const summariserCost = new CostTally();
  const summariserModels = new Map<string, number>();
  for (const c of summariser.requests) {
    summariserCost.add(c.model, c.usage, usualWriteTtl(state.config.cacheTtl));
    breakdown.summary(c.model, c.usage, usualWriteTtl(state.config.cacheTtl));
    summariserModels.set(c.model, (summariserModels.get(c.model) ?? 0) + 1);
  }
  return {
    transcript: t.name,
    window: opts.window,
    policy: opts.policy.name,
    requests: totals.requests,
    overflows: totals.overflows,
    invalid: api.invalid,
    invalidCount: api.invalidCount(),
    peak: totals.peak,
    compactions: totals.compactions,
    summaries: totals.summaries,
    guarded: totals.guarded,
    pastes: totals.pastes,
    reattached: totals.reattached,
    flushes: totals.flushes,
    serverClears: totals.serverClears,
    serverClearedTokens: totals.serverClearedTokens,
    tokens: { input: totals.input, read: totals.read, write: totals.write, output: totals.output },
    cost,
    summariserCost,
    breakdown: breakdown.parts(),
    floor: t.floor,
    summariserCalls: summariser.calls,
    summariserModels,
    frr: frr.totals(),
    repairs,
    log,
    trace,
  };
}
