import type { LlmClient } from '../agent/agentPorts';
import type { ConversationState, Message } from '../conversation/conversationModel';
import type { Spill } from '../conversation/paste';
import { counterIds, type Clock, type IdSource } from '../platform/platformPorts';
import { ttlMs } from '../cache/cacheAnchors';
import { budgetTrim } from './budgetTrim';
import { CircuitBreaker } from './circuitBreaker';
import { hybrid } from './hybrid';
import type { LayerContext, LayerResult } from './layerContext';
import { microcompact } from './microcompact';
import { middleRemoval } from './middleRemoval';
import { oldestRemoval } from './oldestRemoval';
import { effectiveWindow, type CompactionSettings } from './policy';
import { applyMask, maskCandidates } from './mask';
import { planCompaction, type CompactionPlan, type PlannedRegion } from './plan';
import { pickRegions, protectedFrom } from './regions';
import { modelInfo } from '../models/modelFacts';
import { snip } from './snip';
import { summariseRegions } from './summarise';
import { guardToolResult } from './toolResultGuard';
import { reattachCandidates } from './reattachCandidates';
import { reattach, type ReadFresh } from './reattachRun';
import type { CompactionRecord, CompactionTrigger } from './types';
import { isServerStrategy } from '../server/serverContext';

/**
 * The settings our own compaction runs with: under a server strategy, Compact Now, the hard
 * safety net and overflow recovery summarise (the server has no "compact now").
 */
function ownStrategySettings(
  settings: CompactionSettings,
): CompactionSettings & { readonly strategy: 'summarise' | 'middle-removal' | 'oldest-removal' | 'hybrid' } {
  const strategy = settings.strategy;
  return isServerStrategy(strategy) ? { ...settings, strategy: 'summarise' } : { ...settings, strategy };
}

/** A summary may take at most this share of the main model's effective window (so summaries never crowd it)… */
const SUMMARY_WINDOW_SHARE = 0.06;
/** …but never less than this many tokens. */
const MIN_SUMMARY_CAP = 1_000;
/** What Compact Now would do: regions, totals, and the plan behind them. */
export interface CompactionPreview {
  readonly regions: readonly PlannedRegion[];
  readonly tokensBefore: number;
  readonly expectedAfter: number;
  readonly expectedSaving: number;
  readonly plan: CompactionPlan;
  /**
   * Files the run would re-attach after compacting (most recent first), when re-attach is on
   * and there is a reader; what is actually attached depends on the files and the room then.
   */
  readonly reattach: readonly string[];
}

/** Ports and settings of the compactor. */
export interface CompactorDeps {
  /** The (cheaper) summariser model, through the same client as the agent. */
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
}

/** What a compaction pass did. */
export interface CompactionRun {
  readonly state: ConversationState;
  readonly records: readonly CompactionRecord[];
  /** Sentences for the user (proposals, breaker state, nothing-to-compact). */
  readonly notices: readonly string[];
}

/**
 * Runs the compaction layers, cheapest first: microcompact (cache gone cold), snip (> 60 %),
 * budget trim (> 50 % / 70 %), then — at the soft threshold per setting, at the hard
 * threshold always — the configured strategy (LLM summary by default). Every change is a
 * record. A circuit breaker stops automatic summarisation after 3 failures in a row; at the
 * hard threshold the compactor then removes the oldest turns instead (no LLM), so a request
 * never goes out over the window because the summariser is down.
 */
export class Compactor {
  readonly breaker = new CircuitBreaker();
  private proposedAt = -1;
  /** Prompt tokens after the last beforeRequest, and the measured growth per request (moving average). */
  private lastTokens: number | undefined;
  private growth: number | undefined;

  constructor(private readonly deps: CompactorDeps) {}

  /** Guards a tool result as it arrives (spill to a file over 30 KB, cut over its limit). */
  guardResult(
    content: string,
    opts: { contextWindow: number; spillDirectory: string; fileName: string; toolName: string },
  ): { content: string; spill?: Spill; notice?: string } {
    return guardToolResult(content, opts);
  }

