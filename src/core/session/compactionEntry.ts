/**
 * The typed fields of a compaction entry of the session file (format version 2 and later), their
 * strict schemas, and the mapping between a CompactionRecord and its entry. Pure.
 */
import * as v from 'valibot';
import type {
  CompactionLayer,
  CompactionRecord,
  CompactionRegion,
  CompactionTrigger,
  ReattachedFile,
  RetentionCheck,
  RetentionKind,
} from '../compaction/types';
import type { CompactionEntry } from './entries';

const num = v.pipe(v.number(), v.finite());
const int = v.pipe(v.number(), v.safeInteger());

const TRIGGERS = [
  'auto-soft',
  'auto-hard',
  'manual',
  'overflow',
  'tool-result',
  'budget',
  'idle',
  'rewind',
] as const satisfies readonly CompactionTrigger[];
const LAYERS = [
  'tool-result-guard',
  'budget-trim',
  'snip',
  'microcompact',
  'mask',
  'summarise',
  'fallback-drop',
  'middle-removal',
  'oldest-removal',
  'hybrid',
  'server-compact',
  'tail-guard',
  'overflow-cut',
  'rewind',
] as const satisfies readonly CompactionLayer[];

/** What started a compaction. */
export const triggerSchema: v.GenericSchema<unknown, CompactionTrigger> = v.picklist(TRIGGERS);
/** Which layer made the change. */
export const layerSchema: v.GenericSchema<unknown, CompactionLayer> = v.picklist(LAYERS);

/** One replaced region. */
export const regionSchema: v.GenericSchema<unknown, CompactionRegion> = v.strictObject({
  firstTurn: int,
  lastTurn: int,
  messageIds: v.array(v.string()),
  tokens: num,
});

const kind = v.strictObject({ found: int, lost: v.array(v.string()) });
const kinds: v.GenericSchema<unknown, Record<RetentionKind, { found: number; lost: string[] }>> = v.strictObject({
  path: kind,
  symbol: kind,
  error: kind,
  url: kind,
  number: kind,
});

/** The retention check of a summary. */
export const retentionSchema: v.GenericSchema<unknown, RetentionCheck> = v.strictObject({
  kinds,
  lost: v.array(v.string()),
  retained: num,
});

/** One re-attached file. */
export const reattachedSchema: v.GenericSchema<unknown, ReattachedFile> = v.strictObject({
  path: v.string(),
  tokens: num,
  attached: v.picklist(['content', 'reference']),
  reason: v.optional(v.string()),
});

/** The schema entries of a compaction entry besides `type`, `at`, its messages and its ids. */
export const compactionFields = {
  trigger: triggerSchema,
  layer: layerSchema,
  strategy: v.string(),
  regions: v.array(regionSchema),
  costUsd: num,
  costUnknown: v.optional(v.literal(true)),
  durationMs: num,
  fallbacks: v.array(v.string()),
  summary: v.optional(v.string()),
  instructions: v.optional(v.string()),
  model: v.optional(v.string()),
  retention: v.optional(retentionSchema),
  reattached: v.optional(v.array(reattachedSchema)),
  carriedPlan: v.optional(v.strictObject({ steps: int, completed: int, tokens: num })),
  after: v.optional(v.string()),
};

/** The session file's entry for a record: every field of the record, `replacedIds` the originals' ids. */
export function recordToEntry(r: CompactionRecord): CompactionEntry {
  return {
    type: 'compaction',
    at: r.at,
    id: r.id,
    trigger: r.trigger,
    layer: r.layer,
    strategy: r.strategy,
    replacedIds: r.originals.map((m) => m.id),
    originals: r.originals,
    replacement: r.replacement,
    tokensBefore: r.tokensBefore,
    tokensAfter: r.tokensAfter,
    regions: r.regions,
    costUsd: r.costUsd,
    ...(r.costUnknown ? { costUnknown: true } : {}),
    durationMs: r.durationMs,
    fallbacks: r.fallbacks,
    ...(r.summary !== undefined ? { summary: r.summary } : {}),
    ...(r.instructions !== undefined ? { instructions: r.instructions } : {}),
    ...(r.model !== undefined ? { model: r.model } : {}),
    ...(r.retention ? { retention: r.retention } : {}),
    ...(r.reattached && r.reattached.length > 0 ? { reattached: r.reattached } : {}),
    ...(r.carriedPlan ? { carriedPlan: r.carriedPlan } : {}),
    ...(r.after !== undefined ? { after: r.after } : {}),
  };
}

/** The record an entry holds (the inverse of recordToEntry). */
export function entryToRecord(e: CompactionEntry): CompactionRecord {
  return {
    id: e.id,
    at: e.at,
    trigger: e.trigger,
    layer: e.layer,
    strategy: e.strategy,
    regions: e.regions,
    originals: e.originals,
    replacement: e.replacement,
    tokensBefore: e.tokensBefore,
    tokensAfter: e.tokensAfter,
    costUsd: e.costUsd,
    ...(e.costUnknown ? { costUnknown: true } : {}),
    durationMs: e.durationMs,
    fallbacks: e.fallbacks,
    ...(e.summary !== undefined ? { summary: e.summary } : {}),
    ...(e.instructions !== undefined ? { instructions: e.instructions } : {}),
    ...(e.model !== undefined ? { model: e.model } : {}),
    ...(e.retention ? { retention: e.retention } : {}),
    ...(e.reattached && e.reattached.length > 0 ? { reattached: e.reattached } : {}),
    ...(e.carriedPlan ? { carriedPlan: e.carriedPlan } : {}),
    ...(e.after !== undefined ? { after: e.after } : {}),
  };
}
