/**
 * Line-level salvage for the session loader: entries run together on one line (a crash
 * mid-write), and lone UTF-16 surrogates inside entries (which the API rejects). Pure.
 */
import { toWellFormedDeep } from '../platform/text';
import { SESSION_VERSION, type SessionEntry } from './entries';
import { decodeLine } from './lineCodec';

/** What could be read out of a line holding several entries run together. */
export interface SplicedLine {
  /** The complete entries found, in order. */
  readonly entries: readonly SessionEntry[];
  /** Characters of the line that belong to no complete entry (a write cut off), whitespace excluded. */
  readonly droppedChars: number;
}

/** Every entry line starts so (encodeEntry puts `type` first, and a `"` inside a string is always escaped). */
const ENTRY_START = '{"type":';
/** How many characters the search may scan, per character of the line, before it gives up. */
const SCAN_BUDGET_PER_CHAR = 8;

/**
 * Splits a line that does not decode as one entry at each `{"type":` where a complete, valid
 * entry starts (its end found by matching braces outside strings), keeping every such entry
 * and skipping what is between them (the part of an entry whose write was cut off). Returns
 * undefined when no complete entry is found. Objects nested in an entry (blocks) also start
 * with `{"type":`, but their types are not entry types, so they never count as entries.
 * Linear in practice: scanning stops after a fixed multiple of the line's length.
 * `version`: the file's format version (entries of an older one are migrated).
 */
export function splitSplicedLine(line: string, version: number = SESSION_VERSION): SplicedLine | undefined {
  const entries: SessionEntry[] = [];
  const budget = { left: SCAN_BUDGET_PER_CHAR * line.length + 1024 };
  let pos = 0;
  let dropped = 0;
  for (let s = line.indexOf(ENTRY_START); s >= 0 && budget.left > 0; s = line.indexOf(ENTRY_START, s + 1)) {
    if (s < pos) continue;
    const end = objectEnd(line, s, budget);
    if (end < 0) continue;
    const d = decodeLine(line.slice(s, end), version);
    if (!d.ok) continue;
    dropped += line.slice(pos, s).trim().length;
    entries.push(d.entry);
    pos = end;
    s = end - 1;
  }
  if (entries.length === 0) return undefined;
  dropped += line.slice(pos).trim().length;
  return { entries, droppedChars: dropped };
}

/**
 * Index just past the `}` closing the object that opens at `start`, or -1 when the line
 * ends first or the budget runs out. Strings (with their escapes) are skipped.
 */
function objectEnd(line: string, start: number, budget: { left: number }): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < line.length; i++) {
    if (--budget.left < 0) return -1;
    const c = line.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

/** A JSON escape of a UTF-16 surrogate half; a file in UTF-8 can only carry a lone surrogate this way. */
const SURROGATE_ESCAPE = /\\u[dD][89abcdefABCDEF][0-9a-fA-F]{2}/;

/**
 * `entry` (decoded from `line`) with every lone surrogate in its strings replaced by U+FFFD;
 * the same object when there was none. A line without a surrogate escape is not walked.
 */
export function wellFormedEntry(entry: SessionEntry, line: string): SessionEntry {
  return SURROGATE_ESCAPE.test(line) ? toWellFormedDeep(entry) : entry;
}
