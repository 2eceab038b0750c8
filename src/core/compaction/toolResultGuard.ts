/**
 * Tool-result guard: the first, cheapest layer, applied to a tool result as it arrives and
 * before it enters the history. A result over the spill size is saved to a file (a Spill the
 * caller writes) and replaced by its first lines and the path; a result still over its share
 * of the window is cut head + tail at line breaks with a notice. Also home of the head + tail
 * cut the budget trim reuses. Pure: no I/O.
 */
import type { ToolResultContent } from '../conversation/conversationModel';
import type { Spill } from '../conversation/paste';
import { formatBytes, lineCount, safeCutIndex, utf8Length } from '../platform/text';
import { countNewlines } from '../tools/limits';
import { formatCount, plural } from '../text/counts';
import { GUARD_DEFAULTS } from './guardDefaults';
import { inlineCharsFor } from '../pipeline/window';

/** What the guard needs to know about one result. */
export interface ToolResultGuardOptions {
  /** Total context window of the model, in tokens. */
  readonly contextWindow: number;
  /**
   * Folder for spilled results (absolute; read_file must be able to read it). Empty: spilling
   * is off, and results are only cut to their limit.
   */
  readonly spillDirectory: string;
  /** File name of the spill, unique per result (e.g. `tool-<toolUseId>.txt`). */
  readonly fileName: string;
  /** Tool that produced the result, named in the notices. */
  readonly toolName: string;
}

/** A guarded string result. `content` is unchanged (same string) when nothing was needed. */
export interface GuardedToolResult {
  readonly content: string;
  /** The file the caller must write before the result is sent, when the result was spilled. */
  readonly spill?: Spill;
  /** Characters of the original not shown inline (spilled or cut away); 0 when untouched. */
  readonly cutChars: number;
  /** The bracketed notice put into `content`, when anything was done. */
  readonly notice?: string;
}

/** A guarded result of any shape: only its text parts are guarded, images pass through. */
export interface GuardedToolResultContent {
  readonly content: ToolResultContent;
  readonly spills: readonly Spill[];
  readonly cutChars: number;
  readonly notices: readonly string[];
}

/** What a middle cut keeps, and what it removed. */
export interface MiddleCut {
  readonly head: string;
  readonly tail: string;
  /** Characters removed (plus any `gapChars` already missing). */
  readonly cutChars: number;
  /** Line breaks in the removed part. */
  readonly cutLines: number;
  /** 1-based line of the text at which the removed part starts. */
  readonly firstCutLine: number;
}

/**
 * The most characters one tool result may hold in a window of `contextWindow` tokens:
 * 30 % of the window at 4 characters per token, between 2 000 and 400 000 characters.
 */
export function resultCharLimit(contextWindow: number): number {
  const d = GUARD_DEFAULTS;
  return Math.min(d.resultMaxChars, Math.max(d.resultMinChars, inlineCharsFor(contextWindow)));
}

/**
 * Guards one string result: unchanged up to `spillBytes` UTF-8 bytes and its character limit
 * (see {@link resultCharLimit}). Over either (and with a spill directory) it is saved whole to
 * `spillDirectory/fileName` and replaced by a header naming the path, its first lines (~2 000
 * characters) and where to continue with `read_file path=… offset=…` — spilling loses nothing,
 * so it is preferred to cutting. Without a spill directory (or if the spill text itself were
 * over a tiny limit) the text is cut head + tail at line breaks with a notice of how much was
 * cut and how to get the rest. The content returned never exceeds the limit and never splits
 * a surrogate pair.
 */
export function guardToolResult(content: string, opts: ToolResultGuardOptions): GuardedToolResult {
  return guardText(content, opts, resultCharLimit(opts.contextWindow), opts.fileName);
}

/**
 * {@link guardToolResult} for content of any shape. A string is guarded as such; in an array
 * only text parts are guarded (images are kept as they are), sharing the character limit
 * equally; with several text parts, the k-th spills to `fileName` with `-k` before its extension.
 */
