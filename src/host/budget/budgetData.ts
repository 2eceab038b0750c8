import type { PreparedRequest } from '../../core/pipeline/pipeline';
import type { EngineUse } from '../../core/engine/engineSlot';
import type { WindowSource } from '../../core/pipeline/config';
import { lostIdentifiers } from '../../core/compaction/retention';
import { summariesCost } from '../../core/compaction/health';
import type { CompactionEntryState } from '../../core/agent/agentSession';
import type { CompactionPlan } from '../../core/compaction/plan';
import type { SoftAction } from '../../core/compaction/policy';
import type { AgentEvent } from '../../core/agent/events';
import {
  BUDGET_CATEGORIES,
  CATEGORY_LABELS,
  categorizeLedger,
  diffLedgers,
  forecastTurns,
} from '../../core/pipeline/budget';
import { buildLedger, describeRepairs } from '../../core/pipeline/ledger';
import type { ConversationState } from '../../core/conversation/conversationModel';
import { pinnedRegions } from '../../core/compaction/pins';
import { prepareRequest } from '../../core/pipeline/pipeline';
import type { Tokenizer } from '../../core/platform/platformPorts';
import { contextPressure } from '../../core/pipeline/window';
import { makeRequestCounter } from '../../core/tokens/requestTokens';
import {
  EMPTY_REQUEST_HISTORY,
  RequestHistoryBuilder,
  stoppedCostOf,
  type RequestHistory,
  type StoppedSummaryCost,
  type SubagentRun,
} from '../../core/session/requestHistory';
import type { TokenEstimator } from '../../core/tokens/estimator';
import type { BudgetSnapshot } from '../../protocol/budget';
import { reportedPromptTokens } from '../../core/tokens/promptTokens';

const MAX_REQUESTS = 200;
const clock = { now: () => Date.now() };

type RequestRow = BudgetSnapshot['requests'][number];

/**
 * What the budget panel needs besides the conversation: the requests of the session (usage
 * per request, rebuilt from the session file when it is opened, then fed with the
 * controller's events through the same builder, so the live rows equal the rows a reload
 * rebuilds), the conversation each of the last two requests of this window was built from,
 * and the prompt size at the end of each turn (for the forecast).
 */
export class BudgetHistory {
  private readonly builder: RequestHistoryBuilder;
  private awaitingUsage = false;
  /** The turn running now (from `turn_started`; before one, the turn of the last saved request). */
  private turn: number;
  /** The context engine that assembled the last request, and why the layered one served it instead (when it did). */
  engine: EngineUse | undefined;

  /** Starts from the history the session file holds (empty for a new session). */
  constructor(saved: RequestHistory = EMPTY_REQUEST_HISTORY) {
    this.builder = new RequestHistoryBuilder(saved);
    this.turn = this.builder.turn ?? 0;
  }

  /** The session's requests as the protocol lists them (the newest 200, without their turn number). */
  get requests(): RequestRow[] {
    return this.builder
      .history()
      .requests.slice(-MAX_REQUESTS)
      .map(({ turn: _turn, costUsd, ...row }) => ({ ...row, costUsd: costUsd ?? null }));
  }

  /** The subagents that ended, oldest first, with the turn each ran in (the task cards' figures). */
  get subagentRuns(): readonly SubagentRun[] {
    // Read on every task card the chat posts: the runs alone, never a copy of the whole history.
    return this.builder.subagents;
  }

  /** The subagents that ended, as the protocol lists them (the newest 200). */
  get subagents(): BudgetSnapshot['subagents'] {
    return this.subagentRuns.slice(-MAX_REQUESTS).map((r) => ({
      turn: r.turn,
      description: r.description,
      model: r.model,
      state: r.state,
      requests: r.requests,
      rounds: r.rounds,
      toolCalls: r.toolCalls,
      promptTokens: reportedPromptTokens(r.usage),
      cacheRead: r.usage.cache_read_input_tokens,
      cacheWrite: r.usage.cache_creation_input_tokens,
      output: r.usage.output_tokens,
      costUsd: r.costUsd ?? null,
    }));
  }

  /** What summaries stopped before they were made spent (billed with the summaries). */
  get stoppedSummaries(): readonly StoppedSummaryCost[] {
    return this.builder.stoppedSummaries;
  }

  /** Per turn that made a request: its last prompt + answer (the forecast's series). */
  get turnPrompts(): readonly number[] {
    return this.builder.history().turnPrompts;
  }

