/**
 * Reading the lines of a session file: one line decoded (an older version's line migrated
 * first), and the format version a header line declares. Pure.
 */
import * as v from 'valibot';
import { sessionEntrySchema, SESSION_FORMAT, SESSION_VERSION, type SessionEntry } from './entries';
import { migrateEntry, OLDEST_READABLE_VERSION } from './migrate';

/**
 * The deepest nesting a line may have. No entry the extension writes comes near it (a tool
 * input is the model's JSON), and a deeper one would overflow the stack of everything that
 * walks it later (JSON.stringify of a request, the repair's comparison): refused here.
 */
export const MAX_LINE_DEPTH = 512;

/** How deeply `text`'s JSON arrays and objects nest, counted outside strings in one pass. */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/** Result of reading one line: the entry, or a short reason it was rejected. */
export type DecodedLine =
  { readonly ok: true; readonly entry: SessionEntry } | { readonly ok: false; readonly reason: string };

/**
 * Parses and validates one line (surrounding whitespace, e.g. a `\r`, is ignored) of a file
 * of format `version` (default the current one; an older one is migrated first, so the
 * entry is always of the current version). Never throws. The reason names the failure,
 * e.g. `not JSON (Unexpected end of JSON input)` or
 * `message.blocks.0.text: Invalid type: Expected string but received 3`.
 */
export function decodeLine(line: string, version: number = SESSION_VERSION): DecodedLine {
  const text = line.trim();
  if (text.length === 0) return { ok: false, reason: 'empty line' };
  const depth = nestingDepth(text);
  if (depth > MAX_LINE_DEPTH)
    return { ok: false, reason: `nested ${depth.toLocaleString('en-US')} levels deep (at most ${MAX_LINE_DEPTH})` };
  let json: unknown;
  try {
    // An own `__proto__` key (hand-made: our writer never writes one) is left out rather than
    // failing the whole entry, which would take the user's words with it.
    json = JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value));
  } catch (e) {
    return { ok: false, reason: `not JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  const result = v.safeParse(sessionEntrySchema, version === SESSION_VERSION ? json : migrateEntry(json, version));
  if (result.success) return { ok: true, entry: result.output };
  // A line in an older version's shape in a file read as current (its header damaged or
  // lost): read as that version wrote it, when one does (e.g. a version 1 compaction's meta).
  for (let old = version - 1; old >= OLDEST_READABLE_VERSION; old--) {
    const migrated = migrateEntry(json, old);
    if (migrated === json) continue;
    const retry = v.safeParse(sessionEntrySchema, migrated);
    if (retry.success) return { ok: true, entry: retry.output };
  }
  const issue = result.issues[0];
  const path = issue?.path?.map((p) => String(p.key)).join('.') ?? '';
  return { ok: false, reason: `${path ? `${path}: ` : ''}${issue?.message ?? 'invalid entry'}` };
}

/**
 * The format version a file's first line declares, when it is a header of this format of a
 * version this code reads (current or older), else undefined (damaged, foreign or newer).
 */
export function readableFormatVersion(line: string): number | undefined {
  try {
    const json: unknown = JSON.parse(line.trim());
    if (typeof json !== 'object' || json === null) return undefined;
    const { type, format, version } = json as { type?: unknown; format?: unknown; version?: unknown };
    return type === 'header' &&
      format === SESSION_FORMAT &&
      typeof version === 'number' &&
      Number.isSafeInteger(version) &&
      version >= OLDEST_READABLE_VERSION &&
      version <= SESSION_VERSION
      ? version
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The version of a header line of this format written by a newer version of the extension,
 * else undefined. Such a file must be left untouched: its entries are not damage, only
 * unknown to this reader.
 */
export function newerFormatVersion(line: string): number | undefined {
  try {
    const json: unknown = JSON.parse(line.trim());
    if (typeof json !== 'object' || json === null) return undefined;
    const { format, version } = json as { format?: unknown; version?: unknown };
    return format === SESSION_FORMAT && typeof version === 'number' && version > SESSION_VERSION ? version : undefined;
  } catch {
    return undefined;
  }
}
