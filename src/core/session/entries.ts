/**
 * The session file format: one JSON entry per line, the first a versioned header. Types,
 * strict runtime schemas (a malformed or foreign line is detected, never half-read) and
 * encoding; lineCodec.ts decodes. Pure: no I/O.
 *
 * Compatibility rule: a reader reads its own version and, through migrate.ts, every older
 * one (from OLDEST_READABLE_VERSION); a file of an older version is saved again in the
 * current one when it is opened (the original kept as a backup). A writer that adds an entry
 * type or a field must bump the version and add the step to migrate.ts, because readers
 * treat unknown entries and fields as damage, and leave files of a newer version alone.
 *
 * Version 12 (this one): `spend` lines — money spent on a summary stopped before it was
 * made (core/compaction/stoppedSpend.ts), which no compaction record holds. A version 11 file
 * is a valid version 12 file but for the header's version; a version 11 build would read such
 * a line as damage (losing a cost), hence the bump. What each older version added, and how it
 * is read now: migrate.ts.
 */
import * as v from 'valibot';
import type { Usage } from '../llm/llmClient';
import type { Message, PlanStatus } from '../conversation/conversationModel';
import type { CacheMiss } from '../pipeline/cacheMiss';
import type { ServerReport } from '../llm/serverReport';
import type {
  CompactionLayer,
  CompactionRegion,
  CompactionTrigger,
  ReattachedFile,
  RetentionCheck,
  CarriedPlan,
} from '../compaction/types';
import { compactionFields } from './compactionEntry';
import { int, messageSchema as message, num } from './messageSchema';
import { PLAN_STATUSES } from '../plan/plan';
import type { SubagentRecord } from '../subagents/subagentRecord';

/** The `format` value every header carries. */
export const SESSION_FORMAT = 'context-pipeline-session';
/** The format version this code writes (it reads older ones too, see migrate.ts). */
export const SESSION_VERSION = 12;

/** First line of every session file. Times are milliseconds since the epoch. */
export interface HeaderEntry {
  readonly type: 'header';
  readonly format: typeof SESSION_FORMAT;
  readonly version: typeof SESSION_VERSION;
  readonly sessionId: string;
  readonly createdAt: number;
  readonly title?: string;
  readonly model: string;
  /** Name of the workspace the session belongs to ('' when no folder was open). */
  readonly workspace: string;
  /** A subagent's session: the session whose task call (`toolUseId`) started it. */
  readonly parent?: { readonly sessionId: string; readonly toolUseId: string };
  /** A session handed off to this one (Continue in a New Session): its id and its title then. */
  readonly continuedFrom?: ContinuedFrom;
}

/** Where a session handed off to came from: the old session, read-only for `recall`. */
export interface ContinuedFrom {
  readonly sessionId: string;
  readonly title: string;
  /**
   * What writing the handoff note cost, in US dollars: the summariser's request that started
   * this session, part of its bill. Absent: nothing was spent (the note was built without the
   * summariser, or its model's price is unknown), or an older file.
   */
  readonly noteCostUsd?: number;
  /** Set when the summariser's price was unknown: what the note cost is not known. */
  readonly noteCostUnknown?: true;
}

/** A message appended to the conversation, with every block's metadata. */
export interface MessageEntry {
  readonly type: 'message';
  readonly at: number;
  readonly message: Message;
}

/** What one request to Claude cost. */
export interface UsageEntry {
  readonly type: 'usage';
  readonly at: number;
  /** 1-based index of the request within the session. */
  readonly requestIndex: number;
  /** Turn the request belonged to. */
  readonly turn: number;
  readonly model: string;
  readonly usage: Usage;
  /** The pipeline's input-token estimate before sending. */
  readonly estimatedInputTokens: number;
  /** Absent when the model's price was unknown (the cost is unknown, not zero). */
  readonly costUsd?: number;
  /** Why the prompt cache missed on this request, when it did (absent in older files). */
  readonly cacheMiss?: CacheMiss;
  /** The exact count_tokens figure taken before this request's usage arrived (absent: none). */
  readonly counted?: number;
  /** What the API reported about server-side context management (absent when nothing). */
  readonly server?: ServerReport;
  /** Cut off mid-answer (Stop, a dropped connection): `usage` as its answer began, output estimated. */
  readonly cut?: true;
}

/**
 * A compaction: messages `replacedIds` (kept verbatim in `originals`) were replaced by
 * `replacement`; the other fields are those of its CompactionRecord (see compactionEntry.ts).
 */