  /**
   * Before each request: plans (see plan.ts) and executes the plan. No edit stands alone in a
   * warm cached prefix unless it pays back: snip, budget trim and microcompact run only when
   * the cache has gone cold (idle past its TTL: the prompt is written again anyway); masking
   * runs when the plan says it pays back (or at a threshold), summaries at the thresholds.
   */
  async beforeRequest(
    state: ConversationState,
    opts: { readonly lastRequestAt?: number; readonly signal: AbortSignal },
  ): Promise<CompactionRun> {
    const records: CompactionRecord[] = [];
    const notices: string[] = [];
    let s = state;
    const layer = (fn: (st: ConversationState, ctx: LayerContext) => LayerResult, ctx: Partial<LayerContext> = {}) => {
      const r = fn(s, this.context(s, ctx));
      if (r.record) {
        s = r.state;
        records.push(r.record);
      }
    };
    const now = this.deps.clock.now();
    const idleMs = opts.lastRequestAt === undefined ? 0 : now - opts.lastRequestAt;
    const cold = opts.lastRequestAt !== undefined && idleMs > ttlMs(s.config.cacheTtl);
    const settings = this.deps.settings();
    this.observeGrowth(this.deps.measure(s));
    if (isServerStrategy(settings.strategy)) {
      // The server clears or compacts at its trigger; ours stays off (no masking, no cold-cache
      // layers, no soft summary: each would rewrite the prefix the server edits). Kept: the
      // hard threshold, where we summarise as a safety net (the server trigger should sit
      // below it), beside the arrival guard and overflow recovery outside this method.
      const pressure = this.plan(s, { cacheWarm: !cold, mode: 'auto' }).pressure;
      if (pressure.level !== 'hard') return { state: s, records, notices };
      return this.compact(s, { trigger: 'auto-hard', tokensToFree: pressure.tokensToFree, signal: opts.signal });
    }
    if (cold) {
      layer(microcompact, { idleMs, trigger: 'idle' });
      layer(snip);
      layer(budgetTrim);
    }
    const plan = this.plan(s, { cacheWarm: !cold, mode: 'auto' });
    if (plan.pressure.level === 'ok') this.proposedAt = -1;
    if (plan.action === 'none') {
      if (plan.pressure.level === 'soft' && settings.softAction === 'propose' && this.proposedAt < 0) {
        this.proposedAt = now;
        notices.push(
          `The context is ${Math.round(plan.pressure.utilisation * 100)}% full (soft threshold ${Math.round(s.config.softThreshold * 100)}%). Compact Now would summarise older turns; it runs by itself at ${Math.round(s.config.hardThreshold * 100)}%.`,
        );
      }
      if (plan.pressure.level === 'hard' && settings.strategy !== 'summarise' && !isServerStrategy(settings.strategy)) {
        const run = await this.reattach(
          s,
          this.strategyRun(s, settings.strategy, plan.pressure.tokensToFree, 'auto-hard'),
          opts.signal,
        );
        return { state: run.state, records: [...records, ...run.records], notices: [...notices, ...run.notices] };
      }
      return { state: s, records, notices };
    }
    const trigger: CompactionTrigger =
      plan.pressure.level === 'hard' ? 'auto-hard' : plan.pressure.level === 'soft' ? 'auto-soft' : 'budget';
    if (plan.action === 'mask') {
      // On a cold cache the ride-along layers may have changed results: mask what is left.
      const mask = cold
        ? maskCandidates(
            s.messages,
            protectedFrom(s.messages, {
              keepRecentTurns: plan.keepRecentTurns,
              keepRecentTokens: s.config.keepRecentTokens,
              tokensOf: this.deps.tokensOf,
            }),
            this.deps.tokensOf,
          )
        : plan.mask;
      if (mask.length > 0) layer((st, ctx) => applyMask(st, ctx, mask), { trigger });
      return { state: s, records, notices };
    }
    if (this.breaker.isOpen) {
      if (plan.pressure.level !== 'hard') return { state: s, records, notices };
      notices.push(
        'The summariser failed 3 times in a row, so the oldest turns were removed instead (restorable from the Compactions view). Use "Compact Now" to try summarising again.',
      );
      const fallback = await this.reattach(
        s,
        this.strategyRun(s, 'oldest-removal', plan.pressure.tokensToFree, 'auto-hard'),
        opts.signal,
      );
      return { state: fallback.state, records: [...records, ...fallback.records], notices };
    }
    const run = await this.reattach(
      s,
      await this.execute(s, this.plan(s, { cacheWarm: !cold, mode: 'auto' }), { trigger, signal: opts.signal }),
      opts.signal,
    );
    return { state: run.state, records: [...records, ...run.records], notices: [...notices, ...run.notices] };
  }

