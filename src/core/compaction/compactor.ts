import { pinnedOutside, type CompactionRange } from './compactionRange';
import type { CacheTtl, ConversationState, Message } from '../conversation/conversationModel';
import { usualWriteTtl } from '../cache/usualWriteTtl';
import type { Spill } from '../conversation/paste';
import type { IdSource } from '../platform/platformPorts';
import { ttlMs } from '../cache/cacheAnchors';
import { budgetTrim } from './budgetTrim';
import { CircuitBreaker } from './circuitBreaker';
import {
  executePlan,
  ownStrategySettings,
  previewOf,
  reattachAfter,
  strategyRun,
  type BeforeRequestOptions,
  type CompactionPreview,
  type CompactionRun,
  type CompactorDeps,
  type RemovalStrategy,
  type RunOptions,
} from './compactorRuns';
import type { LayerContext, LayerResult } from './layerContext';
import { microcompact } from './microcompact';
import { effectiveWindow, fixedRequestTokens, type CompactionSettings } from './policy';
import { applyMask, maskCandidates } from './mask';
import { planCompaction, type CompactionPlan } from './plan';
import { guardTail, tailGuardLimit, tailGuardStep, type TailGuardResult } from './tailGuard';
import { pickRegions, protectedFrom } from './regions';
import { snip, snipAfterCompaction } from './snip';
import { guardToolResult } from './toolResultGuard';
import {
  guardRound,
  resultContentTokens,
  roundBudgetTokens,
  type GuardedRound,
  type RoundGuardOptions,
} from './roundGuard';
import type { ToolResultInput } from '../conversation/assemble';
import { SessionMeasures, type AnswerUsage } from './sessionMeasures';
import type { CompactionRecord, CompactionTrigger } from './types';
import { isServerStrategy } from '../server/serverContext';

