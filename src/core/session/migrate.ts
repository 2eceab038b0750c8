/**
 * Reading session files of older format versions: each line, parsed, is brought to the
 * current version before it is validated, one step at a time (1 → 2 → … → 11 → 12). Pure.
 *
 * Version 11 → 12: the header's version becomes 12; nothing else changes. Version 12 added
 * `spend` lines (money a summary stopped before it was made had spent; a version 11 build
 * would read such a line as damage, hence the bump).
 *
 * Version 10 → 11: the header's version becomes 11; nothing else changes. Version 11 added a
 * usage's optional `cut` (a request cut off before its answer ended, billed for what it used; a
 * version 10 build would read such a line as damage, hence the bump).
 *
 * Version 9 → 10: the header's version becomes 10; nothing else changes. Version 10 added a
 * compaction's optional `costUnknown` and `continuedFrom`'s optional `noteCostUnknown` (a cost
 * that is not known; a version 9 build would read such lines as damage, hence the bump).
 *
 * Version 8 → 9: the header's version becomes 9; nothing else changes. Version 9 added
 * `continuedFrom`'s optional `noteCostUsd` (what the handoff note cost; a version 8 build would
 * read such a header as damage, hence the bump).
 *
 * Version 7 → 8: the header's version becomes 8; nothing else changes. Version 8 added the
 * header's optional `continuedFrom` (a session handed off to; a version 7 build would read such
 * a header as damage, hence the bump).
 *
 * Version 6 → 7: the header's version becomes 7; nothing else changes. Version 7 added a
 * usage's optional `cache_creation` (writes split by lifetime; a version 6 build would drop
 * such a line as damage, hence the bump).
 *
 * Version 5 → 6: the header's version becomes 6; nothing else changes. Version 6 added
 * `subagent` lines, the header's optional `parent` and the tool_use effect `delegate` (a
 * version 5 build would drop them as damage, hence the bump).
 *
 * Version 4 → 5: the header's version becomes 5; nothing else changes. Version 5 added `plan`
 * lines, the tool_use effect `plan` and a compaction's optional `carriedPlan` (a version 4
 * build would drop them as damage, hence the bump).
 *
 * Version 3 → 4: the header's version becomes 4; nothing else changes. Version 4 added the
 * `rewind` trigger and layer and a compaction's optional `after` (a version 3 build would drop
 * a rewind as damage, hence the bump).
 *
 * Version 2 → 3: the header's version becomes 3; nothing else changes. Version 3 added the
 * `server_tool` block and the tool_use block's `meta.effect`, both optional, so every
 * version 2 line is a valid version 3 line (a version 2 build would drop them as damage,
 * hence the bump: it refuses a version 3 file instead).
 *
 * Version 1 → 2: the header's version becomes 2; a compaction's `meta` (flat values, its
 * structured parts as JSON strings) becomes typed fields. Values version 1 wrote that do not
 * fit are read as the record reader of version 1 read them: a missing or unreadable list is
 * empty, a missing number is 0, a missing layer or strategy is `summarise`, unreadable
 * retention is left out, malformed re-attached files are left out. Every other line is the
 * same in both versions (a version 1 file may hold `recall` lines and usage `cacheMiss`,
 * `server` and `counted` fields, added before the bump; it may as well lack them).
 */
import * as v from 'valibot';
import { layerSchema, reattachedSchema, regionSchema, retentionSchema } from './compactionEntry';

/** The oldest format version this code still reads (and saves again in the current one). */
export const OLDEST_READABLE_VERSION = 1;

/**
 * `json` (one parsed line of a file of format `version`) as the current version writes it;
 * the very same value when nothing differs (lineCodec.ts relies on that).
 */
export function migrateEntry(json: unknown, version: number): unknown {
  if (typeof json !== 'object' || json === null) return json;
  let o = json as Record<string, unknown>;
  if (version <= 1) o = fromV1(o);
  if (version <= 2) o = fromV2(o);
  if (version <= 3) o = fromV3(o);
  if (version <= 4) o = fromV4(o);
  if (version <= 5) o = fromV5(o);
  if (version <= 6) o = fromV6(o);
  if (version <= 7) o = fromV7(o);
  if (version <= 8) o = fromV8(o);
  if (version <= 9) o = fromV9(o);
  if (version <= 10) o = fromV10(o);
  if (version <= 11) o = fromV11(o);
  return o;
}

