/**
 * The per-request history of a session (what each request to Claude cost and whether history
 * was compacted before it), rebuilt from the session file so the Context Budget panel shows
 * it again after a window reload or a resume. Pure.
 *
 * Nothing new is stored for it: every request already leaves a `usage` entry (API usage,
 * estimate, cost, turn) and every compaction a `compaction` entry, in the order they
 * happened, so older session files rebuild the same way.
 */
import type { CacheMiss } from '../cache/cacheMiss';
import type { SessionEntry } from './entries';
import { clearedInputTokens, type ServerReport } from '../server/serverReport';
import { reportedPromptTokens, reportedTotalTokens } from '../tokens/promptTokens';

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
}

/** The rebuilt history. */
export interface RequestHistory {
  /** Requests, oldest first. */
  readonly requests: readonly RequestRecord[];
  /** Per turn that made a request: the prompt at its end (last prompt + its answer), for the forecast. */
  readonly turnPrompts: readonly number[];
  /** A compaction ran after the last request: the next request gets the marker. */
  readonly compactedSinceLast: boolean;
}

/** The history of a session with no request. */
export const EMPTY_REQUEST_HISTORY: RequestHistory = Object.freeze({
  requests: [],
  turnPrompts: [],
  compactedSinceLast: false,
});

/**
 * Walks the entries in file order: each `usage` entry is a request; a `compaction` entry
 * marks the next request. Other entries are ignored. Pass the entries that replay applied
 * (see `replaySession`), so a skipped compaction marks nothing.
 */
export function requestHistoryOf(entries: readonly SessionEntry[]): RequestHistory {
  const requests: RequestRecord[] = [];
  const lastOfTurn = new Map<number, number>();
  let compacted = false;
  for (const e of entries) {
    if (e.type === 'compaction') compacted = true;
    if (e.type !== 'usage') continue;
    const u = e.usage;
    const promptTokens = reportedPromptTokens(u);
    requests.push({
      index: requests.length + 1,
      turn: e.turn,
      promptTokens,
      input: u.input_tokens,
      cacheRead: u.cache_read_input_tokens,
      cacheWrite: u.cache_creation_input_tokens,
      output: u.output_tokens,
      estimated: e.estimatedInputTokens,
      costUsd: e.costUsd,
      compactedBefore: compacted,
      ...(e.cacheMiss ? { cacheMiss: e.cacheMiss } : {}),
      ...(e.counted !== undefined ? { counted: e.counted } : {}),
      ...serverFigures(e.server),
    });
    // Map insertion order keeps the turns in the order they first made a request.
    lastOfTurn.set(e.turn, promptTokens + u.output_tokens);
    compacted = false;
  }
  return { requests, turnPrompts: [...lastOfTurn.values()], compactedSinceLast: compacted };
}
