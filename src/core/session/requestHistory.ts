/**
 * The per-request history of a session (what each request to Claude cost and whether history
 * was compacted before it), rebuilt from the session file so the Context Budget panel shows
 * it again after a window reload or a resume. Pure.
 *
 * Nothing new is stored for it: every request already leaves a `usage` entry (API usage,
 * estimate, cost, turn), every compaction a `compaction` entry, every subagent that ended
 * a `subagent` entry and every summary stopped before it was made a `spend` entry, in the order
 * they happened, so older session files rebuild the same way.
 */
import type { CacheMiss } from '../pipeline/cacheMiss';
import type { SessionEntry } from './entries';
import { clearedInputTokens, type ServerReport } from '../llm/serverReport';
import { reportedPromptTokens, reportedTotalTokens } from '../tokens/promptTokens';
import type { SubagentRecord } from '../subagents/subagentRecord';
import { subagentRecordOf } from './subagentEntry';

/** A request row's server figures (none when the server did nothing); shared with the live budget history. */
export function serverFigures(report: ServerReport | undefined): {
  serverCleared?: number;
  serverClearedToolUses?: number;
  serverCompactionTokens?: number;
} {
  const cleared = clearedInputTokens(report);
  const toolUses = (report?.appliedEdits ?? []).reduce(
    (n, e) => n + (e.type === 'clear_tool_uses_20250919' ? e.clearedToolUses : 0),
    0,
  );
  const compaction = (report?.iterations ?? [])
    .filter((i) => i.type === 'compaction')
    .reduce((n, i) => n + reportedTotalTokens(i), 0);
  return {
    ...(cleared > 0 ? { serverCleared: cleared } : {}),
    ...(toolUses > 0 ? { serverClearedToolUses: toolUses } : {}),
    ...(compaction > 0 ? { serverCompactionTokens: compaction } : {}),
  };
}

/** One request to Claude, as the budget panel charts and lists it. */
export interface RequestRecord {
  /** 1-based position of the request in the session. */
  readonly index: number;
  /** Turn the request belonged to. */
  readonly turn: number;
  /** Prompt tokens the API reported: input + cache reads + cache writes. */
  readonly promptTokens: number;
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly output: number;
  /** The pipeline's estimate of the prompt before sending. */
  readonly estimated: number;
  /** Undefined when the model's price was unknown. */
  readonly costUsd: number | undefined;
  /** A compaction ran between the request before and this one. */
  readonly compactedBefore: boolean;
  /** Why the prompt cache missed, when it did (stored with the usage entry). */
  readonly cacheMiss?: CacheMiss;
  /** Input tokens the server's context editing cleared from this request (absent: none). */
  readonly serverCleared?: number;
  /** Tool results the server's `clear_tool_uses` cleared from this request (absent: none). */
  readonly serverClearedToolUses?: number;
  /** Tokens of the server's compaction iterations in this request, input + output (absent: none). */
  readonly serverCompactionTokens?: number;
  /** The exact count_tokens figure that anchored this request before its usage (absent: none). */
  readonly counted?: number;
  /** Cut off before its answer ended (Stop, a dropped connection): its output is an estimate. */
  readonly cut?: true;
}

/** The rebuilt history. */
export interface RequestHistory {
  /** Requests, oldest first. */
  readonly requests: readonly RequestRecord[];
  /** Per turn that made a request: the prompt at its end (last prompt + its answer), for the forecast. */
  readonly turnPrompts: readonly number[];
  /** A compaction ran after the last request: the next request gets the marker. */
  readonly compactedSinceLast: boolean;
  /**
   * The subagents that ended, oldest first, each with the turn of the parent it ran in: their
   * requests are billed to the session but are not its requests (they never change its prompt).
   */
  readonly subagents: readonly SubagentRun[];
  /**
   * What summaries stopped before they were made spent (`spend` lines, stoppedSpend.ts), oldest
   * first: billed with the summaries, though no compaction record holds them.
   */
  readonly stoppedSummaries: readonly StoppedSummaryCost[];
}

/** A stopped summary's cost as the bill sums it (summariesCost): `costUnknown` when a price was unknown. */
export interface StoppedSummaryCost {
  readonly costUsd: number;
  readonly costUnknown?: true;
}

/** A subagent's record with the parent's turn it ran in. */
export interface SubagentRun extends SubagentRecord {
  readonly turn: number;
}

/** The history of a session with no request. */
export const EMPTY_REQUEST_HISTORY: RequestHistory = Object.freeze({
  requests: [],
  turnPrompts: [],
  compactedSinceLast: false,
  subagents: [],
  stoppedSummaries: [],
});

/** What one request reported, as both the live events and the session file know it. */
export interface RequestInput {
  /** Turn the request belonged to. */
  readonly turn: number;
  readonly usage: {
    readonly input_tokens: number;
    readonly cache_read_input_tokens: number;
    readonly cache_creation_input_tokens: number;
    readonly output_tokens: number;
  };
  /** The pipeline's estimate of the prompt before sending. */
  readonly estimated: number;
  readonly costUsd: number | undefined;
  readonly cacheMiss?: CacheMiss;
  readonly server?: ServerReport;
  readonly counted?: number;
  readonly cut?: true;
}

