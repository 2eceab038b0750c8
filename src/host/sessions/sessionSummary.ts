/**
 * One line of the sessions list, read from the head and the tail of a session file only:
 * the header and the first user message from the start, the last entries from the end, the
 * size from stat. A 50 MB session costs two small reads, not 50 MB. Reads go through an
 * injected RangeReader, so tests can count them.
 */
import { SESSION_VERSION, type SessionEntry } from '../../core/session/entries';
import { decodeLine, readableFormatVersion } from '../../core/session/lineCodec';
import { sessionDisplayTitle } from '../../core/session/markdown';
import type { Message } from '../../core/conversation/conversationModel';

/** One line of the sessions list. */
export interface SessionSummary {
  readonly id: string;
  /** The session's title (the header's), else the user's first words (≤ 60 characters). */
  readonly title: string;
  readonly createdAt: number;
  /** Time of the last readable entry, else the file's modification time. */
  readonly updatedAt: number;
  /** The highest turn number among the last entries (0 when none was found). */
  readonly turns: number;
  /** Whether a message was seen (the list does not read the middle of a file, so it does not count them). */
  readonly hasMessages: boolean;
  readonly model: string;
  readonly sizeBytes: number;
  /** The file looks damaged (or could not be read); opening it will repair it or explain why it cannot. */
  readonly damaged: boolean;
  /** With `damaged`: the first damage seen, as a sentence (absent when `error` says it). */
  readonly damage?: string;
  /** Why the file could not be summarised at all, when it could not. */
  readonly error?: string;
  /** A subagent's session: the id of the session whose task started it. */
  readonly parent?: string;
}

/** Reads `length` bytes at `position` (fewer at the end of the file). */
export interface RangeReader {
  read(position: number, length: number): Promise<Uint8Array>;
}

/** What stat says about the file. */
export interface FileFacts {
  readonly size: number;
  readonly mtimeMs: number;
  readonly birthtimeMs: number;
}

/** Bytes read per step from either end. */
export const SUMMARY_CHUNK = 64 * 1024;
/** Most bytes read from either end, whatever the lines' lengths: a summary reads at most twice this. */
export const SUMMARY_MAX_WINDOW = 1024 * 1024;
const NL = 0x0a;
const MESSAGE_PREFIX = new TextEncoder().encode('{"type":"message"');
const utf8 = new TextDecoder();

interface Line {
  readonly bytes: Uint8Array;
  /** The file's last line without a line end. */
  readonly unterminated: boolean;
}

/**
 * Summarises a session file from its first and last bytes. The head is read until it holds
 * the header and the first message line (or SUMMARY_MAX_WINDOW); the tail until it holds
 * three complete lines (or SUMMARY_MAX_WINDOW, or it meets the head). Damage is flagged when
 * a line read does not decode, the file has NUL bytes there or does not end with a newline,
 * or the header is missing; damage in the unread middle shows only when the session is opened.
 */
export async function summarizeSession(id: string, reader: RangeReader, facts: FileFacts): Promise<SessionSummary> {
  const head = await readHead(reader, facts.size);
  const tail = await readTail(reader, facts.size, head.linesEnd);
  const lines = [...head.lines, ...tail.lines];
  const found: string[] = [];
  if (facts.size === 0) found.push('The file is empty.');
  else if (head.lastByte !== NL) found.push('Its last line is incomplete (a write was cut off).');
  if (head.hasNul || tail.hasNul) found.push('It holds NUL bytes (left by a crash or a disk error).');
  const entries: SessionEntry[] = [];
  // Lines of an older format are read as the loader reads them (migrated), so such a file is not flagged.
  const version = (head.lines[0] && readableFormatVersion(utf8.decode(head.lines[0].bytes))) ?? SESSION_VERSION;
  for (const l of lines) {
    const d = decodeLine(utf8.decode(l.bytes), version);
    if (d.ok) entries.push(d.entry);
    else if (!l.unterminated) found.push(`A line could not be read: ${d.reason}.`);
  }
  const first = head.lines[0] ? decodeLine(utf8.decode(head.lines[0].bytes), version) : undefined;
  const header = first?.ok && first.entry.type === 'header' ? first.entry : undefined;
  if (!header && facts.size > 0) found.unshift('Its header (first line) is missing or unreadable.');
  const title = header?.title;
  let firstUser: Message | undefined;
  let turns = 0;
  let last: SessionEntry | undefined;
  for (const e of entries) {
    if (
      e.type === 'message' &&
      !firstUser &&
      e.message.role === 'user' &&
      e.message.blocks.some((b) => b.type === 'text' && b.meta.source === 'user')
    )
      firstUser = e.message;
    if (e.type === 'message' || e.type === 'usage')
      turns = Math.max(turns, e.type === 'message' ? e.message.turn : e.turn);
    if (e.type !== 'header') last = e;
  }
  return {
    id,
    title: sessionDisplayTitle(title, firstUser ? [firstUser] : []),
    createdAt: header?.createdAt ?? facts.birthtimeMs,
    updatedAt: last && last.type !== 'header' ? last.at : facts.mtimeMs,
    turns,
    hasMessages: lines.some(isMessageLine),
    model: header?.model ?? 'unknown',
    sizeBytes: facts.size,
    damaged: found.length > 0,
    ...(found[0] !== undefined ? { damage: found[0] } : {}),
    ...(header?.parent ? { parent: header.parent.sessionId } : {}),
  };
}

