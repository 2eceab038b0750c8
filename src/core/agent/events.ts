import type { EngineUse } from '../engine/engineSlot';
import type { LlmError, Usage } from '../llm/llmClient';
import type { ToolCall, ToolCallState, ToolOutcome } from '../tools/toolRunner';
import type { CacheMiss } from '../pipeline/cacheMiss';
import type { ContextHealth } from '../compaction/health';
import type { CompactionRecord, CompactionTrigger } from '../compaction/types';
import type { Injection, Message, Plan } from '../conversation/conversationModel';
import type { SubagentFigures, SubagentRecord } from '../subagents/subagentRecord';
import type { Repair } from '../normalize/normalize';
import type { ServerReport } from '../llm/serverReport';

/** Why a turn ended. */
export type TurnEndReason =
  'end_turn' | 'max_tokens' | 'refusal' | 'stop_sequence' | 'stopped' | 'error' | 'tool_limit' | 'other';

/** The turn's end reason for the API's stop reason of its last answer. */
export function turnEndReason(stop: string | null): TurnEndReason {
  switch (stop) {
    case 'end_turn':
    case null:
      return 'end_turn';
    case 'max_tokens':
    case 'refusal':
    case 'stop_sequence':
      return stop;
    case 'tool_use':
      return 'end_turn';
    default:
      return 'other';
  }
}

/** Everything a turn reports, in order, for the views and the session file. */
export type AgentEvent =
  | { readonly type: 'turn_started'; readonly turn: number }
  | { readonly type: 'message_added'; readonly message: Message; readonly injected?: readonly Injection[] }
  /** `repairs`: what normalize changed so the request is valid (absent when nothing). */
  | {
      readonly type: 'request_started';
      readonly round: number;
      readonly attempt: number;
      readonly estimatedTokens: number;
      readonly anchored: boolean;
      readonly repairs?: readonly Repair[];
      /** The context engine that assembled it (absent without a slot), and why the layered one served it instead. */
      readonly engine?: EngineUse;
    }
  | { readonly type: 'text_delta'; readonly text: string }
  /** Streamed extended thinking of the answer (shown collapsed in the chat). */
  | { readonly type: 'thinking_delta'; readonly text: string }
  | { readonly type: 'tool_use_started'; readonly id: string; readonly name: string }
  | { readonly type: 'retrying'; readonly attempt: number; readonly waitMs: number; readonly error: LlmError }
  | {
      readonly type: 'usage';
      readonly usage: Usage;
      readonly model: string;
      /** Undefined when the model's price is unknown. */ readonly costUsd: number | undefined;
      readonly estimatedTokens: number;
      readonly reportedTokens: number;
      readonly requestId?: string;
      readonly cacheMiss?: CacheMiss;
      readonly server?: ServerReport;
      /** The exact count_tokens figure that anchored this request before its usage. */ readonly counted?: number;
      /** The request was cut off before its answer ended; its output is estimated (core/llm/cutRequest.ts). */
      readonly cut?: true;
    }
  | { readonly type: 'tool_started'; readonly call: ToolCall }
  /** A running call started (`awaiting_approval`) or stopped (`running`) waiting for the user's approval. */
  | { readonly type: 'tool_state'; readonly call: ToolCall; readonly state: ToolCallState }
  | { readonly type: 'tool_finished'; readonly call: ToolCall; readonly outcome: ToolOutcome }
  | { readonly type: 'notice'; readonly level: 'info' | 'warning'; readonly text: string }
  | { readonly type: 'error'; readonly error: LlmError }
  | { readonly type: 'turn_finished'; readonly reason: TurnEndReason; readonly stopReason?: string | null }
  /**
   * A compaction pass starts (automatic, manual or overflow); `tokens`: what its summary
   * summarises, once known (a manual pass says so again when its summary starts).
   */
  | { readonly type: 'compaction_started'; readonly trigger: CompactionTrigger; readonly tokens?: number }
  /** A manual compaction waits for the running turn to end. */
  | { readonly type: 'compaction_queued' }
  | {
      readonly type: 'compaction_finished';
      readonly records: readonly CompactionRecord[];
      readonly notices: readonly string[];
    }
  /**
   * A summary stopped (or timed out) before it was made had spent `costUsd` on `model`
   * (undefined: its price is unknown), saved as a `spend` line; the bill counts it with the
   * summaries (stoppedSpend.ts).
   */
  | { readonly type: 'summary_spend'; readonly model: string; readonly costUsd: number | undefined }
  | { readonly type: 'restored'; readonly recordId: string }
  /** A recall call returned content from these compactions (their counts went up by one). */
  | { readonly type: 'recalled'; readonly toolUseId: string; readonly compactionIds: readonly string[] }
  /** The conversation was replaced (compaction or restore): views re-render it. */
  | { readonly type: 'history_replaced'; readonly messages: readonly Message[] }
  | { readonly type: 'health'; readonly health: ContextHealth }
  /** The plan changed: update_plan replaced it (`plan`), or the user cleared it (`plan` absent). */
  | { readonly type: 'plan_changed'; readonly plan?: Plan }
  /** A subagent's figures changed (the task call `toolUseId`'s card follows them). */
  | { readonly type: 'subagent_progress'; readonly toolUseId: string; readonly figures: SubagentFigures }
  /** A subagent ended; its record (what it did and cost) was saved to the session, unless `notSaved` says why not. */
  | { readonly type: 'subagent_finished'; readonly record: SubagentRecord; readonly notSaved?: string }
  /**
   * `count_tokens` gave the exact size of the first request of the session (or the first after a
   * model switch): `tokens`, sent with the estimate `estimated`. `anchored`: it answered before
   * the request's usage and the estimator now builds on it; false when the usage came first.
   */
  | { readonly type: 'exact_count'; readonly tokens: number; readonly estimated: number; readonly anchored: boolean };