export interface CompactionEntry {
  readonly type: 'compaction';
  readonly at: number;
  readonly id: string;
  readonly trigger: CompactionTrigger;
  readonly layer: CompactionLayer;
  /** Strategy setting in force. */
  readonly strategy: string;
  readonly replacedIds: readonly string[];
  readonly originals: readonly Message[];
  readonly replacement: readonly Message[];
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly regions: readonly CompactionRegion[];
  readonly costUsd: number;
  /** Set when a summariser call behind it had no known price: `costUsd` is only part of its cost. */
  readonly costUnknown?: true;
  readonly durationMs: number;
  readonly fallbacks: readonly string[];
  readonly summary?: string;
  readonly instructions?: string;
  /** The summariser model, when an LLM was used. */
  readonly model?: string;
  readonly retention?: RetentionCheck;
  readonly reattached?: readonly ReattachedFile[];
  readonly carriedPlan?: CarriedPlan;
  /** A rewind's anchor: the message its originals followed (absent: the start). */
  readonly after?: string;
}

/** Undo of the compaction `compactionId`: its originals replace its replacement again. */
export interface RestoreEntry {
  readonly type: 'restore';
  readonly at: number;
  readonly compactionId: string;
}

/** The user pinned (or unpinned) a block. */
export interface PinEntry {
  readonly type: 'pin' | 'unpin';
  readonly at: number;
  readonly blockId: string;
}

/**
 * A recall call of the agent returned content from the compactions `compactionIds`: what
 * the Compactions view counts ("recalled 3×"). Written by late version 1 files already
 * (an earlier reader drops the line as damage, with a backup, losing only the count).
 */
export interface RecallEntry {
  readonly type: 'recall';
  readonly at: number;
  readonly toolUseId: string;
  readonly compactionIds: readonly string[];
}

/**
 * The agent's plan became `steps` (by the update_plan call `toolUseId`), or was cleared by the
 * user (`steps` empty). The shape is checked here; the plan's own rules (core/plan/plan.ts:
 * limits, one step in progress) when it is replayed, where a line breaking them is left out.
 */
export interface PlanEntry {
  readonly type: 'plan';
  readonly at: number;
  readonly steps: readonly PlanStepEntry[];
  readonly toolUseId?: string;
}

/** One step of a plan line, as written (the plan's rules are checked on replay). */
export interface PlanStepEntry {
  readonly step: string;
  readonly status: PlanStatus;
  readonly note?: string;
}

/**
 * A subagent of this session ended (see SubagentRecord): its requests are billed here, its
 * transcript is the session `sessionId`.
 */
export interface SubagentEntry extends Omit<SubagentRecord, 'costUsd'> {
  readonly type: 'subagent';
  /** Absent when a request's price was unknown. */
  readonly costUsd?: number;
}

/**
 * Money spent on a summary stopped (or timed out) before it was made: what its requests cost
 * (stoppedSpend.ts), billed to the session as the summaries are.
 */
export interface SpendEntry {
  readonly type: 'spend';
  readonly at: number;
  /** What the money was spent on (only summaries so far). */
  readonly for: 'summary';
  /** The model asked. */
  readonly model: string;
  /** Absent when the model's price was unknown (the cost is unknown, not zero). */
  readonly costUsd?: number;
}

/**
 * Written by the loader after it repaired the conversation: from here on the conversation
 * is exactly `messages`; `fixes` says what was changed and why.
 */
export interface RepairEntry {
  readonly type: 'repair';
  readonly at: number;
  readonly fixes: readonly string[];
  readonly messages: readonly Message[];
}

/** Any line of a session file. */
export type SessionEntry =
  | HeaderEntry
  | MessageEntry
  | UsageEntry
  | CompactionEntry
  | RestoreEntry
  | PinEntry
  | RecallEntry
  | PlanEntry
  | SubagentEntry
  | SpendEntry
  | RepairEntry;

