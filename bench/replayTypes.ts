/** What a replay measures and takes (replayCore.ts runs it, replayReport.ts prints it). */
import type { Usage } from '../src/core/llm/llmClient';
import type { RepairKind } from '../src/core/normalize/normalize';
import type { FrrTotals } from './frr';
import type { ReplayPolicy } from './policies';
import type { CostTally } from './pricing';
import type { CostParts } from './costBreakdown';
import type { SummaryLengthModel } from './summaryLength';

/** One request of a replay, for tests and the detailed report. */
export interface RequestTrace {
  readonly at: number;
  readonly model: string;
  /** Prompt tokens (calibrated estimate). */
  readonly tokens: number;
  readonly usage: Usage;
  /** The refusal reason, when the API refused the request. */
  readonly invalid?: string;
  /** The real session had a full cache miss here, so the cache was flushed first. */
  readonly flushed: boolean;
  /** Under a server strategy, what the API's `clear_tool_uses` cleared from this request. */
  readonly serverCleared?: { readonly tokens: number; readonly toolUses: number };
  /**
   * What the session had cost once this request was answered: every request so far and every
   * summariser call its compactions made, in US dollars (`null` once any was of an unpriced
   * model). Where a session that ended here would have stopped (endPoints.ts).
   */
  readonly costSoFarUsd: number | null;
}

/** What a replay measured. */
export interface ReplayResult {
  readonly transcript: string;
  readonly window: number;
  readonly policy: string;
  readonly requests: number;
  readonly overflows: number;
  /** Refused requests (main and summariser) by reason. */
  readonly invalid: ReadonlyMap<string, number>;
  readonly invalidCount: number;
  /** Peak prompt as a share of the effective window. */
  readonly peak: number;
  /** Compaction records of every layer, and how many of them summarised (or dropped) turns. */
  readonly compactions: number;
  readonly summaries: number;
  /** Tool results the arrival guard spilled or cut. */
  readonly guarded: number;
  /** The user's pastes over the paste threshold, saved to a file on arrival as the chat does. */
  readonly pastes: number;
  /** Tokens of file content re-attached after compactions (summed over the compactions, as added to the prompt). */
  readonly reattached: number;
  /** Real full cache misses replayed. */
  readonly flushes: number;
  /** Requests the API's `clear_tool_uses` edited (server strategies), and the tokens it cleared over them. */
  readonly serverClears: number;
  readonly serverClearedTokens: number;
  readonly tokens: { readonly input: number; readonly read: number; readonly write: number; readonly output: number };
  readonly cost: CostTally;
  readonly summariserCost: CostTally;
  /** Where the money went (costBreakdown.ts): reads, writes by cause, input, output, summariser. */
  readonly breakdown: CostParts;
  /** The transcript's cost floor (costFloor.ts), the same for every policy. */
  readonly floor: CostTally;
  readonly summariserCalls: number;
  /** Summariser requests by the model that served them (the summariser model, or the main model from its cache). */
  readonly summariserModels: ReadonlyMap<string, number>;
  readonly frr: FrrTotals;
  /** Requests normalize had to repair before sending, by kind of repair (normalize.ts). */
  readonly repairs: ReadonlyMap<RepairKind, number>;
  /** One line per compaction record. */
  readonly log: readonly string[];
  readonly trace: readonly RequestTrace[];
}

/** One replay's parameters. */
export interface ReplayOptions {
  readonly window: number;
  readonly policy: ReplayPolicy;
  /** Summary length model of the scripted summariser (default SUMMARY_LENGTH). */
  readonly summaryLength?: SummaryLengthModel;
  /** Tool definitions added to every request (`npm run bench -- tools`); none by default. */
  readonly toolLoad?: ReplayToolLoad;
}

/** Tool definitions a replay adds to the transcript's own (bench/tools/toolLoad.ts). */
export interface ReplayToolLoad {
  /**
   * Calibrated tokens added to the unseen system prompt and tools on every request (the
   * definitions sent eagerly, or the tool search tool): counted in the prompt, and written to
   * the cache whenever the prefix is.
   */
  readonly prefixTokens: number;
  /**
   * A tool search's result (the definitions it loaded), put into the history before the
   * session's first tool call, and again at the next call after a compaction took it.
   */
  readonly loadedText?: string;
}