/** The start of the file: its complete lines, where they end, its last byte and whether it held a NUL. */
async function readHead(
  reader: RangeReader,
  size: number,
): Promise<{ lines: Line[]; linesEnd: number; lastByte: number | undefined; hasNul: boolean }> {
  let buf: Uint8Array = new Uint8Array(0);
  while (buf.length < size && buf.length < SUMMARY_MAX_WINDOW) {
    const chunk = await reader.read(
      buf.length,
      Math.min(SUMMARY_CHUNK, size - buf.length, SUMMARY_MAX_WINDOW - buf.length),
    );
    if (chunk.length === 0) break;
    buf = concat(buf, chunk);
    const lines = splitLines(buf, buf.length >= size).lines;
    if (lines.slice(1).some(isMessageLine)) break;
  }
  const whole = buf.length >= size;
  const { lines, end } = splitLines(buf, whole);
  // The last byte of the file: known now when the head is the whole file, else read it.
  const lastByte = whole ? buf[buf.length - 1] : (await reader.read(size - 1, 1))[0];
  return { lines, linesEnd: whole ? size : end, lastByte, hasNul: buf.includes(0) };
}

/** The end of the file after `from` (where the head's complete lines end): its complete lines. */
async function readTail(reader: RangeReader, size: number, from: number): Promise<{ lines: Line[]; hasNul: boolean }> {
  let start = size;
  let buf: Uint8Array = new Uint8Array(0);
  let lines: Line[] = [];
  while (start > from && buf.length < SUMMARY_MAX_WINDOW) {
    const len = Math.min(SUMMARY_CHUNK, start - from, SUMMARY_MAX_WINDOW - buf.length);
    start -= len;
    buf = concat(await reader.read(start, len), buf);
    // Unless the window starts where a line does, its first bytes are the end of a line not read whole.
    const skip = start === from ? 0 : buf.indexOf(NL) + 1;
    lines = skip === 0 && start !== from ? [] : splitLines(buf.subarray(skip), true).lines;
    if (lines.filter((l) => !l.unterminated).length >= 3) break;
  }
  return { lines, hasNul: buf.includes(0) };
}

/** The lines of `buf`; its last segment counts only when `atEnd` (the end of the file), as an unterminated line. */
function splitLines(buf: Uint8Array, atEnd: boolean): { lines: Line[]; end: number } {
  const lines: Line[] = [];
  let start = 0;
  for (let nl = buf.indexOf(NL); nl >= 0; nl = buf.indexOf(NL, start)) {
    if (nl > start) lines.push({ bytes: buf.subarray(start, nl), unterminated: false });
    start = nl + 1;
  }
  if (atEnd && start < buf.length) lines.push({ bytes: buf.subarray(start), unterminated: true });
  return { lines, end: start };
}

function isMessageLine(l: Line): boolean {
  return l.bytes.length >= MESSAGE_PREFIX.length && MESSAGE_PREFIX.every((b, i) => l.bytes[i] === b);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