  /** Takes one event of the open session. */
  observe(e: AgentEvent): void {
    switch (e.type) {
      case 'turn_started':
        this.turn = e.turn;
        return;
      case 'request_started':
        this.engine = e.engine;
        this.awaitingUsage = true;
        return;
      case 'usage':
        this.builder.request({
          turn: this.turn,
          usage: e.usage,
          estimated: e.estimatedTokens,
          costUsd: e.costUsd,
          ...(e.cacheMiss ? { cacheMiss: e.cacheMiss } : {}),
          ...(e.server ? { server: e.server } : {}),
          ...(e.counted !== undefined ? { counted: e.counted } : {}),
          ...(e.cut ? { cut: e.cut } : {}),
        });
        this.awaitingUsage = false;
        return;
      case 'exact_count':
        // A count that anchored comes back with its request's usage (saved with it, so the row is
        // the same after a reload); one that came after the usage only shows in the next-request
        // figure until then.
        return;
      case 'compaction_finished':
        if (e.records.length > 0) this.builder.compaction();
        return;
      case 'subagent_finished':
        this.builder.subagent(e.record);
        return;
      case 'summary_spend':
        this.builder.stoppedSummary(stoppedCostOf(e.costUsd));
        return;
      case 'error':
        this.awaitingUsage = false;
        return;
      default:
        return;
    }
  }
}

/** Everything the snapshot is built from. */
export interface BudgetInputs {
  readonly session: string;
  readonly state: ConversationState;
  readonly tokenizer: Tokenizer;
  readonly estimator: TokenEstimator;
  readonly history: BudgetHistory;
  readonly compactions: readonly CompactionEntryState[];
  readonly busy: boolean;
  /** Where the window came from (see WindowSource in core/config.ts). */
  readonly windowSource?: WindowSource;
  /** The compactor's plan for the next request (where and why the next compaction happens). */
  readonly plan?: CompactionPlan;
  /** What crossing the soft threshold does (the compaction settings'), for the bar's marks. */
  readonly softAction?: SoftAction;
  /** The context engine chosen now (id), when the last request did not say one. */
  readonly engineId?: string;
  /** The chosen engine keeps the history within its budget itself: the pipeline's compaction is off. */
  readonly engineOwnsCompaction?: boolean;
  /**
   * The requests actually sent, as the agent recorded them (AgentSession.sentRequests): the
   * one before the last and the last. The ledger and its diff are read from these, never rebuilt.
   */
  readonly sent?: readonly PreparedRequest[];
  /** The next request by the send's own path (AgentSession.prepareNext: the cache memory and lifetimes); absent: prepareRequest alone. */
  readonly prepareNext?: (state: ConversationState) => PreparedRequest;
  /** What the handoff note that started this session cost (absent or 0: none; null: its price is unknown). */
  readonly handoffCostUsd?: number | null;
}

/** Builds the panel's snapshot: the next request by category, the last request's ledger and diff, history, forecast. */
export function buildBudgetSnapshot(inp: BudgetInputs): BudgetSnapshot {
  const { state, tokenizer, estimator, history } = inp;
  const config = state.config;
  const calibration = estimator.calibration;
  const next = { ...state, pending: [] };
  const prepared =
    inp.prepareNext?.(next) ?? prepareRequest(next, { count: makeRequestCounter(estimator, tokenizer), clock });
  // The ledger indexes the normalized messages the anchors were planned on (prepared.sent).
  const nextLedger = buildLedger(prepared.sent, prepared.anchors, tokenizer, calibration, prepared.repairs);
  const totals = categorizeLedger(prepared.sent, nextLedger);
  const ledgerOf = (p: PreparedRequest) => ({
    rows: buildLedger(p.sent, p.anchors, tokenizer, calibration, p.repairs),
    repairs: p.repairs,
  });
  const sent = inp.sent ?? [];
  const [before, lastSent] = sent.length === 2 ? sent : [undefined, sent[0]];
  const last = lastSent ? ledgerOf(lastSent) : undefined;
  const lastLedger = last?.rows ?? [];
  const prevLedger = before ? ledgerOf(before).rows : undefined;
  const repaired = last ? describeRepairs(last.repairs) : undefined;
  const requests = history.requests;
  const lastRequest = requests.at(-1);
  const pressure = contextPressure(prepared.tokens.total, config);
  const limit = pressure.softAt;
  const turnPrompts =
    history.turnPrompts.length > 0 ? history.turnPrompts : lastRequest ? [lastRequest.promptTokens] : [];
  const forecast = forecastTurns(turnPrompts, limit);
  return {
    type: 'snapshot',
    session: inp.session,
    model: config.model,
    contextWindow: config.contextWindow,
    ...(inp.windowSource ? { windowSource: inp.windowSource } : {}),
    ...engineOf(history.engine, inp.engineId, inp.engineOwnsCompaction === true),
    outputReserve: config.outputReserve,
    softThreshold: config.softThreshold,
    hardThreshold: config.hardThreshold,
    pressure: { ...pressure, ...(inp.softAction ? { softAction: inp.softAction } : {}) },
    // What the blocks do not account for (message framing, the API's tool-use prompt, estimator
    // anchoring): shown as its own category so the bar adds up to the anchored estimate.
    categories: [
      ...BUDGET_CATEGORIES.map((c) => ({ id: c, label: CATEGORY_LABELS[c], tokens: totals.tokens[c] })),
      { id: 'overhead', label: 'Request overhead', tokens: Math.max(0, prepared.tokens.total - totals.total) },
    ],
    nextTotal: totals.total,
    nextEstimate: prepared.tokens.total,
    ...nextAnchorOf(prepared.tokens.anchored, estimator),
    calibration: calibration.factor,
    tokenizer: tokenizer.name,
    ...(lastRequest ? { last: { estimated: lastRequest.estimated, reported: lastRequest.promptTokens } } : {}),
    requests,
    subagents: history.subagents,
    summariesCostUsd: summariesCost([...inp.compactions.map((c) => c.record), ...history.stoppedSummaries]) ?? null,
    ...(inp.handoffCostUsd !== 0 && inp.handoffCostUsd !== undefined ? { handoffCostUsd: inp.handoffCostUsd } : {}),
    ledger: lastLedger.map((r) => ({
      position: r.position,
      role: r.role,
      kind: r.kind,
      source: r.source,
      tokens: r.tokens,
      breakpoint: r.breakpoint,
      ...(r.ttl ? { breakpointTtl: r.ttl } : {}),
      preview: r.preview,
      ...(r.blockId !== undefined ? { blockId: r.blockId } : {}),
      ...(r.origin !== undefined ? { origin: r.origin } : {}),
      ...(r.repair !== undefined ? { repair: r.repair } : {}),
    })),
    ...(repaired && last
      ? { repairs: { summary: repaired, details: last.repairs.slice(0, 20).map((r) => r.detail) } }
      : {}),
    ...(prevLedger ? { diff: mutableDiff(diffLedgers(prevLedger, lastLedger)) } : {}),
    pinned: pinnedRegions(state.messages, tokenizer, calibration).map((r) => ({
      kind: r.kind,
      id: r.id,
      role: r.role,
      turn: r.turn,
      label: r.label,
      preview: r.preview,
      tokens: r.tokens,
    })),
    compactions: inp.compactions
      .slice(-10)
      .reverse()
      .map((c) => ({
        id: c.record.id,
        at: c.record.at,
        trigger: c.record.trigger,
        layer: c.record.layer,
        tokensBefore: c.record.tokensBefore,
        tokensAfter: c.record.tokensAfter,
        costUsd: summariesCost([c.record]) ?? null,
        lost: c.record.retention ? lostIdentifiers(c.record.retention).length : 0,
        lostIds: (c.record.retention ? lostIdentifiers(c.record.retention) : []).slice(0, 10),
        active: c.active,
      })),
    forecast: {
      growthPerTurn: forecast.growthPerTurn,
      ...(forecast.turns !== undefined ? { turns: forecast.turns } : {}),
      past: forecast.past,
      limit,
    },
    ...(inp.plan ? { nextCompaction: nextCompactionOf(inp.plan, state, turnPrompts) } : {}),
    busy: inp.busy,
  };
}

