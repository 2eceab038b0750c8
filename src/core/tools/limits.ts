/**
 * Caps of the workspace tools, and the head+tail cut that keeps any output under a cap
 * without splitting a surrogate pair. Pure: no I/O.
 */
import { safeCutIndex } from '../platform/text';
import { formatCount } from '../text/counts';

/** Every bound the workspace tools enforce. Each tool caps its output at the source. */
export interface ToolLimits {
  /** read_file: lines returned when `limit` is not given. */
  readonly readDefaultLines: number;
  /** read_file: a longer line is cut, with a note of how much is missing. */
  readonly readMaxLineChars: number;
  /** read_file: the total line count is reported only for files up to this size (bytes). */
  readonly readCountLinesMaxBytes: number;
  /** Any tool: the most characters one result may hold (the runner enforces it too). */
  readonly maxResultChars: number;
  /** Binary sniffing looks at this many leading bytes. */
  readonly binarySniffBytes: number;
  /** list_files: entries per result. */
  readonly listMaxEntries: number;
  /** list_files and search: a walk stops after visiting this many files and folders. */
  readonly walkMaxEntries: number;
  /** search: matching lines per result (also the largest `max_results`). */
  readonly searchMaxMatches: number;
  /** search: larger files are skipped (bytes). */
  readonly searchMaxFileBytes: number;
  /** search: a matching line is shown as a window of about this many characters. */
  readonly searchMaxLineChars: number;
  /** search: the walk stops after this long (ms) and returns what it found. */
  readonly searchTimeoutMs: number;
  /** edit_file: larger files are refused (bytes). */
  readonly editMaxFileBytes: number;
  /** run_command: characters of output kept (head + tail). */
  readonly commandOutputChars: number;
  /** run_command: timeout when the call gives none (ms). */
  readonly commandDefaultTimeoutMs: number;
  /** run_command: the largest timeout a call may ask for (ms). */
  readonly commandMaxTimeoutMs: number;
  /** run_command: after SIGTERM, SIGKILL follows this long later (ms). */
  readonly commandKillGraceMs: number;
}

/** The caps used unless a caller overrides them (tests do, to keep fixtures small). */
export const DEFAULT_TOOL_LIMITS: ToolLimits = {
  readDefaultLines: 2000,
  readMaxLineChars: 2000,
  readCountLinesMaxBytes: 10_000_000,
  maxResultChars: 100_000,
  binarySniffBytes: 8192,
  listMaxEntries: 1000,
  walkMaxEntries: 200_000,
  searchMaxMatches: 200,
  searchMaxFileBytes: 1_000_000,
  searchMaxLineChars: 300,
  searchTimeoutMs: 30_000,
  editMaxFileBytes: 10_000_000,
  commandOutputChars: 30_000,
  commandDefaultTimeoutMs: 120_000,
  commandMaxTimeoutMs: 600_000,
  commandKillGraceMs: 2_000,
};

/** Room kept for the notice that replaces the cut middle. */
const NOTICE_RESERVE = 200;
/** Below this cap there is no room for a notice: the output is simply cut at the end. */
const MIN_CAP_WITH_NOTICE = 2 * NOTICE_RESERVE;

/**
 * `text` unchanged when it fits in `maxChars`; otherwise its start and its end, each cut on
 * a line boundary when one is near, joined by a notice saying how many characters (and
 * lines) were cut. The result never exceeds `maxChars` (for caps of 400 and more; smaller
 * caps keep only the start) and never splits a surrogate pair.
 */
export function capOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const mid = safeCutIndex(text, Math.floor(text.length / 2));
  return joinHeadTail(text.slice(0, mid), text.slice(mid), 0, 0, maxChars);
}

/**
 * Joins the kept start (`head`) and end (`tail`) of an output whose middle may already be
 * gone (`gapChars` characters holding `gapLines` line breaks, as a streaming collector
 * drops them), keeping the whole under `maxChars` with a notice of what was cut. Same
 * guarantees as {@link capOutput}; `head` and `tail` must not split a surrogate pair.
 */
export function joinHeadTail(head: string, tail: string, gapChars: number, gapLines: number, maxChars: number): string {
  if (gapChars === 0 && head.length + tail.length <= maxChars) return head + tail;
  if (maxChars < MIN_CAP_WITH_NOTICE) {
    const all = head + tail;
    return all.slice(0, safeCutIndex(all, maxChars));
  }
  const budget = maxChars - NOTICE_RESERVE;
  const snap = Math.max(200, Math.floor(budget / 10));

  let headEnd = safeCutIndex(head, Math.min(Math.ceil(budget / 2), head.length));
  if (headEnd < head.length) {
    const nl = head.lastIndexOf('\n', headEnd - 1);
    if (nl >= 0 && headEnd - (nl + 1) <= snap) headEnd = nl + 1;
  }

  const tailBudget = budget - headEnd;
  let tailStart = tail.length - Math.min(tailBudget, tail.length);
  if (tailStart > 0 && isLowSurrogate(tail.charCodeAt(tailStart)) && isHighSurrogate(tail.charCodeAt(tailStart - 1)))
    tailStart++;
  if (tailStart > 0 && tail.charCodeAt(tailStart - 1) !== 10) {
    const nl = tail.indexOf('\n', tailStart);
    if (nl >= 0 && nl + 1 - tailStart <= snap) tailStart = nl + 1;
  }

  const cutHead = head.slice(headEnd);
  const cutTail = tail.slice(0, tailStart);
  const omittedChars = cutHead.length + gapChars + cutTail.length;
  if (omittedChars === 0) return head + tail;
  const omittedLines = countNewlines(cutHead) + gapLines + countNewlines(cutTail);
  const kept = head.slice(0, headEnd);
  const lines = omittedLines > 0 ? ` (${formatCount(omittedLines)} line breaks)` : '';
  const notice = `[… ${formatCount(omittedChars)} characters${lines} cut from the middle: output is capped at ${formatCount(maxChars)} characters …]`;
  const before = kept.length === 0 || kept.endsWith('\n') ? '' : '\n';
  return `${kept}${before}${notice}\n${tail.slice(tailStart)}`;
}

/** Number of `\n` in `text`. */
export function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