export function guardToolResultContent(
  content: ToolResultContent,
  opts: ToolResultGuardOptions,
): GuardedToolResultContent {
  if (typeof content === 'string') {
    const g = guardToolResult(content, opts);
    return {
      content: g.content,
      spills: g.spill ? [g.spill] : [],
      cutChars: g.cutChars,
      notices: g.notice ? [g.notice] : [],
    };
  }
  const texts = content.filter((p) => p.type === 'text').length;
  const limit = Math.max(
    GUARD_DEFAULTS.resultMinChars,
    Math.floor(resultCharLimit(opts.contextWindow) / Math.max(1, texts)),
  );
  const spills: Spill[] = [];
  const notices: string[] = [];
  let cutChars = 0;
  let k = 0;
  const parts = content.map((part) => {
    if (part.type !== 'text') return part;
    k++;
    const g = guardText(part.text, opts, limit, texts > 1 ? numbered(opts.fileName, k) : opts.fileName);
    if (g.spill) spills.push(g.spill);
    if (g.notice) notices.push(g.notice);
    cutChars += g.cutChars;
    return g.content === part.text ? part : { type: 'text' as const, text: g.content };
  });
  const changed = parts.some((p, i) => p !== content[i]);
  return { content: changed ? parts : content, spills, cutChars, notices };
}

/** Where and as what a result is spilled: the folder, the file's name and the tool named in the notice. */
export type SpillOptions = Pick<ToolResultGuardOptions, 'spillDirectory' | 'fileName' | 'toolName'>;

/**
 * Spills one string result whole although it is within its own limits, because `why` (a
 * clause such as "this round's 24 results together … are more than …"): saved to
 * `spillDirectory/fileName` (which must be set) and replaced by a header, its first lines (at
 * most `previewChars`) and where to continue. Used by the round guard (roundGuard.ts).
 */
export function spillToolResult(
  content: string,
  opts: SpillOptions,
  why: string,
  previewChars: number,
): GuardedToolResult {
  return spillText(content, opts, previewChars * 2, opts.fileName, `is not shown inline because ${why}`);
}

/**
 * Cuts one string result head + tail to `maxChars` because `why` (as for
 * {@link spillToolResult}), with a notice saying how much was cut and how to see the rest.
 * Used by the round guard when even previews do not fit, or nothing may be spilled.
 */
export function cutToolResult(content: string, toolName: string, maxChars: number, why: string): GuardedToolResult {
  const cut = cutMiddle(content, maxChars, (c) => cutNotice(c, toolName, maxChars, undefined, why));
  return { content: cut.text, cutChars: cut.cutChars, notice: cut.notice };
}

function guardText(content: string, opts: ToolResultGuardOptions, limit: number, fileName: string): GuardedToolResult {
  const tooBig = utf8Length(content) > GUARD_DEFAULTS.spillBytes || content.length > limit;
  if (opts.spillDirectory.trim() !== '' && tooBig) return spillText(content, opts, limit, fileName);
  if (content.length <= limit) return { content, cutChars: 0 };
  const cut = cutMiddle(content, limit, (c) => cutNotice(c, opts.toolName, limit));
  return { content: cut.text, cutChars: cut.cutChars, notice: cut.notice };
}

/** The first line of a spilled result: the notice {@link spillText} writes. */
const SPILL_NOTICE = /^\[The \S+ result \([\d,]+ characters, [^)\n]*\) [^\n]*; it was saved in full to /;

/** Whether a result (or its first text part) is a spill preview: its original saved to a file by a guard. */
export function isSpillPreview(content: ToolResultContent): boolean {
  const text = typeof content === 'string' ? content : content.find((p) => p.type === 'text')?.text;
  return text !== undefined && SPILL_NOTICE.test(text);
}

/**
 * Saves `content` whole to the spill folder and shows its first lines (about half of `limit`,
 * at most the preview size); `predicate` says why, after "The tool result (size)".
 */
function spillText(
  content: string,
  opts: SpillOptions,
  limit: number,
  fileName: string,
  predicate = 'is too large to show inline',
): GuardedToolResult {
  const spillDir = opts.spillDirectory.replace(/[\\/]+$/, '');
  const path = `${spillDir}/${fileName}`;
  const preview = previewHead(content, Math.min(GUARD_DEFAULTS.previewChars, Math.floor(limit / 2)));
  const offset = countNewlines(preview) + 1;
  const readBack = `read_file path=${path} offset=${offset}`;
  const notice =
    `[The ${opts.toolName} result (${formatCount(content.length)} characters, ${formatBytes(utf8Length(content))}, ${plural(lineCount(content), 'line')}) ${predicate}; ` +
    `it was saved in full to ${path}. Its beginning is shown below; to see the rest, read it with ${readBack} (add limit=… to page).]`;
  const footer = `[… ${formatCount(content.length - preview.length)} more characters not shown; read them with ${readBack} …]`;
  const text = `${notice}\n${preview}${preview.endsWith('\n') ? '' : '\n'}${footer}`;
  const fitted = text.length <= limit ? text : fitWithin(text, limit, opts.toolName, path);
  return { content: fitted, spill: { path, content }, cutChars: content.length - preview.length, notice };
}