/** What the next estimate is anchored on, when it is. */
function nextAnchorOf(anchored: boolean, estimator: TokenEstimator): Pick<BudgetSnapshot, 'nextAnchor'> {
  const source = estimator.anchorSource;
  const tokens = estimator.anchorTokens;
  return anchored && source && tokens !== undefined ? { nextAnchor: { source, tokens } } : {};
}

/** The plan as the panel shows it: what the next request would do, where, and why. */
function nextCompactionOf(
  plan: CompactionPlan,
  state: ConversationState,
  turnPrompts: readonly number[],
): NonNullable<BudgetSnapshot['nextCompaction']> {
  const protectedTurn = state.messages[plan.protectedFrom]?.turn;
  const turns = plan.action === 'none' ? forecastTurns(turnPrompts, plan.nextCompactionAt).turns : undefined;
  return {
    action: plan.action,
    reason: plan.reason,
    atTokens: plan.action === 'none' ? plan.nextCompactionAt : plan.tokensBefore,
    expectedAfter: Math.round(plan.expectedAfter),
    ...(protectedTurn !== undefined ? { keepsFromTurn: protectedTurn } : {}),
    keptTokens: Math.round(plan.protectedTokens),
    keepBudget: Math.round(plan.keepRecentTokens),
    keepsAll: plan.protectedFrom <= 0,
    ...(Number.isFinite(plan.paybackRequests) ? { paybackRequests: Math.round(plan.paybackRequests * 10) / 10 } : {}),
    ...(turns !== undefined ? { turns } : {}),
  };
}

function mutableDiff(d: ReturnType<typeof diffLedgers>): NonNullable<BudgetSnapshot['diff']> {
  return { added: [...d.added], removed: [...d.removed], changed: [...d.changed] };
}

/** The snapshot's engine: the last request's (with its fallback reason), else the one chosen now. */
function engineOf(
  last: EngineUse | undefined,
  chosen: string | undefined,
  owns: boolean,
): { engine?: { id: string; name: string; fallback?: string; ownsCompaction?: true } } {
  // An engine whose last request fell back did not keep that request within its budget: the pipeline's compaction ran.
  const ownsPart = owns && !last?.fallback ? { ownsCompaction: true as const } : {};
  if (last && (chosen === undefined || last.id === chosen))
    return {
      engine: { id: last.id, name: last.name, ...(last.fallback ? { fallback: last.fallback } : {}), ...ownsPart },
    };
  return chosen ? { engine: { id: chosen, name: chosen, ...ownsPart } } : {};
}