  /** Feeds the growth estimate with the prompt size before this request (after the last one's). */
  private observeGrowth(tokens: number): void {
    if (this.lastTokens !== undefined) {
      const g = tokens - this.lastTokens;
      if (g >= 0) this.growth = this.growth === undefined ? g : 0.8 * this.growth + 0.2 * g;
    }
    this.lastTokens = tokens;
  }

  /** The plan for `state` now (see plan.ts): what would be compacted, why, and what it costs. */
  plan(
    state: ConversationState,
    opts: { readonly cacheWarm: boolean; readonly mode: 'auto' | 'manual' },
  ): CompactionPlan {
    const tokensOf = this.deps.tokensOf;
    let messageTokens = 0;
    for (const m of state.messages) messageTokens += tokensOf(m);
    const fixedTokens = Math.max(0, this.deps.measure(state) - messageTokens);
    return planCompaction(state, {
      tokensOf,
      fixedTokens,
      settings: this.deps.settings(),
      cacheWarm: opts.cacheWarm,
      mode: opts.mode,
      ...(this.growth !== undefined ? { growthPerRequest: this.growth } : {}),
    });
  }

  /** Executes a summarise plan: the regions it picked, summarised (fallbacks inside summariseRegions). */
  private async execute(
    state: ConversationState,
    plan: CompactionPlan,
    opts: { readonly trigger: CompactionTrigger; readonly instructions?: string; readonly signal: AbortSignal },
  ): Promise<CompactionRun> {
    const settings = this.deps.settings();
    if (plan.regions.length === 0)
      return {
        state,
        records: [],
        notices:
          opts.trigger === 'auto-soft' || opts.trigger === 'budget'
            ? []
            : [plan.reason || 'Nothing can be compacted: everything is recent, pinned or already a summary.'],
      };
    const outcome = await summariseRegions(state, {
      regions: plan.regions,
      trigger: opts.trigger,
      ...(opts.instructions ? { instructions: opts.instructions } : {}),
      summariser: this.deps.summariser,
      summarizerModel: state.config.summarizerModel,
      contextWindow: modelInfo(state.config.summarizerModel).contextWindow,
      maxSummaryTokens: Math.max(MIN_SUMMARY_CAP, Math.floor(SUMMARY_WINDOW_SHARE * effectiveWindow(state.config))),
      tokensOf: this.deps.tokensOf,
      clock: this.deps.clock,
      ids: this.deps.ids,
      timeout: this.deps.timeout,
      timeoutMs: settings.summariserTimeoutMs,
      signal: opts.signal,
      strategy: `${settings.strategy} (${settings.summaryPolicy})`,
    });
    if (outcome.failed) this.breaker.failure();
    else this.breaker.success();
    const notices = outcome.failed
      ? [
          `The summariser failed (${outcome.error ?? 'unknown error'}); the oldest turns were removed instead and can be restored from the Compactions view.`,
        ]
      : [];
    if (this.breaker.isOpen)
      notices.push('Automatic summarisation is paused after 3 failures in a row. Use "Compact Now" to try again.');
    return { state: outcome.state, records: outcome.records, notices };
  }

  /**
   * Runs the configured strategy to free `tokensToFree` (or everything compactable for 'all').
   * Manual runs may carry instructions for the summariser. Summariser failures fall back to
   * dropping the oldest regions (inside summariseRegions) and count towards the breaker.
   */
  async compact(
    state: ConversationState,
    opts: {
      readonly trigger: CompactionTrigger;
      readonly tokensToFree: number | 'all';
      readonly instructions?: string;
      readonly signal: AbortSignal;
    },
  ): Promise<CompactionRun> {
    const settings = ownStrategySettings(this.deps.settings());
    const toFree = opts.tokensToFree === 'all' ? Number.MAX_SAFE_INTEGER : opts.tokensToFree;
    // After an overflow the estimate was too low: the re-attach may only use what the compaction freed beyond what was asked.
    const surplusOver = opts.trigger === 'overflow' ? toFree : undefined;
    if (settings.strategy !== 'summarise')
      return this.reattach(
        state,
        this.strategyRun(state, settings.strategy, toFree, opts.trigger),
        opts.signal,
        surplusOver,
      );
    const plan = this.plan(state, { cacheWarm: true, mode: 'manual' });
    const regions = opts.tokensToFree === 'all' ? plan.regions : pickRegions(plan.regions, toFree);
    return this.reattach(state, await this.execute(state, { ...plan, regions }, opts), opts.signal, surplusOver);
  }

