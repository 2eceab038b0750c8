/**
 * What the turn loop keeps about its requests, beside the conversation: where the previous
 * request put its cache breakpoint, when it was sent and for how long, the session's rhythm
 * of turns and replies (replyGaps.ts, for the cache lifetimes), the context-health figures, why the
 * prompt cache missed (cacheWatch.ts), the exact first count (exactCount.ts) — and, when an
 * answer arrives, everything it tells us: the estimator's anchor, the cache verdict, the cost,
 * the usage record saved and shown. One job: account for each request. Pure (ports only).
 */
import { saveOrStop, sessionFileFailure } from './sessionWrite';
import type { CountTokensPort, CutUsage, LlmResult } from '../llm/llmClient';
import { cutBilledUsage, cutCostUsd } from '../llm/cutRequest';
import { ttlMs, type PreviousBreakpoint } from '../cache/cacheAnchors';
import { ReplyGaps, startsTurn, type GapStats, type PastRequest } from '../cache/replyGaps';
import { usualWriteTtl } from '../cache/usualWriteTtl';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import {
  CACHE_MISS_WARNING_STREAK,
  EMPTY_HEALTH,
  withCompaction,
  withRequest,
  type ContextHealth,
} from '../compaction/health';
import type { StoppedSpend } from '../compaction/stoppedSpend';
import type { CompactionRecord } from '../compaction/types';
import type { ConversationState } from '../conversation/conversationModel';
import type { PreparedRequest } from '../pipeline/pipeline';
import type { Clock } from '../platform/platformPorts';
import type { TokenEstimator } from '../tokens/estimator';
import { CacheWatch } from './cacheWatch';
import { requestCostWithServerUsd } from '../llm/cost';
import { reportedPromptTokens } from '../tokens/promptTokens';
import type { AgentEvent, SessionSink } from './events';
import { ExactFirstCount } from './exactCount';

/** Ports the accounting needs. */
export interface AccountingDeps {
  readonly estimator: TokenEstimator;
  readonly clock: Clock;
  readonly sink: SessionSink;
  readonly countTokens?: CountTokensPort;
  /** The requests a reopened session made before, oldest first: the rhythm its cache lifetimes go on from. */
  readonly pastRequests?: readonly PastRequest[];
}

/** The request accounting of one agent session (see the module comment). */
export class RequestAccounting {
  private previous: PreviousBreakpoint | undefined;
  private lastAt: number | undefined;
  private sendingAt: number | undefined;
  private readonly gaps: ReplyGaps;
  private healthValue: ContextHealth = EMPTY_HEALTH;
  private readonly cacheWatch = new CacheWatch();
  private readonly exactCount: ExactFirstCount;
  private sentValue: readonly PreparedRequest[] = [];

  constructor(
    private readonly deps: AccountingDeps,
    private readonly emit: (event: AgentEvent) => void,
  ) {
    this.exactCount = new ExactFirstCount(deps.countTokens, deps.estimator, emit);
    this.gaps = ReplyGaps.fromPast(deps.pastRequests ?? []);
  }

  /** Context health figures so far. */
  get health(): ContextHealth {
    return this.healthValue;
  }

  /**
   * The requests actually sent, as prepared (normalized state, anchors with their lifetimes,
   * params): the one before the last and the last, oldest first (this window only). The budget
   * panel's ledger and its diff read these, never a rebuild.
   */
  get sentRequests(): readonly PreparedRequest[] {
    return this.sentValue;
  }

  /** When the last answered request was sent (for the compactor's idle check). */
  get lastRequestAt(): number | undefined {
    return this.lastAt;
  }

  /** Where the last answered request put its last message breakpoint (for the cache anchors). */
  get previousBreakpoint(): PreviousBreakpoint | undefined {
    return this.previous;
  }

  /** The session's rhythm so far, for the next request's cache lifetimes (ttlChoice.ts). */
  get gapStats(): GapStats {
    return this.gaps.stats;
  }

  /** A change to the history that the next request's cache verdict should name (a pin, a restore). */
  noteEdit(what: string): void {
    this.cacheWatch.note(what);
  }

  /** A compaction was adopted: the cache verdict can name it and the health figures count it. */
  compacted(record: CompactionRecord): void {
    this.cacheWatch.note(`compaction ${record.id} (${record.layer})`);
    this.healthValue = withCompaction(this.healthValue, record);
  }

  /**
   * The params to stream for `prepared` (with the cache-diagnostics field), after starting the
   * exact count beside it when this is the first request of its model (never awaited).
   */
  beforeSend(sent: ConversationState, prepared: PreparedRequest, signal: AbortSignal): MessageCreateParamsNonStreaming {
    this.sendingAt = this.deps.clock.now();
    // A retry sends the same request again: it replaces the record, it does not shift it.
    const last = this.sentValue.at(-1);
    this.sentValue =
      last?.params === prepared.params
        ? [...this.sentValue.slice(0, -1), prepared]
        : [...this.sentValue, prepared].slice(-2);
    // Not awaited, and safe to drop: ExactCount.beforeSend turns a failed count into nothing (the count is optional).
    void this.exactCount.beforeSend(
      { model: sent.config.model, params: prepared.params, sent: prepared.sent, estimated: prepared.tokens.total },
      signal,
    );
    return this.cacheWatch.withDiagnostics(prepared.params);
  }