function cutNotice(c: MiddleCut, toolName: string, limit: number, spillPath?: string, why?: string): string {
  const rest = spillPath
    ? `read the full result with read_file path=${spillPath}`
    : `run ${toolName} again with narrower arguments (e.g. read_file offset/limit, a more specific search or command) to see the rest`;
  const reason = why ?? `a tool result may hold at most ${formatCount(limit)} characters in this context window`;
  return `[… ${formatCount(c.cutChars)} characters (${plural(c.cutLines, 'line break')}) cut from the middle of this result, from line ${formatCount(c.firstCutLine)}: ${reason}; ${rest} …]`;
}

/** Last resort for a spill header that alone exceeds a tiny limit. */
function fitWithin(text: string, limit: number, toolName: string, path: string): string {
  return cutMiddle(text, limit, (c) => cutNotice(c, toolName, limit, path)).text;
}

/** The first lines of `text` in at most `maxChars` characters (a line is cut only if it is the first). */
function previewHead(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const end = safeCutIndex(text, maxChars);
  const nl = text.lastIndexOf('\n', end - 1);
  return text.slice(0, nl >= Math.floor(maxChars / 2) ? nl + 1 : end);
}

function numbered(fileName: string, k: number): string {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? `${fileName.slice(0, dot)}-${k}${fileName.slice(dot)}` : `${fileName}-${k}`;
}

/**
 * Cuts the middle of `text` so that head, `\n`, notice, `\n`, tail fits in `maxChars` (for limits well
 * above the notice's length; below that, the notice itself is cut), preferring line breaks
 * within ~10 % of the budget and never splitting a surrogate pair. `gapAt` is an index that
 * must fall inside the removed part (where `gapChars` characters are already missing, e.g.
 * an earlier cut); `notice` renders the bracketed notice from the cut.
 */
export function cutMiddle(
  text: string,
  maxChars: number,
  notice: (cut: MiddleCut) => string,
  gap: { at: number; chars: number } = { at: -1, chars: 0 },
): { text: string; cutChars: number; notice: string } {
  const lines = countNewlines(text);
  const worst = notice({
    head: '',
    tail: '',
    cutChars: text.length + gap.chars,
    cutLines: Math.max(lines, 2),
    firstCutLine: lines + 1,
  });
  const cut = splitMiddle(text, Math.max(0, maxChars - worst.length - 2), gap);
  const n = notice(cut);
  // Always a line break between a non-empty head and the notice, so a later cut can tell them apart.
  const before = cut.head === '' ? '' : '\n';
  const joined = `${cut.head}${before}${n}\n${cut.tail}`;
  const out = joined.length <= maxChars ? joined : joined.slice(0, safeCutIndex(joined, maxChars));
  return { text: out, cutChars: cut.cutChars, notice: n };
}

function splitMiddle(text: string, keep: number, gap: { at: number; chars: number }): MiddleCut {
  const at = gap.at >= 0 ? Math.min(gap.at, text.length) : -1;
  const headMax = at >= 0 ? at : text.length;
  const tailMax = at >= 0 ? text.length - at : text.length;
  const snap = Math.max(200, Math.floor(keep / 10));
  const tailLen = Math.min(tailMax, Math.max(0, keep - Math.min(headMax, Math.ceil(keep / 2))));
  let headEnd = safeCutIndex(text, Math.min(headMax, keep - tailLen));
  if (headEnd < text.length && text.charCodeAt(headEnd - 1) !== 10) {
    const nl = text.lastIndexOf('\n', headEnd - 1);
    if (nl >= 0 && headEnd - (nl + 1) <= snap) headEnd = nl + 1;
  }
  let tailStart = Math.max(headEnd, text.length - tailLen);
  if (tailStart > headEnd && safeCutIndex(text, tailStart) !== tailStart) tailStart++;
  if (tailStart > 0 && tailStart < text.length && text.charCodeAt(tailStart - 1) !== 10) {
    const nl = text.indexOf('\n', tailStart);
    if (nl >= 0 && nl + 1 - tailStart <= snap) tailStart = nl + 1;
  }
  const removed = text.slice(headEnd, tailStart);
  const head = text.slice(0, headEnd);
  return {
    head,
    tail: text.slice(tailStart),
    cutChars: removed.length + gap.chars,
    cutLines: countNewlines(removed),
    firstCutLine: countNewlines(head) + 1,
  };
}
