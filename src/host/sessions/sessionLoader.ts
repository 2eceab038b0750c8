/**
 * Loads a session file and repairs whatever damage it can: NUL bytes, a torn last line,
 * garbage lines, bytes that are not UTF-8, entries run together on one line, lone UTF-16
 * surrogates (which the API rejects), a missing header, a conversation that breaks the
 * invariants. Every good entry is kept; the original is backed up byte for byte before
 * anything is rewritten; the user is told what was done. A file with nothing left to load
 * is an error naming the backup, never a silent blank session.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import {
  encodeEntry,
  SESSION_FORMAT,
  SESSION_VERSION,
  type HeaderEntry,
  type SessionEntry,
} from '../../core/session/entries';
import { decodeLine, newerFormatVersion, readableFormatVersion } from '../../core/session/lineCodec';
import { replaySession, type ReplayedSession } from '../../core/session/replay';
import { splitSplicedLine, wellFormedEntry } from '../../core/session/salvage';
import { salvageMessageBlocks } from '../../core/session/blockSalvage';
import { writeFileAtomic } from './sessionFile';
import { plural } from '../../core/text/counts';

/** A line that was left out, 1-based as an editor numbers it. */
export interface DroppedLine {
  readonly line: number;
  readonly reason: string;
}

/** What loading changed. `backupPath` is set when the file was rewritten (or could not be loaded). */
export interface LoadReport {
  readonly backupPath?: string;
  readonly fixes: readonly string[];
  readonly droppedLines: readonly DroppedLine[];
}

/** Result of loadSession. `entries` are the file's entries as now stored (header first). */
export type LoadResult =
  | {
      readonly ok: true;
      readonly session: ReplayedSession;
      readonly entries: readonly SessionEntry[];
      readonly report?: LoadReport;
    }
  | { readonly ok: false; readonly error: string; readonly backupPath?: string };

/** Result of analysing a file's bytes, before any I/O decision. */
export interface Analysis {
  /** The entries to keep, header first; the repaired file is exactly these. */
  readonly entries: readonly SessionEntry[];
  readonly session?: ReplayedSession;
  readonly fixes: readonly string[];
  readonly droppedLines: readonly DroppedLine[];
  /** Whether the stored file differs from `entries` and should be rewritten. */
  readonly changed: boolean;
  /** Set when nothing can be loaded; the file must then be left as it is. */
  readonly error?: string;
  /** With `error`: there is nothing worth a backup (an empty file, a newer format). */
  readonly leaveAlone?: boolean;
}

/** Options of loadSession. */
export interface LoadOptions {
  /** Clock for the backup name and repair entries; default Date.now. */
  readonly now?: () => number;
  /** How to replace the file (the session's writer, when it is open); default an atomic write. */
  readonly rewrite?: (entries: readonly SessionEntry[]) => Promise<void>;
}

/**
 * Reads `file`, repairs it and replays it. When anything had to change, FIRST writes a
 * byte-identical backup `<name>.bak-<timestamp>.jsonl` next to it, then rewrites the file
 * with the repaired entries. When no good entry is left it returns an error naming the
 * backup and leaves the file untouched; an empty file or one written by a newer version is
 * an error and is not touched either.
 */