/** Version 1 → 2. */
function fromV1(o: Record<string, unknown>): Record<string, unknown> {
  if (o.type === 'header' && o.version === 1) return { ...o, version: 2 };
  // A compaction without `meta` is already typed (appended by a later version when a rewrite failed).
  if (o.type === 'compaction' && 'meta' in o) return compactionFromV1(o);
  return o;
}

/** Version 2 → 3: only the header's version differs. */
function fromV2(o: Record<string, unknown>): Record<string, unknown> {
  return o.type === 'header' && o.version === 2 ? { ...o, version: 3 } : o;
}

/** Version 3 → 4: only the header's version differs. */
function fromV3(o: Record<string, unknown>): Record<string, unknown> {
  return o.type === 'header' && o.version === 3 ? { ...o, version: 4 } : o;
}

/** Version 4 → 5: only the header's version differs. */
function fromV4(o: Record<string, unknown>): Record<string, unknown> {
  return o.type === 'header' && o.version === 4 ? { ...o, version: 5 } : o;
}

/** Version 5 → 6: only the header's version differs. */
function fromV5(o: Record<string, unknown>): Record<string, unknown> {
  return o.type === 'header' && o.version === 5 ? { ...o, version: 6 } : o;
}

/** Version 6 → 7: only the header's version differs. */
function fromV6(o: Record<string, unknown>): Record<string, unknown> {
  return o.type === 'header' && o.version === 6 ? { ...o, version: 7 } : o;
}

/** Version 7 → 8: only the header's version differs. */
function fromV7(o: Record<string, unknown>): Record<string, unknown> {
  return o.type === 'header' && o.version === 7 ? { ...o, version: 8 } : o;
}

/** Version 8 → 9: only the header's version differs. */
function fromV8(o: Record<string, unknown>): Record<string, unknown> {
  return o.type === 'header' && o.version === 8 ? { ...o, version: 9 } : o;
}

/** Version 9 → 10: only the header's version differs. */
function fromV9(o: Record<string, unknown>): Record<string, unknown> {
  return o.type === 'header' && o.version === 9 ? { ...o, version: 10 } : o;
}

/** Version 10 → 11: only the header's version differs. */
function fromV10(o: Record<string, unknown>): Record<string, unknown> {
  return o.type === 'header' && o.version === 10 ? { ...o, version: 11 } : o;
}

/** Version 11 → 12: only the header's version differs. */
function fromV11(o: Record<string, unknown>): Record<string, unknown> {
  return o.type === 'header' && o.version === 11 ? { ...o, version: 12 } : o;
}

function compactionFromV1(o: Record<string, unknown>): Record<string, unknown> {
  const { meta: rawMeta, ...rest } = o;
  const meta = typeof rawMeta === 'object' && rawMeta !== null ? (rawMeta as Record<string, unknown>) : {};
  const str = (k: string) => (typeof meta[k] === 'string' ? meta[k] : undefined);
  const num = (k: string) => (typeof meta[k] === 'number' ? meta[k] : 0);
  const json = (k: string): unknown => {
    const raw = str(k);
    if (raw === undefined) return undefined;
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return undefined;
    }
  };
  const regions = v.safeParse(v.array(regionSchema), json('regions'));
  const fallbacks = v.safeParse(v.array(v.string()), json('fallbacks'));
  const retention = v.safeParse(retentionSchema, json('retention'));
  const attached = json('reattached');
  const reattached = Array.isArray(attached)
    ? attached.flatMap((f: unknown) => {
        const r = v.safeParse(reattachedSchema, f);
        return r.success ? [r.output] : [];
      })
    : [];
  const summary = str('summary');
  const instructions = str('instructions');
  const model = str('model');
  return {
    ...rest,
    // A layer this version does not know (hand-made, or a later one's) is read as a summary.
    layer: knownLayer(str('layer')) ?? 'summarise',
    strategy: str('strategy') ?? 'summarise',
    regions: regions.success ? regions.output : [],
    costUsd: num('costUsd'),
    durationMs: num('durationMs'),
    fallbacks: fallbacks.success ? fallbacks.output : [],
    ...(summary !== undefined ? { summary } : {}),
    ...(instructions !== undefined ? { instructions } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(retention.success ? { retention: retention.output } : {}),
    ...(reattached.length > 0 ? { reattached } : {}),
  };
}

/** `layer` when it is one this version knows, else undefined. */
function knownLayer(layer: string | undefined): string | undefined {
  return layer !== undefined && v.is(layerSchema, layer) ? layer : undefined;
}
