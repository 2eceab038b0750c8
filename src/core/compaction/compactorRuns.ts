/**
 * The runs the Compactor executes once it has decided (compactor.ts): a summarise plan by
 * the route the plan picked (the summariser model, or the main model from its cached prefix —
 * or the API's compaction on demand for the region that starts the history, serverRoute.ts),
 * a removal strategy, and the re-attach after either. Also the compactor's ports and results.
 */
import type { LlmClient } from '../llm/llmClient';
import type { CacheTtl, ConversationState, Message } from '../conversation/conversationModel';
import { usualWriteTtl } from '../cache/usualWriteTtl';
import { modelInfo } from '../models/modelFacts';
import { prepareRequest } from '../pipeline/pipeline';
import { counterIds, type Clock, type IdSource } from '../platform/platformPorts';
import type { CircuitBreaker } from './circuitBreaker';
import { hybrid } from './hybrid';
import type { MainPrefix } from './mainSummary';
import { middleRemoval } from './middleRemoval';
import { oldestRemoval } from './oldestRemoval';
import type { CompactionPlan, PlannedRegion } from './plan';
import { effectiveWindow, fixedRequestTokens, type CompactionSettings } from './policy';
import type { RequestEnds } from './requestEnds';
import { anchorOf, withServerRoute } from './serverRoute';
import { previewReattach, reattach, type ReadFresh } from './reattachRun';
import { summariseRegions } from './summarise';
import type { OnStoppedSpend } from './stoppedSpend';
import type { SummariserChoice } from './summariserRoute';
import type { CarriedPlan, CompactionRecord, CompactionTrigger, ReattachedFile } from './types';
import { isServerStrategy } from '../server/serverContext';

/** A summary may take at most this share of the main model's effective window (so summaries never crowd it)… */
const SUMMARY_WINDOW_SHARE = 0.06;
/** …but never less than this many tokens. */
const MIN_SUMMARY_CAP = 1_000;

/**
 * Told when a summary starts, before the summariser is asked: why, and the calibrated tokens
 * of the regions it summarises (the chat's "Compacting… (summarising 38k tokens)").
 */
export type OnSummarising = (start: { readonly trigger: CompactionTrigger; readonly tokens: number }) => void;

/** The options of a request's compaction pass (Compactor.beforeRequest). */
export interface BeforeRequestOptions {
  readonly lastRequestAt?: number;
  /** The lifetime the previous request wrote its last breakpoint with (absent: the setting's usual one). */
  readonly lastTtl?: CacheTtl;
  readonly signal: AbortSignal;
  readonly onSummarising?: OnSummarising | undefined;
}

/** The options of one compaction run: why, the user's instructions (manual), Stop, and who hears it start. */
export interface RunOptions {
  readonly trigger: CompactionTrigger;
  readonly instructions?: string;
  readonly signal: AbortSignal;
  readonly onSummarising?: OnSummarising | undefined;
  /** Where the session's requests ended (the Compactor's), for the server route's cache read. */
  readonly ends?: RequestEnds;
}

/** What Compact Now would do: regions, totals, and the plan behind them. */
export interface CompactionPreview {
  readonly regions: readonly PlannedRegion[];
  readonly tokensBefore: number;
  /** The whole prompt after the compaction, its re-attach reminder included. */
  readonly expectedAfter: number;
  /** Tokens the compacted regions free (before the re-attach adds its reminder). */
  readonly expectedSaving: number;
  readonly plan: CompactionPlan;
  /** Files the run's re-attach reminder would name by path only (its file index, fileIndex.ts), most recent first. */
  readonly named: readonly string[];
  /**
   * Files the run would re-attach after compacting (most recent first), when re-attach is on
   * and there is a reader, as read now: each with its content, or by path with the reason.
   * The run reads them again, so a file changed meanwhile may fare differently.
   */
  readonly reattached: readonly ReattachedFile[];
  /** The plan the run would carry (survivePlan.ts), when it would. */
  readonly carriedPlan?: CarriedPlan;
  /** Tokens of what survives (the plan's reminder, the files' read now; 0 when nothing); counted in `expectedAfter`. */
  readonly reattachTokens: number;
  /** Summarise strategy: who would write the summaries and the expected cost of each route. */
  readonly summariser?: SummariserChoice;
}