export async function loadSession(file: string, opts: LoadOptions = {}): Promise<LoadResult> {
  const name = path.basename(file);
  let bytes: Buffer;
  try {
    bytes = await fsp.readFile(file);
  } catch (e) {
    return {
      ok: false,
      error: `The session file ${name} could not be read: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
  const now = opts.now ?? Date.now;
  const a = analyzeSession(bytes, name.replace(/\.jsonl$/, ''), now());
  if (a.error !== undefined && a.leaveAlone) return { ok: false, error: a.error };
  if (!a.changed && a.error === undefined && a.session) return { ok: true, session: a.session, entries: a.entries };
  let backupPath: string;
  try {
    backupPath = await writeBackup(file, bytes, now());
  } catch (e) {
    const why = `no backup could be written (${e instanceof Error ? e.message : String(e)})`;
    if (a.error !== undefined || !a.session)
      return { ok: false, error: `${a.error ?? 'Nothing could be loaded.'} The file was left as it was; ${why}.` };
    return {
      ok: true,
      session: a.session,
      entries: a.entries,
      report: {
        fixes: [...a.fixes, `The repairs were not saved to the file because ${why}.`],
        droppedLines: a.droppedLines,
      },
    };
  }
  if (a.error !== undefined || !a.session)
    return {
      ok: false,
      error: `${a.error ?? 'Nothing could be loaded.'} The file was left as it was; a copy is at ${backupPath}.`,
      backupPath,
    };
  const fixes = [...a.fixes];
  try {
    await (opts.rewrite ?? ((entries) => writeFileAtomic(file, entries.map((e) => `${encodeEntry(e)}\n`).join(''))))(
      a.entries,
    );
  } catch (e) {
    fixes.push(
      `The repaired session could not be saved (${e instanceof Error ? e.message : String(e)}); it will be repaired again next time.`,
    );
  }
  return {
    ok: true,
    session: a.session,
    entries: a.entries,
    report: { backupPath, fixes, droppedLines: a.droppedLines },
  };
}

/**
 * The pure part of loading: splits `bytes` into lines, decodes each, reconstructs a missing
 * header (`sessionId` defaults to `fallbackId`), replays, and adds a repair entry when the
 * conversation had to be repaired. `now` stamps that entry.
 */
export function analyzeSession(bytes: Uint8Array, fallbackId: string, now: number): Analysis {
  if (bytes.length === 0)
    return {
      entries: [],
      fixes: [],
      droppedLines: [],
      changed: false,
      leaveAlone: true,
      error: 'The session file is empty (0 bytes): nothing was ever saved in it, or it was cut off completely.',
    };
  const fixes: string[] = [];
  const dropped: (DroppedLine & { torn?: boolean })[] = [];
  const utf8 = fromUtf16(bytes);
  if (utf8 !== bytes)
    fixes.push(
      'The file was saved as UTF-16 (an editor\'s "Save with Encoding"); it was read as UTF-16 and saved again as UTF-8.',
    );
  const clean = stripNul(utf8);
  if (clean.length !== utf8.length)
    fixes.push(`Removed ${plural(utf8.length - clean.length, 'NUL byte')} (left by a crash or a disk error).`);
  let changed = utf8 !== bytes || clean.length !== utf8.length;
  const lines = splitLines(clean);
  const first = lines.find((l) => l.text.trim());
  const newer = first && newerFormatVersion(first.text);
  if (newer !== undefined)
    return {
      entries: [],
      fixes: [],
      droppedLines: [],
      changed: false,
      leaveAlone: true,
      error: `This session was saved by a newer version of the extension (format version ${newer}); update the extension to open it. The file was not changed.`,
    };
  // A file of an older format is read through migrate.ts and saved again in the current one.
  const version = (first && readableFormatVersion(first.text)) ?? SESSION_VERSION;
  if (version < SESSION_VERSION) {
    fixes.push(
      `The session was saved in format version ${version} by an earlier version of the extension; it was saved again in version ${SESSION_VERSION}.`,
    );
    changed = true;
  }
  const good: SessionEntry[] = [];
  const surrogateLines: number[] = [];
  /** Keeps `entry` read from line `l`, its lone surrogates replaced. */
  const keep = (entry: SessionEntry, l: Line) => {
    const clean = wellFormedEntry(entry, l.text);
    if (clean !== entry && surrogateLines.at(-1) !== l.line) surrogateLines.push(l.line);
    good.push(clean);
  };
  let headerLine: string | undefined;
  for (const l of lines) {
    if (l.badUtf8) {
      fixes.push(`Line ${l.line} contained bytes that are not UTF-8; they were replaced with �.`);
      changed = true;
    }
    if (!l.text.trim()) continue;
    const d = decodeLine(l.text, version);
    if (d.ok) {
      keep(d.entry, l);
      if (l.unterminated) {
        fixes.push(`The last line had no line end; it was completed.`);
        changed = true;
      }
      continue;
    }
    changed = true;
    if (l === first) headerLine = l.text;
    const spliced = splitSplicedLine(l.text, version);
    if (spliced) {
      for (const e of spliced.entries) keep(e, l);
      fixes.push(splicedFix(l.line, spliced.entries.length, spliced.droppedChars));
      continue;
    }
    const salvaged = l.unterminated ? undefined : salvageMessageBlocks(l.text, version);
    if (salvaged) {
      keep(salvaged.entry, l);
      fixes.push(
        `Line ${l.line}: ${plural(salvaged.droppedBlocks, 'block')} of a message could not be read (${salvaged.reason}) and ${salvaged.droppedBlocks === 1 ? 'was' : 'were'} left out; the rest of the message was kept.`,
      );
      continue;
    }
    if (l.unterminated)
      dropped.push({ line: l.line, reason: `cut off while it was being written (${d.reason})`, torn: true });
    else dropped.push({ line: l.line, reason: d.reason });
  }
  if (surrogateLines.length > 0) {
    changed = true;
    fixes.push(
      `${surrogateLines.length === 1 ? `Line ${surrogateLines[0]}` : `${surrogateLines.length} lines (${listLines(surrogateLines)})`} held a broken character (half of a UTF-16 surrogate pair, which the API rejects); each was replaced with � so the session can be sent again.`,
    );
  }
  for (const d of dropped)
    fixes.push(`Line ${d.line} was ${d.torn ? 'incomplete' : 'unreadable'} and was left out: ${d.reason}.`);
  const droppedLines = dropped.map(({ line, reason }) => ({ line, reason }));
  if (good.length === 0)
    return {
      entries: [],
      fixes,
      droppedLines,
      changed,
      error: `The session file has no readable entry (${plural(dropped.length, 'damaged line')}).`,
    };
  const hasContent = good.some((e) => e.type === 'message' || e.type === 'compaction' || e.type === 'repair');
  if (!hasContent && dropped.some((d) => !d.torn))
    return {
      entries: [],
      fixes,
      droppedLines,
      changed,
      error: `None of the session's messages could be read (${plural(dropped.length, 'damaged line')}).`,
    };
  let entries = good;
  const hi = good.findIndex((e) => e.type === 'header');
  if (hi > 0) {
    fixes.push('The header was not the first entry; it was moved to the top.');
    changed = true;
  }
  if (hi < 0) {
    entries = [reconstructHeader(good, headerLine, fallbackId, now), ...good];
    fixes.push(
      headerLine
        ? 'The header was damaged; it was rebuilt from what could be read of it and of the other entries.'
        : 'The header was missing; it was rebuilt from the other entries.',
    );
    changed = true;
  } else if (hi > 0) entries = [good[hi] as SessionEntry, ...good.slice(0, hi), ...good.slice(hi + 1)];
  let session = replaySession(entries);
  if (session.ignored.length > 0 || session.fixes.length > 0) {
    fixes.push(...session.problems, ...session.fixes);
    const skip = new Set(session.ignored);
    entries = entries.filter((_, i) => !skip.has(i));
    if (session.fixes.length > 0)
      entries.push({ type: 'repair', at: now, fixes: session.fixes, messages: session.messages });
    session = replaySession(entries);
    changed = true;
  }
  return { entries, session, fixes, droppedLines, changed };
}

/** The repair sentence for a line that held `count` entries run together. */
function splicedFix(line: number, count: number, droppedChars: number): string {
  const entries = count === 1 ? '1 complete entry' : `${count} complete entries`;
  return droppedChars > 0
    ? `Line ${line} held ${entries} run together with a write cut off by a crash; ${count === 1 ? 'it was' : 'they were'} split off and kept, and the cut-off part (${droppedChars} characters) was left out.`
    : `Line ${line} held ${entries} run together (a line end lost in a crash); they were split and all kept.`;
}

/** `3, 7, 9` or `3, 7, 9, 12, 15, … (40 in all)`. */
function listLines(lines: readonly number[]): string {
  return lines.length <= 5 ? lines.join(', ') : `${lines.slice(0, 5).join(', ')}, … (${lines.length} in all)`;
}

interface Line {
  readonly line: number;
  readonly text: string;
  readonly unterminated: boolean;
  readonly badUtf8: boolean;
}

function stripNul(bytes: Uint8Array): Uint8Array {
  return bytes.includes(0) ? bytes.filter((b) => b !== 0) : bytes;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');

function splitLines(bytes: Uint8Array): Line[] {
  const out: Line[] = [];
  let start = 0;
  for (let n = 1; start < bytes.length; n++) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl < 0 ? bytes.length : nl;
    const slice = bytes.subarray(start, end);
    let text: string;
    let badUtf8 = false;
    try {
      text = strictUtf8.decode(slice);
    } catch {
      text = lenientUtf8.decode(slice);
      badUtf8 = true;
    }
    out.push({ line: n, text, unterminated: nl < 0, badUtf8 });
    start = end + 1;
  }
  return out;
}

/** A header from what survives of the damaged one, else from the other entries. */
function reconstructHeader(
  entries: readonly SessionEntry[],
  damaged: string | undefined,
  fallbackId: string,
  now: number,
): HeaderEntry {
  const str = (key: string) => {
    const m = damaged && new RegExp(`"${key}"\\s*:\\s*("(?:[^"\\\\\\n]|\\\\.)*")`).exec(damaged);
    try {
      return m ? (JSON.parse(m[1] as string) as string) : undefined;
    } catch {
      return undefined;
    }
  };
  const createdRaw = damaged && /"createdAt"\s*:\s*(\d{9,16})\b/.exec(damaged)?.[1];
  const times = entries.flatMap((e) => (e.type === 'header' ? [] : [e.at]));
  const model = str('model') ?? entries.flatMap((e) => (e.type === 'usage' ? [e.model] : []))[0] ?? 'unknown';
  const title = str('title');
  return {
    type: 'header',
    format: SESSION_FORMAT,
    version: SESSION_VERSION,
    sessionId: str('sessionId') ?? fallbackId,
    createdAt: createdRaw ? Number(createdRaw) : times.reduce((a, b) => Math.min(a, b), now),
    ...(title !== undefined ? { title } : {}),
    model,
    workspace: str('workspace') ?? '',
  };
}

/** Writes `bytes` to a new `<name>.bak-<timestamp>.jsonl` beside `file`, fsynced. */
async function writeBackup(file: string, bytes: Uint8Array, now: number): Promise<string> {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const base = file.replace(/\.jsonl$/, '');
  for (let n = 1; ; n++) {
    const candidate = `${base}.bak-${stamp}${n > 1 ? `-${n}` : ''}.jsonl`;
    let fh: Awaited<ReturnType<typeof fsp.open>>;
    try {
      fh = await fsp.open(candidate, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && n < 100) continue;
      throw e;
    }
    try {
      await fh.writeFile(bytes);
      await fh.sync();
    } finally {
      await fh.close();
    }
    return candidate;
  }
}

/**
 * `bytes` as UTF-8 when they are UTF-16 text (a byte order mark, or a first `{"` with a NUL
 * after each character, as an editor saving "UTF-16 LE/BE" writes it), else `bytes` itself.
 */
export function fromUtf16(bytes: Uint8Array): Uint8Array {
  const le =
    (bytes[0] === 0xff && bytes[1] === 0xfe) ||
    (bytes[0] === 0x7b && bytes[1] === 0 && bytes[2] === 0x22 && bytes[3] === 0);
  const be =
    (bytes[0] === 0xfe && bytes[1] === 0xff) ||
    (bytes[0] === 0 && bytes[1] === 0x7b && bytes[2] === 0 && bytes[3] === 0x22);
  if (!le && !be) return bytes;
  // TextDecoder drops the byte order mark itself.
  const text = new TextDecoder(le ? 'utf-16le' : 'utf-16be').decode(bytes);
  return new TextEncoder().encode(text);
}
