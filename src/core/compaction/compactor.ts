import type { LlmClient } from '../agentPorts';
import type { ConversationState, Message } from '../model';
import type { Spill } from '../paste';
import type { Clock, IdSource } from '../ports';
import { ttlMs } from '../cacheAnchors';
import { budgetTrim } from './budgetTrim';
import { CircuitBreaker } from './circuitBreaker';
import { hybrid } from './hybrid';
import type { LayerContext, LayerResult } from './layerContext';
import { microcompact } from './microcompact';
import { middleRemoval } from './middleRemoval';
import { oldestRemoval } from './oldestRemoval';
import { effectiveWindow, pressureOf, type CompactionSettings } from './policy';
import { previewCompaction } from './preview';
import { expectedSaving, markRegions, pickRegions } from './regions';
import { modelInfo } from '../models';
import { snip } from './snip';
import { summariseRegions } from './summarise';
import { guardToolResult } from './toolResultGuard';
import type { CompactionRecord, CompactionTrigger } from './types';

/** A summary may take at most this share of the main model's effective window (so summaries never crowd it)… */
const SUMMARY_WINDOW_SHARE = 0.06;
/** …but never less than this many tokens. */
const MIN_SUMMARY_CAP = 1_000;
/** An automatic soft compaction runs only when it would free at least this share of the effective window. */
const MIN_SOFT_SAVING_SHARE = 0.1;

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

  constructor(private readonly deps: CompactorDeps) {}

  /** Guards a tool result as it arrives (spill to a file over 30 KB, cut over its limit). */
  guardResult(content: string, opts: { contextWindow: number; spillDirectory: string; fileName: string; toolName: string }): { content: string; spill?: Spill; notice?: string } {
    return guardToolResult(content, opts);
  }

  /** The cheap layers and, when the thresholds say so, the strategy; before each request. */
  async beforeRequest(state: ConversationState, opts: { readonly lastRequestAt?: number; readonly signal: AbortSignal }): Promise<CompactionRun> {
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
    if (opts.lastRequestAt !== undefined && idleMs > ttlMs(s.config.cacheTtl)) layer(microcompact, { idleMs, trigger: 'idle' });
    layer(snip);
    layer(budgetTrim);

    const settings = this.deps.settings();
    const pressure = pressureOf(this.deps.measure(s), s.config, settings);
    if (pressure.level === 'ok') {
      this.proposedAt = -1;
      return { state: s, records, notices };
    }
    const pct = Math.round(pressure.utilisation * 100);
    if (pressure.level === 'soft' && settings.softAction !== 'auto') {
      if (settings.softAction === 'propose' && this.proposedAt < 0) {
        this.proposedAt = now;
        notices.push(`The context is ${pct}% full (soft threshold ${Math.round(s.config.softThreshold * 100)}%). Compact Now would summarise older turns; it runs by itself at ${Math.round(s.config.hardThreshold * 100)}%.`);
      }
      return { state: s, records, notices };
    }
    if (settings.strategy === 'summarise' && this.breaker.isOpen) {
      if (pressure.level === 'soft') return { state: s, records, notices };
      notices.push('The summariser failed 3 times in a row, so the oldest turns were removed instead (restorable from the Compactions view). Use "Compact Now" to try summarising again.');
      const fallback = this.strategyRun(s, 'oldest-removal', pressure.tokensToFree, 'auto-hard');
      return { state: fallback.state, records: [...records, ...fallback.records], notices };
    }
    // One compaction of everything compactable, rather than just enough: fewer, larger summaries
    // (they are never re-summarised, so many small ones would pile up) and fewer cache breaks.
    const run = await this.compact(s, { trigger: pressure.level === 'hard' ? 'auto-hard' : 'auto-soft', tokensToFree: settings.strategy === 'summarise' ? 'all' : pressure.tokensToFree, signal: opts.signal });
    return { state: run.state, records: [...records, ...run.records], notices: [...notices, ...run.notices] };
  }

  /**
   * Runs the configured strategy to free `tokensToFree` (or everything compactable for 'all').
   * Manual runs may carry instructions for the summariser. Summariser failures fall back to
   * dropping the oldest regions (inside summariseRegions) and count towards the breaker.
   */
  async compact(state: ConversationState, opts: { readonly trigger: CompactionTrigger; readonly tokensToFree: number | 'all'; readonly instructions?: string; readonly signal: AbortSignal }): Promise<CompactionRun> {
    const settings = this.deps.settings();
    const toFree = opts.tokensToFree === 'all' ? Number.MAX_SAFE_INTEGER : opts.tokensToFree;
    if (settings.strategy !== 'summarise') return this.strategyRun(state, settings.strategy, toFree, opts.trigger);
    const regions = markRegions(state, { keepRecentTurns: state.config.keepRecentTurns, keepRecentTokens: state.config.keepRecentTokens, tokensOf: this.deps.tokensOf });
    const picked = pickRegions(regions, toFree);
    if (picked.length === 0) return { state, records: [], notices: opts.trigger === 'auto-soft' ? [] : ['Nothing can be compacted: everything is recent, pinned or already a summary.'] };
    // No thrashing: at the soft threshold a compaction must be worth it, else wait for more history (or the hard threshold).
    const worth = picked.reduce((n, r) => n + expectedSaving(r), 0);
    if (opts.trigger === 'auto-soft' && worth < MIN_SOFT_SAVING_SHARE * effectiveWindow(state.config)) return { state, records: [], notices: [] };
    const outcome = await summariseRegions(state, {
      regions: picked,
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
      strategy: settings.strategy,
    });
    if (outcome.failed) this.breaker.failure();
    else this.breaker.success();
    const notices = outcome.failed ? [`The summariser failed (${outcome.error ?? 'unknown error'}); the oldest turns were removed instead and can be restored from the Compactions view.`] : [];
    if (this.breaker.isOpen) notices.push('Automatic summarisation is paused after 3 failures in a row. Use "Compact Now" to try again.');
    return { state: outcome.state, records: outcome.records, notices };
  }

  /** What a manual compaction would do, before it runs. */
  preview(state: ConversationState) {
    return previewCompaction(state, { tokensToFree: 'all', keepRecentTurns: state.config.keepRecentTurns, keepRecentTokens: state.config.keepRecentTokens, tokensOf: this.deps.tokensOf });
  }

  /** The effective window of a state (for callers that report utilisation). */
  effectiveWindow(state: ConversationState): number {
    return effectiveWindow(state.config);
  }

  private strategyRun(state: ConversationState, strategy: 'middle-removal' | 'oldest-removal' | 'hybrid', tokensToFree: number, trigger: CompactionTrigger): CompactionRun {
    const opts = { tokensToFree, tokensOf: this.deps.tokensOf, clock: this.deps.clock, ids: this.deps.ids, keepRecentTurns: state.config.keepRecentTurns, keepRecentTokens: state.config.keepRecentTokens, keepFirst: 1, keepLast: state.config.keepRecentTurns, trigger };
    const r = strategy === 'middle-removal' ? middleRemoval(state, opts) : strategy === 'oldest-removal' ? oldestRemoval(state, opts) : hybrid(state, opts);
    return { state: r.state, records: r.records, notices: r.records.length === 0 ? ['Nothing can be removed: everything is recent, pinned or already a summary.'] : [] };
  }

  private context(state: ConversationState, extra: Partial<LayerContext>): LayerContext {
    return { utilisation: this.deps.measure(state) / effectiveWindow(state.config), tokensOf: this.deps.tokensOf, clock: this.deps.clock, ids: this.deps.ids, ...extra };
  }
}
