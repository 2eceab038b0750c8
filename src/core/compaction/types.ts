/**
 * Compaction records: every change the pipeline makes to the history — from trimming a tool
 * result to summarising whole turns — is one record that keeps the original messages
 * verbatim, so the user can see what was dropped and undo it.
 */
import type { Message } from '../conversation/conversationModel';

/** What started a compaction. */
export type CompactionTrigger =
  | 'auto-soft'
  | 'auto-hard'
  | 'manual'
  | 'overflow'
  | 'tool-result'
  | 'budget'
  | 'idle'
  /** The user's Retry or Edit of their last message (rewind.ts). */
  | 'rewind';

/** Which layer (or strategy) made the change, cheapest first. */
export type CompactionLayer =
  | 'tool-result-guard'
  | 'budget-trim'
  | 'snip'
  | 'microcompact'
  | 'mask'
  | 'summarise'
  | 'fallback-drop'
  | 'middle-removal'
  | 'oldest-removal'
  | 'hybrid'
  /** The API's server compaction (`compact_20260112`); see serverCompaction.ts. */
  | 'server-compact'
  /** The newest assistant blocks cut to fit the window (tailGuard.ts). */
  | 'tail-guard'
  /** Oversized tool results cut after the API said the prompt is too long (agent/overflow.ts). */
  | 'overflow-cut'
  /** Retry or Edit took the last turn out of the conversation (rewind.ts): nothing replaces it. */
  | 'rewind';

/**
 * Layers that summarise or drop whole regions of turns (the cheap result layers edit results
 * only): after one, the plan and files survive (reattachRun.ts) and a handoff may be offered.
 */
export const REGION_LAYERS: ReadonlySet<CompactionLayer> = new Set<CompactionLayer>([
  'summarise',
  'fallback-drop',
  'middle-removal',
  'oldest-removal',
  'hybrid',
]);

/** A contiguous run of whole messages, by turn range and ids. */
export interface CompactionRegion {
  readonly firstTurn: number;
  readonly lastTurn: number;
  readonly messageIds: readonly string[];
  /** Calibrated tokens of the region before the change. */
  readonly tokens: number;
}

/** Identifiers found in the originals and which of them the replacement lost. */
export interface RetentionCheck {
  readonly kinds: Readonly<Record<RetentionKind, { readonly found: number; readonly lost: readonly string[] }>>;
  /** All identifiers the replacement lost, most important first, at most 50. */
  readonly lost: readonly string[];
  /** Share of found identifiers that survived, 0..1 (1 when nothing was found). */
  readonly retained: number;
}

/** Kinds of identifiers the retention check looks for. */
export type RetentionKind = 'path' | 'symbol' | 'error' | 'url' | 'number';

/**
 * One compaction. `originals` are the messages that were replaced, verbatim, in order;
 * `replacement` is what stands in their place (same length or not). Messages outside the
 * replaced range are untouched. Applying and restoring are exact inverses (see apply.ts).
 */
export interface CompactionRecord {
  readonly id: string;
  readonly at: number;
  readonly trigger: CompactionTrigger;
  readonly layer: CompactionLayer;
  /** Strategy setting in force (e.g. `summarise`, `middle-removal`, `hybrid`). */
  readonly strategy: string;
  readonly regions: readonly CompactionRegion[];
  readonly originals: readonly Message[];
  readonly replacement: readonly Message[];
  /** The summary text, for summarise and its fallbacks. */
  readonly summary?: string;
  /** User instructions of a manual compaction ("focus on the auth bug"). */
  readonly instructions?: string;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** Summariser model and its cost, when an LLM was used. */
  readonly model?: string;
  readonly costUsd: number;
  /**
   * Set when a call behind this record had no known price (a model missing from the rate
   * card): `costUsd` counts only the priced calls, and a bill that includes it is unknown.
   */
  readonly costUnknown?: true;
  readonly durationMs: number;
  /** Fallbacks used, in order, e.g. `summariser timeout → dropped oldest regions`. */
  readonly fallbacks: readonly string[];
  readonly retention?: RetentionCheck;
  /**
   * Files re-attached after this compaction (see reattach.ts), in the order shown: their
   * content, or only a reference with the reason. Part of `replacement` (one reminder block),
   * so restoring the record removes them too.
   */
  readonly reattached?: readonly ReattachedFile[];
  /**
   * The plan the survive step carried after this compaction (survivePlan.ts): part of
   * `replacement` (one reminder block) like the re-attached files, so restoring removes it.
   */
  readonly carriedPlan?: CarriedPlan;
  /**
   * A rewind's (empty replacement) anchor: the id of the message its originals followed, where
   * Restore puts them back; absent when they started the conversation (rewind.ts).
   */
  readonly after?: string;
}

/** One file of a compaction's re-attach reminder and the tokens its part of the reminder takes. */
export interface ReattachedFile {
  /** The path as the model wrote it. */
  readonly path: string;
  readonly tokens: number;
  /** `content`: the file's text is attached; `reference`: only its path (and size), with `reason`. */
  readonly attached: 'content' | 'reference';
  readonly reason?: string;
}

/** The plan a compaction carried: its steps, how many were done, and the tokens its reminder takes. */
export interface CarriedPlan {
  readonly steps: number;
  readonly completed: number;
  readonly tokens: number;
}