/** Ports and settings of the compactor. */
export interface CompactorDeps {
  /** The summariser (either route), through the same client as the agent. */
  readonly summariser: LlmClient;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** Calibrated tokens of one message (memoised by the estimator's counts). */
  readonly tokensOf: (m: Message) => number;
  /** Best estimate of a whole request's prompt tokens. */
  readonly measure: (state: ConversationState) => number;
  readonly settings: () => CompactionSettings;
  /** Resolves after `ms`, rejects when `signal` aborts (injected: tests do not wait). */
  readonly timeout: (ms: number, signal: AbortSignal) => Promise<void>;
  /**
   * Reads a file fresh for the re-attach after a compaction (see reattach.ts); without it
   * nothing is re-attached.
   */
  readonly readFresh?: ReadFresh;
  /**
   * The main conversation's request for a state exactly as the agent would send it next
   * (prepareRequest with the agent's counter and previous breakpoint), for the main-model
   * summary route. Absent, or answering undefined (the agent is not built yet): prepareRequest
   * with the compactor's own counts and no previous breakpoint — the same bytes before the last
   * message, breakpoints placed afresh.
   */
  readonly mainRequest?: (state: ConversationState) => MainPrefix | undefined;
  /**
   * Where the money of a summary stopped before it was made goes (stoppedSpend.ts); may be
   * called after the run returned (the request in flight settles later). Absent: not reported.
   */
  readonly onStoppedSpend?: OnStoppedSpend;
}

/** What a compaction pass did. */
export interface CompactionRun {
  readonly state: ConversationState;
  readonly records: readonly CompactionRecord[];
  /** Sentences for the user (proposals, breaker state, nothing-to-compact). */
  readonly notices: readonly string[];
}

/** A removal strategy our own compaction runs. */
export type RemovalStrategy = 'middle-removal' | 'oldest-removal' | 'hybrid';

/**
 * The settings our own compaction runs with: under a server strategy, Compact Now, the hard
 * safety net and overflow recovery summarise (the server has no "compact now").
 */
export function ownStrategySettings(
  settings: CompactionSettings,
): CompactionSettings & { readonly strategy: 'summarise' | RemovalStrategy } {
  const strategy = settings.strategy;
  return isServerStrategy(strategy) ? { ...settings, strategy: 'summarise' } : { ...settings, strategy };
}

/** The main request for `state`: the agent's (deps.mainRequest), else prepareRequest with the compactor's counts. */
export function mainPrefixOf(deps: CompactorDeps, state: ConversationState): MainPrefix {
  const agents = deps.mainRequest?.(state);
  if (agents) return agents;
  const total = deps.measure(state);
  const prepared = prepareRequest(state, {
    count: (sending) => {
      const messages = sending.messages.map(deps.tokensOf);
      const fixed = Math.max(0, total - messages.reduce((n, t) => n + t, 0));
      return { tools: 0, system: fixed, messages, total, anchored: false };
    },
    clock: deps.clock,
  });
  return { params: prepared.params, sent: prepared.sent };
}

/**
 * Executes a summarise plan: the regions it picked, summarised by the route it chose
 * (fallbacks inside summariseRegions), counted in the circuit breaker.
 */
export async function executePlan(
  deps: CompactorDeps,
  breaker: CircuitBreaker,
  state: ConversationState,
  plan: CompactionPlan,
  opts: RunOptions,
): Promise<CompactionRun> {
  const settings = deps.settings();
  if (plan.regions.length === 0)
    return {
      state,
      records: [],
      notices:
        opts.trigger === 'auto-soft' || opts.trigger === 'budget'
          ? []
          : [plan.reason || 'Nothing can be compacted: everything is recent, pinned or already a summary.'],
    };
  const choice = summariserOf(deps, state, plan, opts.ends);
  const route = choice?.route === 'server' ? choice.fallback : choice?.route;
  // After an overflow the prompt does not fit the main model: only the summariser model can read it.
  const main = route === 'main' && opts.trigger !== 'overflow';
  const server = choice?.route === 'server';
  const prefix = main || server ? mainPrefixOf(deps, state) : undefined;
  const ttl = usualWriteTtl(state.config.cacheTtl);
  const first = plan.regions[0];
  const end = first ? state.messages.findIndex((m) => m.id === first.messageIds.at(-1)) : -1;
  const anchor = server
    ? anchorOf(state, end, { now: deps.clock.now(), ...(opts.ends ? { ends: opts.ends } : {}) }).anchor
    : undefined;
  opts.onSummarising?.({ trigger: opts.trigger, tokens: plan.regions.reduce((n, r) => n + r.tokens, 0) });
  const outcome = await summariseRegions(state, {
    regions: plan.regions,
    trigger: opts.trigger,
    ...(opts.instructions ? { instructions: opts.instructions } : {}),
    ...(state.plan ? { plan: state.plan } : {}),
    summariser: deps.summariser,
    summarizerModel: state.config.summarizerModel,
    ...(main && prefix ? { main: { prefix, ttl } } : {}),
    ...(server && prefix
      ? { server: { prefix, ttl, ...(anchor?.alive ? { anchorId: state.messages[anchor.index]?.id ?? '' } : {}) } }
      : {}),
    contextWindow: modelInfo(state.config.summarizerModel).contextWindow,
    maxSummaryTokens: Math.max(MIN_SUMMARY_CAP, Math.floor(SUMMARY_WINDOW_SHARE * effectiveWindow(state.config))),
    tokensOf: deps.tokensOf,
    clock: deps.clock,
    ids: deps.ids,
    timeout: deps.timeout,
    timeoutMs: settings.summariserTimeoutMs,
    signal: opts.signal,
    strategy: `${settings.strategy} (${settings.summaryPolicy})`,
    ...(deps.onStoppedSpend ? { onStoppedSpend: deps.onStoppedSpend } : {}),
  });
  if (outcome.failed) breaker.failure();
  else breaker.success();
  const notices = outcome.failed
    ? [
        `The summariser failed (${outcome.error ?? 'unknown error'}); the oldest turns were removed instead and can be restored from the Compactions view.`,
      ]
    : [];
  if (breaker.isOpen)
    notices.push('Automatic summarisation is paused after 3 failures in a row. Use "Compact Now" to try again.');
  return { state: outcome.state, records: outcome.records, notices: [...(outcome.notices ?? []), ...notices] };
}

/**
 * The plan's summariser choice with the server route weighed (serverRoute.ts): what a run of
 * `plan` on `state` takes, and what the Compact Now preview shows.
 */
export function summariserOf(
  deps: Pick<CompactorDeps, 'tokensOf' | 'measure' | 'clock' | 'settings'>,
  state: ConversationState,
  plan: Pick<CompactionPlan, 'summariser' | 'regions'>,
  ends?: RequestEnds,
): SummariserChoice | undefined {
  return withServerRoute(plan.summariser, state, plan.regions, {
    tokensOf: deps.tokensOf,
    fixedTokens: fixedRequestTokens(state, deps.tokensOf, deps.measure),
    now: deps.clock.now(),
    strategy: deps.settings().strategy,
    ...(ends ? { ends } : {}),
  });
}

/**
 * What Compact Now would do, before it runs: the very plan `compact(…, 'all')` executes for
 * the summarise strategy (its summariser with the server route weighed), and a dry run of the
 * removal strategies (which are pure and deterministic, so the run then removes exactly what
 * the preview showed); then its re-attach, with the files read now as the run will read them
 * (previewReattach), whose tokens the whole prompt's `expectedAfter` includes.
 */
export async function previewOf(
  deps: CompactorDeps,
  state: ConversationState,
  plan: CompactionPlan,
  ends?: RequestEnds,
): Promise<CompactionPreview> {
  const settings = ownStrategySettings(deps.settings());
  const base =
    settings.strategy === 'summarise'
      ? {
          regions: plan.regions,
          tokensBefore: plan.tokensBefore,
          expectedAfter: plan.expectedAfter,
          expectedSaving: plan.expectedSaving,
          ...(plan.summariser ? { summariser: summariserOf(deps, state, plan, ends) ?? plan.summariser } : {}),
        }
      : removalPreview(deps, state, settings.strategy, plan.tokensBefore);
  const reattach = await reattachPreviewOf(deps, state, base.regions, base.expectedAfter);
  return { ...base, plan, ...reattach, expectedAfter: base.expectedAfter + reattach.reattachTokens };
}

/** Runs a removal strategy to free `tokensToFree` (pure: no LLM). */
export function strategyRun(
  deps: Pick<CompactorDeps, 'tokensOf' | 'clock'>,
  state: ConversationState,
  strategy: RemovalStrategy,
  tokensToFree: number,
  trigger: CompactionTrigger,
  ids: IdSource,
): CompactionRun {
  const keepTurns = Math.max(1, state.config.keepRecentTurns);
  const opts = {
    tokensToFree,
    tokensOf: deps.tokensOf,
    clock: deps.clock,
    ids,
    keepRecentTurns: keepTurns,
    keepRecentTokens: state.config.keepRecentTokens,
    keepFirst: 1,
    keepLast: keepTurns,
    trigger,
  };
  const r =
    strategy === 'middle-removal'
      ? middleRemoval(state, opts)
      : strategy === 'oldest-removal'
        ? oldestRemoval(state, opts)
        : hybrid(state, opts);
  return {
    state: r.state,
    records: r.records,
    notices:
      r.records.length === 0 ? ['Nothing can be removed: everything is recent, pinned or already a summary.'] : [],
  };
}

/** A dry run of a removal strategy (pure and deterministic, so the run then removes exactly this), as preview regions and totals. */
export function removalPreview(
  deps: Pick<CompactorDeps, 'tokensOf' | 'clock'>,
  state: ConversationState,
  strategy: RemovalStrategy,
  tokensBefore: number,
): Pick<CompactionPreview, 'regions' | 'tokensBefore' | 'expectedAfter' | 'expectedSaving'> {
  const dry = strategyRun(deps, state, strategy, Number.MAX_SAFE_INTEGER, 'manual', counterIds('preview'));
  const saving = dry.records.reduce((n, r) => n + r.tokensBefore - r.tokensAfter, 0);
  const regions = dry.records.flatMap((r) =>
    r.regions.map((g) => ({
      ...g,
      userTokens: 0,
      startIndex: state.messages.findIndex((m) => m.id === g.messageIds[0]),
      expectedTokensAfter: 0,
    })),
  );
  return { regions, tokensBefore, expectedAfter: tokensBefore - saving, expectedSaving: saving };
}

/**
 * After a run that summarised or dropped turns: the survive step (reattachRun.ts) puts the
 * plan and — when the setting is on and a reader was given — the files read or edited most
 * recently into its last such record; the run as it was otherwise. `surplusOver`: the re-attached content may
 * take only the tokens the run freed beyond this many.
 */
export async function reattachAfter(
  deps: CompactorDeps,
  before: ConversationState,
  run: CompactionRun,
  signal: AbortSignal,
  surplusOver?: number,
): Promise<CompactionRun> {
  const settings = deps.settings();
  if (signal.aborted) return run;
  // The plan always survives; files only with a reader and the setting on.
  const readFresh = settings.reattachAfterCompaction === false ? undefined : deps.readFresh;
  const r = await reattach(before, run, {
    readFresh,
    tokensOf: deps.tokensOf,
    measure: deps.measure,
    settings,
    clock: deps.clock,
    ids: deps.ids,
    ...(surplusOver !== undefined ? { surplusOver } : {}),
  });
  return { ...run, state: r.state, records: r.records };
}

/** What survives a compaction of `regions` — the plan, the files re-attached and named — and the reminders' tokens (for the preview). */
export async function reattachPreviewOf(
  deps: CompactorDeps,
  state: ConversationState,
  regions: ReadonlyArray<{ readonly messageIds: readonly string[] }>,
  expectedAfter: number,
): Promise<Pick<CompactionPreview, 'reattached' | 'named' | 'reattachTokens' | 'carriedPlan'>> {
  const settings = deps.settings();
  const readFresh = settings.reattachAfterCompaction === false ? undefined : deps.readFresh;
  if (regions.length === 0) return { reattached: [], named: [], reattachTokens: 0 };
  const replaced = new Set(regions.flatMap((r) => r.messageIds));
  const after = state.messages.filter((m) => !replaced.has(m.id));
  const read = await previewReattach(state, after, expectedAfter, { readFresh, tokensOf: deps.tokensOf, settings });
  return {
    reattached: read.files,
    named: read.named.map((f) => f.path),
    reattachTokens: read.tokens,
    ...(read.plan ? { carriedPlan: read.plan } : {}),
  };
}