/** Where completed messages and usage go as soon as they exist (the session file). */
export interface SessionSink {
  message(message: Message): Promise<void>;
  /** A compaction was applied (its originals are kept verbatim). */
  compaction(record: CompactionRecord): Promise<void>;
  /** A compaction was undone. */
  restore(recordId: string): Promise<void>;
  /** A recall call returned content from these compactions; optional: without it the counts are not kept. */
  recall?(record: {
    readonly at: number;
    readonly toolUseId: string;
    readonly compactionIds: readonly string[];
  }): Promise<void>;
  /**
   * The plan became `plan` (by the update_plan call `toolUseId`), or was cleared by the user
   * (`plan` undefined). Optional: without it the plan is not kept across a reload.
   */
  plan?(record: { readonly at: number; readonly plan?: Plan; readonly toolUseId?: string }): Promise<void>;
  /**
   * A subagent of this session ended: what it did and cost (its requests are billed to this
   * session). Optional: without it the cost is shown but not kept across a reload.
   */
  subagent?(record: SubagentRecord): Promise<void>;
  /**
   * A summary stopped before it was made had spent this (a `spend` line, entries.ts). Optional:
   * without it the cost is billed but not kept across a reload.
   */
  spend?(record: {
    readonly at: number;
    readonly model: string;
    /** Undefined when the model's price is unknown. */
    readonly costUsd: number | undefined;
  }): Promise<void>;
  /** Blocks were pinned (never compacted) or unpinned. */
  pins(blockIds: readonly string[], pinned: boolean): Promise<void>;
  usage(record: {
    readonly usage: Usage;
    readonly model: string;
    /** Undefined when the model's price is unknown. */ readonly costUsd: number | undefined;
    readonly estimatedTokens: number;
    readonly at: number;
    readonly requestId?: string;
    readonly cacheMiss?: CacheMiss;
    readonly server?: ServerReport;
    /** The exact count_tokens figure that anchored this request before its usage. */ readonly counted?: number;
    /** Cut off before its answer ended (see the usage event's `cut`). */
    readonly cut?: true;
  }): Promise<void>;
}