/**
 * The one builder of a session's request history, fed in order with requests and
 * compactions: by the session file's entries (`requestHistoryOf`) and by the live events of
 * the open session (the budget panel's history), so both give the same rows. Rules: each
 * request is a row numbered after the last; a compaction marks the next request; per turn
 * that made a request, the forecast point is its last prompt + that request's output.
 */
export class RequestHistoryBuilder {
  private readonly rows: RequestRecord[];
  private readonly points: number[];
  private readonly runs: SubagentRun[];
  private readonly stopped: StoppedSummaryCost[];
  private compacted: boolean;
  private lastTurn: number | undefined;

  /** Continues `saved` (empty for a new session). */
  constructor(saved: RequestHistory = EMPTY_REQUEST_HISTORY) {
    this.rows = [...saved.requests];
    this.points = [...saved.turnPrompts];
    this.runs = [...saved.subagents];
    this.stopped = [...saved.stoppedSummaries];
    this.compacted = saved.compactedSinceLast;
    this.lastTurn = saved.requests.at(-1)?.turn;
  }

  /** Adds a request; returns its row. */
  request(r: RequestInput): RequestRecord {
    const u = r.usage;
    const promptTokens = reportedPromptTokens(u);
    const row: RequestRecord = {
      index: (this.rows.at(-1)?.index ?? 0) + 1,
      turn: r.turn,
      promptTokens,
      input: u.input_tokens,
      cacheRead: u.cache_read_input_tokens,
      cacheWrite: u.cache_creation_input_tokens,
      output: u.output_tokens,
      estimated: r.estimated,
      costUsd: r.costUsd,
      compactedBefore: this.compacted,
      ...(r.cacheMiss ? { cacheMiss: r.cacheMiss } : {}),
      ...(r.counted !== undefined ? { counted: r.counted } : {}),
      ...serverFigures(r.server),
      ...(r.cut ? { cut: true as const } : {}),
    };
    this.rows.push(row);
    const point = promptTokens + u.output_tokens;
    if (r.turn === this.lastTurn && this.points.length > 0) this.points[this.points.length - 1] = point;
    else this.points.push(point);
    this.lastTurn = r.turn;
    this.compacted = false;
    return row;
  }

  /** A subagent ended during the turn of the last request (the task call's): its row. */
  subagent(record: SubagentRecord): SubagentRun {
    const run = { ...record, turn: this.lastTurn ?? 0 };
    this.runs.push(run);
    return run;
  }

  /** A summary stopped before it was made had spent this (a `spend` line, or its event). */
  stoppedSummary(cost: StoppedSummaryCost): void {
    this.stopped.push(cost);
  }

  /** A compaction happened: the next request gets the marker. */
  compaction(): void {
    this.compacted = true;
  }

  /** The subagents so far (the builder's own list, read-only: no copy of the requests). */
  get subagents(): readonly SubagentRun[] {
    return this.runs;
  }

  /** What stopped summaries spent so far (the builder's own list, read-only). */
  get stoppedSummaries(): readonly StoppedSummaryCost[] {
    return this.stopped;
  }

  /** The turn of the last request (undefined before any). */
  get turn(): number | undefined {
    return this.lastTurn;
  }

  /** The history so far (copies: later requests do not change it). */
  history(): RequestHistory {
    return {
      requests: [...this.rows],
      turnPrompts: [...this.points],
      compactedSinceLast: this.compacted,
      subagents: [...this.runs],
      stoppedSummaries: [...this.stopped],
    };
  }
}

/**
 * Walks the entries in file order with {@link RequestHistoryBuilder}: each `usage` entry is a
 * request; a `compaction` entry marks the next request; a `subagent` entry is a subagent's row;
 * a `spend` entry a stopped summary's cost. Other entries are ignored. Pass the
 * entries that replay applied (see `replaySession`), so a skipped compaction marks nothing.
 */
export function requestHistoryOf(entries: readonly SessionEntry[]): RequestHistory {
  const builder = new RequestHistoryBuilder();
  for (const e of entries) {
    if (e.type === 'compaction') builder.compaction();
    if (e.type === 'subagent') builder.subagent(subagentRecordOf(e));
    if (e.type === 'spend') builder.stoppedSummary(stoppedCostOf(e.costUsd));
    if (e.type !== 'usage') continue;
    builder.request({
      turn: e.turn,
      usage: e.usage,
      estimated: e.estimatedInputTokens,
      costUsd: e.costUsd,
      ...(e.cacheMiss ? { cacheMiss: e.cacheMiss } : {}),
      ...(e.server ? { server: e.server } : {}),
      ...(e.counted !== undefined ? { counted: e.counted } : {}),
      ...(e.cut ? { cut: e.cut } : {}),
    });
  }
  return builder.history();
}

/** A stopped summary's cost from its saved or reported figure (undefined: its price was unknown). */
export function stoppedCostOf(costUsd: number | undefined): StoppedSummaryCost {
  return costUsd === undefined ? { costUsd: 0, costUnknown: true } : { costUsd };
}