  /**
   * An answer arrived for `prepared` (built from `sent`): anchors the estimator on it, judges
   * the cache, updates the health figures (warning after a streak of misses), prices it with
   * what the server reported, then saves and emits the usage record (a save that fails throws a
   * SessionWriteError: the turn ends before the answer is kept).
   */
  async answered(sent: ConversationState, prepared: PreparedRequest, result: LlmResult): Promise<void> {
    const hitExpected =
      this.lastAt !== undefined &&
      this.deps.clock.now() - this.lastAt < ttlMs(this.previous?.ttl ?? usualWriteTtl(sent.config.cacheTtl)) &&
      prepared.anchors.length > 0;
    this.previous = prepared.lastBreakpoint;
    const now = this.deps.clock.now();
    // Only answered requests count: a request that failed and is sent again is one request.
    this.gaps.observe(this.sendingAt ?? now, startsTurn(prepared.sent.messages));
    this.lastAt = now;
    // The estimator anchors on what was sent: the normalized messages the counts refer to.
    const counted = this.exactCount.usageArrived();
    this.deps.estimator.observe(prepared.sent, result.usage);
    const cacheMiss = this.cacheWatch.observe(prepared, result, now, hitExpected);
    this.healthValue = withRequest(this.healthValue, result.usage, hitExpected);
    this.emit({ type: 'health', health: this.healthValue });
    if (this.healthValue.missStreak === CACHE_MISS_WARNING_STREAK)
      this.emit({ type: 'notice', level: 'warning', text: this.cacheWatch.warning(CACHE_MISS_WARNING_STREAK) });
    const costUsd = requestCostWithServerUsd(
      result.model || sent.config.model,
      result.usage,
      result.server,
      usualWriteTtl(sent.config.cacheTtl),
    );
    const record = {
      usage: result.usage,
      model: result.model,
      costUsd,
      estimatedTokens: prepared.tokens.total,
      at: this.deps.clock.now(),
      ...(result.requestId ? { requestId: result.requestId } : {}),
      ...(cacheMiss ? { cacheMiss } : {}),
      ...(result.server ? { server: result.server } : {}),
      ...(counted !== undefined ? { counted } : {}),
    };
    // Before the answer is saved: a failed write ends the turn with memory as the file has it (sessionWrite.ts).
    await saveOrStop(
      () => this.deps.sink.usage(record),
      (err) =>
        sessionFileFailure(
          err,
          "this request's usage and Claude's answer were not kept: the answer is not in the conversation, and your message waits for one",
          'Retry to ask again',
        ),
      true,
    );
    this.emit({ type: 'usage', ...record, reportedTokens: reportedPromptTokens(result.usage) });
  }

  /**
   * Attempts of `prepared` (built from `sent`) were cut off after their answers began (Stop, a
   * dropped connection: `cuts`, oldest first): each is billed for what it used (cutRequest.ts),
   * saved and emitted as a usage record marked `cut`. Nothing else is learned from them (no
   * anchor, no cache verdict: their output is an estimate). A save that fails costs only the
   * record, not the turn: a notice says so and the bill still counts it until the session closes.
   */
  async cutOff(sent: ConversationState, prepared: PreparedRequest, cuts: readonly CutUsage[]): Promise<void> {
    for (const cut of cuts) {
      const usage = cutBilledUsage(cut);
      const model = cut.model || sent.config.model;
      const record = {
        usage,
        model,
        costUsd: cutCostUsd(cut, model, usualWriteTtl(sent.config.cacheTtl)),
        estimatedTokens: prepared.tokens.total,
        at: this.deps.clock.now(),
        cut: true as const,
      };
      await this.saveCost(() => this.deps.sink.usage(record), 'the request that was cut off');
      this.emit({ type: 'usage', ...record, reportedTokens: reportedPromptTokens(usage) });
    }
  }

  /**
   * A summary stopped before it was made had spent `spend` (stoppedSpend.ts): saved as a
   * `spend` line and emitted as `summary_spend`, which the bill counts with the summaries. A
   * line that cannot be saved costs only itself (a notice says so; the bill counts it until the
   * session is closed). Never rejects.
   */
  async stoppedSummary(spend: StoppedSpend): Promise<void> {
    const costUsd = spend.costUnknown ? undefined : spend.costUsd;
    const at = this.deps.clock.now();
    await this.saveCost(
      async () => this.deps.sink.spend?.({ at, model: spend.model, costUsd }),
      'the summary that was stopped',
    );
    this.emit({ type: 'summary_spend', model: spend.model, costUsd });
  }

  /**
   * Saves a line of money spent outside a record (`save`); one that cannot be saved costs only
   * itself: a notice says the cost of `what` was not kept (the bill, fed by the event the
   * caller emits next, counts it until the session is closed). Never rejects.
   */
  private async saveCost(save: () => Promise<void>, what: string): Promise<void> {
    try {
      await save();
    } catch (err) {
      this.emit({
        type: 'notice',
        level: 'warning',
        text: sessionFileFailure(
          err,
          `the cost of ${what} was not kept (the bill counts it until the session is closed)`,
          'go on',
        ),
      });
    }
  }
}