const usage = v.strictObject({
  input_tokens: int,
  output_tokens: int,
  cache_read_input_tokens: int,
  cache_creation_input_tokens: int,
  cache_creation: v.optional(v.strictObject({ ephemeral_5m_input_tokens: int, ephemeral_1h_input_tokens: int })),
});
const cacheMiss = v.strictObject({
  cause: v.picklist([
    'ttl_expired',
    'model_changed',
    'tools_changed',
    'system_changed',
    'params_changed',
    'message_edited',
    'below_minimum',
    'unknown',
  ]),
  missedTokens: num,
  source: v.picklist(['api', 'ledger']),
  detail: v.pipe(v.string(), v.maxLength(2000)),
});
const serverReport = v.strictObject({
  appliedEdits: v.array(
    v.variant('type', [
      v.strictObject({ type: v.literal('clear_tool_uses_20250919'), clearedInputTokens: num, clearedToolUses: int }),
      v.strictObject({
        type: v.literal('clear_thinking_20251015'),
        clearedInputTokens: num,
        clearedThinkingTurns: int,
      }),
    ]),
  ),
  iterations: v.array(
    v.strictObject({
      type: v.picklist(['message', 'compaction', 'other']),
      input_tokens: int,
      output_tokens: int,
      cache_read_input_tokens: int,
      cache_creation_input_tokens: int,
    }),
  ),
});

/** Strict schema of one entry; its output type is checked against `SessionEntry`. */
export const sessionEntrySchema: v.GenericSchema<unknown, SessionEntry> = v.variant('type', [
  v.strictObject({
    type: v.literal('header'),
    format: v.literal(SESSION_FORMAT),
    version: v.literal(SESSION_VERSION),
    sessionId: v.string(),
    createdAt: num,
    title: v.optional(v.string()),
    model: v.string(),
    workspace: v.string(),
    parent: v.optional(v.strictObject({ sessionId: v.string(), toolUseId: v.string() })),
    continuedFrom: v.optional(
      v.strictObject({
        sessionId: v.string(),
        title: v.string(),
        noteCostUsd: v.optional(v.pipe(num, v.minValue(0))),
        noteCostUnknown: v.optional(v.literal(true)),
      }),
    ),
  }),
  v.strictObject({ type: v.literal('message'), at: num, message }),
  v.strictObject({
    type: v.literal('usage'),
    at: num,
    requestIndex: int,
    turn: int,
    model: v.string(),
    usage,
    estimatedInputTokens: num,
    costUsd: v.optional(num),
    cacheMiss: v.optional(cacheMiss),
    server: v.optional(serverReport),
    counted: v.optional(int),
    cut: v.optional(v.literal(true)),
  }),
  v.strictObject({
    type: v.literal('compaction'),
    at: num,
    id: v.string(),
    replacedIds: v.array(v.string()),
    originals: v.array(message),
    replacement: v.array(message),
    tokensBefore: num,
    tokensAfter: num,
    ...compactionFields,
  }),
  v.strictObject({ type: v.literal('restore'), at: num, compactionId: v.string() }),
  v.strictObject({ type: v.picklist(['pin', 'unpin']), at: num, blockId: v.string() }),
  v.strictObject({ type: v.literal('recall'), at: num, toolUseId: v.string(), compactionIds: v.array(v.string()) }),
  v.strictObject({
    type: v.literal('plan'),
    at: num,
    steps: v.array(
      v.strictObject({ step: v.string(), status: v.picklist(PLAN_STATUSES), note: v.optional(v.string()) }),
    ),
    toolUseId: v.optional(v.string()),
  }),
  v.strictObject({
    type: v.literal('subagent'),
    at: num,
    toolUseId: v.string(),
    sessionId: v.string(),
    description: v.string(),
    model: v.string(),
    state: v.picklist(['done', 'failed', 'stopped']),
    requests: int,
    rounds: int,
    toolCalls: int,
    lastTool: v.optional(v.string()),
    compactions: int,
    usage,
    costUsd: v.optional(num),
  }),
  v.strictObject({
    type: v.literal('spend'),
    at: num,
    for: v.literal('summary'),
    model: v.string(),
    costUsd: v.optional(v.pipe(num, v.minValue(0))),
  }),
  v.strictObject({ type: v.literal('repair'), at: num, fixes: v.array(v.string()), messages: v.array(message) }),
]);

/**
 * One entry as one line of JSON, without the trailing newline, starting `{"type":"<type>"`
 * whatever the key order of `entry`. JSON.stringify escapes
 * newlines inside strings, so the result never contains `\n`. `meta.tokenCount` is left
 * out: it is a memo of whichever tokenizer was loaded and is recomputed after loading.
 * Throws only for values JSON cannot hold (cycles, BigInt).
 */
export function encodeEntry(entry: SessionEntry): string {
  // `type` always comes first, so a reader can classify a line by its prefix without parsing it.
  const { type, ...rest } = entry;
  return JSON.stringify({ type, ...rest }, (key, value: unknown) => (key === 'tokenCount' ? undefined : value));
}
