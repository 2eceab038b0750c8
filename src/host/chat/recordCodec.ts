import type { CompactionRecord, CompactionRegion, ReattachedFile, RetentionCheck } from '../../core/compaction/types';
import type { CompactionEntry } from '../../core/session/entries';

/**
 * Maps a CompactionRecord to the session file's compaction entry and back. The entry keeps
 * originals and replacement as messages; the rest of the record travels in `meta` (flat
 * values; structured parts as JSON strings).
 */
export function recordToEntry(r: CompactionRecord): CompactionEntry {
  return {
    type: 'compaction',
    at: r.at,
    id: r.id,
    trigger: r.trigger,
    replacedIds: r.originals.map((m) => m.id),
    originals: r.originals,
    replacement: r.replacement,
    tokensBefore: r.tokensBefore,
    tokensAfter: r.tokensAfter,
    meta: {
      layer: r.layer,
      strategy: r.strategy,
      costUsd: r.costUsd,
      durationMs: r.durationMs,
      regions: JSON.stringify(r.regions),
      fallbacks: JSON.stringify(r.fallbacks),
      ...(r.summary !== undefined ? { summary: r.summary } : {}),
      ...(r.instructions !== undefined ? { instructions: r.instructions } : {}),
      ...(r.model !== undefined ? { model: r.model } : {}),
      ...(r.retention ? { retention: JSON.stringify(r.retention) } : {}),
      ...(r.reattached ? { reattached: JSON.stringify(r.reattached) } : {}),
    },
  };
}

/** The record stored in an entry; tolerant of missing meta (older or repaired files). */
export function entryToRecord(e: CompactionEntry): CompactionRecord {
  const m = e.meta;
  const str = (k: string) => (typeof m[k] === 'string' ? (m[k] as string) : undefined);
  const num = (k: string) => (typeof m[k] === 'number' ? (m[k] as number) : 0);
  const json = <T>(k: string, fallback: T): T => {
    const raw = str(k);
    if (raw === undefined) return fallback;
    try {
      return JSON.parse(raw) as T;
    } catch {
      return fallback;
    }
  };
  const summary = str('summary');
  const instructions = str('instructions');
  const model = str('model');
  const retention = json<RetentionCheck | undefined>('retention', undefined);
  const reattached = reattachedFiles(json<unknown>('reattached', undefined));
  return {
    id: e.id,
    at: e.at,
    trigger: e.trigger as CompactionRecord['trigger'],
    layer: (str('layer') ?? 'summarise') as CompactionRecord['layer'],
    strategy: str('strategy') ?? 'summarise',
    regions: json<CompactionRegion[]>('regions', []),
    originals: e.originals,
    replacement: e.replacement,
    tokensBefore: e.tokensBefore,
    tokensAfter: e.tokensAfter,
    costUsd: num('costUsd'),
    durationMs: num('durationMs'),
    fallbacks: json<string[]>('fallbacks', []),
    ...(summary !== undefined ? { summary } : {}),
    ...(instructions !== undefined ? { instructions } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(retention ? { retention } : {}),
    ...(reattached ? { reattached } : {}),
  };
}

/** The re-attached files of a stored record, keeping only well-formed entries; undefined when there are none. */
function reattachedFiles(raw: unknown): ReattachedFile[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const files = raw.flatMap((f: unknown): ReattachedFile[] => {
    if (typeof f !== 'object' || f === null) return [];
    const o = f as Record<string, unknown>;
    if (
      typeof o.path !== 'string' ||
      typeof o.tokens !== 'number' ||
      (o.attached !== 'content' && o.attached !== 'reference')
    )
      return [];
    return [
      {
        path: o.path,
        tokens: o.tokens,
        attached: o.attached,
        ...(typeof o.reason === 'string' ? { reason: o.reason } : {}),
      },
    ];
  });
  return files.length > 0 ? files : undefined;
}