export type { CompactionPreview, CompactionRun, CompactorDeps, OnSummarising } from './compactorRuns';

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
  /** The prompt's growth, the main model's thinking and the cache's full misses, as measured (the plan prices with them). */
  private readonly measures = new SessionMeasures();
  /** When a request last went out after beforeRequest (about `now` there): Compact Now's cache warmth for the summariser route. */
  private sentAt: number | undefined;
  /** The lifetime of the previous request's last breakpoint, as beforeRequest last heard it. */
  private sentTtl: CacheTtl | undefined;
  /** A compaction outside beforeRequest (Compact Now, overflow recovery) or a restore changed the history since the last request. */
  private editedSinceRequest = false;

  constructor(private readonly deps: CompactorDeps) {}

  /**
   * The history was edited outside the compactor (a restore): a next cache read that comes up empty is then no miss.
   */
  historyEdited(): void {
    this.editedSinceRequest = true;
  }

  /** Guards a tool result as it arrives (spill to a file over 30 KB, cut over its limit). */
  guardResult(
    content: string,
    opts: { contextWindow: number; spillDirectory: string; fileName: string; toolName: string },
  ): { content: string; spill?: Spill; notice?: string } {
    return guardToolResult(content, opts);
  }

  /**
   * Fits a whole tool round's results (the calls are `state`'s last message) into what the
   * window leaves for them beside the rest (see roundGuard.ts): the largest are spilled to
   * `spillDirectory` (the caller writes the spills) until the round fits.
   */
  guardRound(
    state: ConversationState,
    results: readonly ToolResultInput[],
    opts: Pick<RoundGuardOptions, 'spillDirectory' | 'toolName' | 'original'>,
  ): GuardedRound {
    const { tokensOf, measure } = this.deps;
    return guardRound(results, {
      ...opts,
      budgetTokens: roundBudgetTokens(state, this.deps.settings(), tokensOf, measure),
      tokensOf: (content) => resultContentTokens(content, tokensOf),
    });
  }

  /**
   * Before each request: plans (see plan.ts) and executes the plan. No edit stands alone in a
   * warm cached prefix unless it pays back: snip, budget trim and microcompact run only when
   * the cache has gone cold (idle past its TTL: the prompt is written again anyway); masking
   * runs when the plan says it pays back (or at a threshold), summaries at the thresholds.
   */
  async beforeRequest(state: ConversationState, opts: BeforeRequestOptions): Promise<CompactionRun> {
    const now = this.deps.clock.now();
    const idleMs = opts.lastRequestAt === undefined ? 0 : now - opts.lastRequestAt;
    const lifetime = ttlMs(opts.lastTtl ?? usualWriteTtl(state.config.cacheTtl));
    const cold = opts.lastRequestAt !== undefined && idleMs > lifetime;
    const tokens = this.deps.measure(state);
    this.measures.observePrompt(tokens, opts.lastTtl);
    const run = await this.guardedLayers(state, opts, { now, idleMs, cold }, tokens);
    // Whether this request should read the cache: its answer then tells a full miss from an expected one.
    this.measures.sending(
      opts.lastRequestAt !== undefined &&
        !cold &&
        run.records.length === 0 &&
        !this.editedSinceRequest &&
        !isServerStrategy(this.deps.settings().strategy) &&
        tokens >= state.config.minCacheableTokens,
      { messages: run.state.messages, at: now },
    );
    this.editedSinceRequest = false;
    return run;
  }

  /**
   * The layers, with the tail guard (tailGuard.ts) on both sides: first when even the planned
   * compaction would leave the request at its limit (tailGuardLimit: what no compaction
   * touches is what fills it, so no summary is run for nothing), then when it is still there
   * after every layer.
   */
  private async guardedLayers(
    state: ConversationState,
    opts: BeforeRequestOptions,
    timing: { readonly now: number; readonly idleMs: number; readonly cold: boolean },
    tokens: number,
  ): Promise<CompactionRun> {
    const step = (s: ConversationState, expected: number) =>
      tailGuardStep(s, expected, { settings: this.deps.settings(), ctx: this.context(s, {}) });
    const near = tokens >= tailGuardLimit(state.config, this.deps.settings()) * effectiveWindow(state.config);
    const first = step(state, near ? this.plan(state, { cacheWarm: !timing.cold, mode: 'auto' }).expectedAfter : 0);
    const run = await this.layersBeforeRequest(first.state, opts, timing);
    // Nothing changed (the common case): the request's size is the one measured before.
    const measured = run.state === state ? tokens : this.deps.measure(run.state);
    const last = step(run.state, measured);
    // The next request's growth is measured from what this one sends.
    if (last.state !== state)
      this.measures.observeSent(last.state === run.state ? measured : this.deps.measure(last.state));
    return {
      state: last.state,
      records: [...first.records, ...run.records, ...last.records],
      notices: [...first.notices, ...run.notices, ...last.notices],
    };
  }

  private async layersBeforeRequest(
    state: ConversationState,
    opts: BeforeRequestOptions,
    { now, idleMs, cold }: { readonly now: number; readonly idleMs: number; readonly cold: boolean },
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
    this.sentAt = now;
    this.sentTtl = opts.lastTtl;
    const settings = this.deps.settings();
    if (isServerStrategy(settings.strategy)) {
      // The server clears or compacts at its trigger; ours stays off (no masking, no cold-cache
      // layers, no soft summary: each would rewrite the prefix the server edits). Kept: the
      // hard threshold, where we summarise as a safety net (the server trigger should sit
      // below it), beside the arrival guard and overflow recovery outside this method.
      const pressure = this.plan(s, { cacheWarm: !cold, mode: 'auto' }).pressure;
      if (pressure.level !== 'hard') return { state: s, records, notices };
      const hard = { trigger: 'auto-hard', tokensToFree: pressure.tokensToFree, signal: opts.signal } as const;
      return this.compact(s, { ...hard, onSummarising: opts.onSummarising });
    }
    if (cold) {
      layer(microcompact, {
        idleMs,
        lifetimeMs: ttlMs(opts.lastTtl ?? usualWriteTtl(state.config.cacheTtl)),
        trigger: 'idle',
      });
      layer(snip);
      layer(budgetTrim);
    }
    const warm = { cacheWarm: !cold, routeCacheWarm: opts.lastRequestAt !== undefined && !cold };
    const plan = this.plan(s, { ...warm, mode: 'auto' });
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
              keepRecentTokens: plan.keepRecentTokens,
              tokensOf: this.deps.tokensOf,
            }),
            this.deps.tokensOf,
          )
        : plan.mask;
      const before = s;
      if (mask.length > 0) layer((st, ctx) => applyMask(st, ctx, mask), { trigger });
      // Stale results in what the mask makes the next request write again go for free (snip.ts).
      if (s !== before) layer((st, ctx) => snipAfterCompaction(before, st, ctx), { trigger });
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
      await this.execute(s, this.plan(s, { ...warm, mode: 'auto' }), { ...opts, trigger }),
      opts.signal,
    );
    // As after a mask: stale results in the kept tail, which the summary makes the next request write again.
    const stale = snipAfterCompaction(s, run.state, this.context(run.state, { trigger }));
    return {
      state: stale.state,
      records: [...records, ...run.records, ...(stale.record ? [stale.record] : [])],
      notices: [...notices, ...run.notices],
    };
  }

  /**
   * After each answer: its usage as the API billed it and the answer as kept. What was billed
   * beyond the answer's text and tool calls is the model's thinking (returned summarised, or
   * not at all), which a main-model summary request pays as well; no cache read where this
   * request expected one is a full miss, which a main-model summary risks too. The plan
   * prices both in (see SessionMeasures).
   */
  observeAnswer(usage: AnswerUsage, answer: Message): void {
    const shown = this.deps.tokensOf({ ...answer, blocks: answer.blocks.filter((b) => b.type !== 'thinking') });
    this.measures.observeAnswer(usage, shown);
  }

  /**
   * What the compactor measured on the session (sessionMeasures.ts), read-only: the main
   * model's thinking per answer (the plan prices a main-model summary with it; a replay bills
   * that summary with it) and the full-miss rate (the cache lifetimes price with it).
   */
  get measured(): Pick<SessionMeasures, 'thinkingTokens' | 'cacheMissRate'> {
    return this.measures;
  }

  /** The plan for `state` now (see plan.ts): what would be compacted, why, and what it costs. */
  plan(
    state: ConversationState,
    opts: { readonly cacheWarm: boolean; readonly mode: 'auto' | 'manual'; readonly routeCacheWarm?: boolean },
  ): CompactionPlan {
    const tokensOf = this.deps.tokensOf;
    return planCompaction(state, {
      tokensOf,
      fixedTokens: fixedRequestTokens(state, tokensOf, this.deps.measure),
      settings: this.deps.settings(),
      cacheWarm: opts.cacheWarm,
      mode: opts.mode,
      // The summariser's route needs a cache the last request really wrote (Compact Now: the last send within the TTL).
      routeCacheWarm:
        opts.routeCacheWarm ??
        (this.sentAt !== undefined &&
          this.deps.clock.now() - this.sentAt <= ttlMs(this.sentTtl ?? usualWriteTtl(state.config.cacheTtl))),
      ...(this.measures.growthPerRequest !== undefined ? { growthPerRequest: this.measures.growthPerRequest } : {}),
      ...(this.measures.thinkingTokens !== undefined ? { mainThinkingTokens: this.measures.thinkingTokens } : {}),
      cacheMissRate: this.measures.cacheMissRate,
    });
  }

  /** Executes a summarise plan (see compactorRuns.ts); the server route reads where the requests ended. */
  private execute(state: ConversationState, plan: CompactionPlan, opts: RunOptions): Promise<CompactionRun> {
    return executePlan(this.deps, this.breaker, state, plan, { ...opts, ends: this.measures.ends });
  }

  /**
   * Runs the configured strategy to free `tokensToFree` (or everything compactable for 'all').
   * Manual runs may carry instructions for the summariser. Summariser failures fall back to
   * dropping the oldest regions (inside summariseRegions) and count towards the breaker.
   */
  async compact(
    state: ConversationState,
    opts: RunOptions & {
      readonly tokensToFree: number | 'all';
      /** Only messages from `fromId` on, or before `beforeId`, are compacted (Summarize from / up to here). */
      readonly range?: CompactionRange;
    },
  ): Promise<CompactionRun> {
    this.historyEdited();
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
    // A range: what lies outside it is planned as if pinned, so no region reaches it.
    const plan = this.plan(opts.range ? pinnedOutside(state, opts.range) : state, { cacheWarm: true, mode: 'manual' });
    const regions = opts.tokensToFree === 'all' ? plan.regions : pickRegions(plan.regions, toFree);
    return this.reattach(state, await this.execute(state, { ...plan, regions }, opts), opts.signal, surplusOver);
  }

  private reattach(
    before: ConversationState,
    run: CompactionRun,
    signal: AbortSignal,
    surplusOver?: number,
  ): Promise<CompactionRun> {
    return reattachAfter(this.deps, before, run, signal, surplusOver);
  }

  /**
   * What Compact Now would do, before it runs (previewOf in compactorRuns.ts): the very
   * plan `compact(…, 'all')` executes, and its re-attach, whose tokens `expectedAfter` includes.
   */
  preview(state: ConversationState): Promise<CompactionPreview> {
    return previewOf(this.deps, state, this.plan(state, { cacheWarm: true, mode: 'manual' }), this.measures.ends);
  }

  /** Cuts the largest assistant blocks of `state` to free `tokensToFree` (tailGuard.ts): overflow recovery's step. */
  cutTail(state: ConversationState, tokensToFree: number): TailGuardResult {
    return guardTail(state, this.context(state, { trigger: 'overflow' }), tokensToFree);
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
    strategy: RemovalStrategy,
    tokensToFree: number,
    trigger: CompactionTrigger,
    ids: IdSource = this.deps.ids,
  ): CompactionRun {
    return strategyRun(this.deps, state, strategy, tokensToFree, trigger, ids);
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