  /**
   * After a run that summarised or dropped turns: re-attaches the files read or edited most
   * recently to its last such record (see reattachRun.ts), when the setting is on and a
   * reader was given; the run as it was otherwise. `surplusOver`: the re-attached content may
   * take only the tokens the run freed beyond this many.
   */
  private async reattach(
    before: ConversationState,
    run: CompactionRun,
    signal: AbortSignal,
    surplusOver?: number,
  ): Promise<CompactionRun> {
    const readFresh = this.deps.readFresh;
    const settings = this.deps.settings();
    if (!readFresh || settings.reattachAfterCompaction === false || signal.aborted) return run;
    const r = await reattach(before, run, {
      readFresh,
      tokensOf: this.deps.tokensOf,
      measure: this.deps.measure,
      settings,
      clock: this.deps.clock,
      ids: this.deps.ids,
      ...(surplusOver !== undefined ? { surplusOver } : {}),
    });
    return { ...run, state: r.state, records: r.records };
  }

  /**
   * What Compact Now would do, before it runs: the very plan `compact(…, 'all')` executes for
   * the summarise strategy, and a dry run of the removal strategies (which are pure and
   * deterministic, so the run then removes exactly what the preview showed).
   */
  preview(state: ConversationState): CompactionPreview {
    const settings = ownStrategySettings(this.deps.settings());
    const plan = this.plan(state, { cacheWarm: true, mode: 'manual' });
    const reattachOf = (regions: ReadonlyArray<{ readonly messageIds: readonly string[] }>): string[] => {
      if (!this.deps.readFresh || settings.reattachAfterCompaction === false || regions.length === 0) return [];
      const replaced = new Set(regions.flatMap((r) => r.messageIds));
      return reattachCandidates(
        state.messages,
        state.messages.filter((m) => !replaced.has(m.id)),
      ).map((c) => c.path);
    };
    if (settings.strategy === 'summarise')
      return {
        regions: plan.regions,
        tokensBefore: plan.tokensBefore,
        expectedAfter: plan.expectedAfter,
        expectedSaving: plan.expectedSaving,
        plan,
        reattach: reattachOf(plan.regions),
      };
    const dry = this.strategyRun(state, settings.strategy, Number.MAX_SAFE_INTEGER, 'manual', counterIds('preview'));
    const saving = dry.records.reduce((n, r) => n + r.tokensBefore - r.tokensAfter, 0);
    const regions = dry.records.flatMap((r) =>
      r.regions.map((g) => ({
        ...g,
        userTokens: 0,
        startIndex: state.messages.findIndex((m) => m.id === g.messageIds[0]),
        expectedTokensAfter: 0,
      })),
    );
    return {
      regions,
      tokensBefore: plan.tokensBefore,
      expectedAfter: plan.tokensBefore - saving,
      expectedSaving: saving,
      plan,
      reattach: reattachOf(regions),
    };
  }

  /** The compaction settings in force now. */
  settings(): CompactionSettings {
    return this.deps.settings();
  }

  /** Calibrated tokens of one message (the compactor's own count). */
  tokensOf(m: Message): number {
    return this.deps.tokensOf(m);
  }

  /** The effective window of a state (for callers that report utilisation). */
  effectiveWindow(state: ConversationState): number {
    return effectiveWindow(state.config);
  }

  private strategyRun(
    state: ConversationState,
    strategy: 'middle-removal' | 'oldest-removal' | 'hybrid',
    tokensToFree: number,
    trigger: CompactionTrigger,
    ids: IdSource = this.deps.ids,
  ): CompactionRun {
    const keepTurns = Math.max(1, state.config.keepRecentTurns);
    const opts = {
      tokensToFree,
      tokensOf: this.deps.tokensOf,
      clock: this.deps.clock,
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

  private context(state: ConversationState, extra: Partial<LayerContext>): LayerContext {
    return {
      utilisation: this.deps.measure(state) / effectiveWindow(state.config),
      tokensOf: this.deps.tokensOf,
      clock: this.deps.clock,
      ids: this.deps.ids,
      ...extra,
    };
  }
}
