/**
 * Re-attach after a compaction: the files the agent read or edited most recently, read fresh
 * through a port (the host reads the disk under read_file's rules), each capped, rendered as
 * one `<system-reminder>` text block. File content and paths are untrusted: our tags in them
 * are neutralised and lone surrogates replaced. Pure apart from the injected reader.
 *
 * Only files are re-attached. Pinned blocks are never compacted (regions and every layer
 * leave them standing), so they are always verbatim in the kept history and never need
 * re-attaching; and there is no plan/todo tool in this codebase, so there is no open plan.
 */
import { neutralizeUntrusted } from '../conversation/injections';
import type { Block, TextBlock } from '../conversation/conversationModel';
import type { Clock, IdSource } from '../platform/platformPorts';
import { formatBytes, headChars, toWellFormed } from '../platform/text';
import { NOT_ATTACHED_HEADING, renderFileIndex, type IndexedFile } from './fileIndex';
import type { ReattachCandidate } from './reattachCandidates';
import type { ReattachedFile } from './types';

/** A re-attached file's content may take at most this many tokens; a larger file is named, not attached. */
export const REATTACH_FILE_TOKENS = 5_000;

/** Beyond this many bytes a file is too large without counting its tokens (no text has 16 bytes a token). */
const BYTES_PER_TOKEN_CEILING = 16;

/** The line the re-attach reminder starts with (after its tag): the ledger's preview names it by this. */
export const REATTACH_HEADING = 'Files re-attached after compaction (read fresh from disk)';

/** The reason given for a file that fit its cap but not the room the compaction left. */
export const NO_ROOM_REASON = 'no room left in the context after this compaction; read it with read_file';

/** What reading a file fresh gave: its text and size on disk, or why it was not read (never its content). */
export type FreshRead =
  | { readonly ok: true; readonly text: string; readonly bytes: number }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads a file fresh, by the path as the model wrote it. The host resolves and confines it
 * the way read_file does and refuses secrets files, binary files and paths outside the
 * workspace with a reason. Never rejects (a rejection is taken as "could not be read").
 */
export type ReadFresh = (path: string) => Promise<FreshRead>;

/** One candidate after reading: its content section (when it may be attached) and its reference line. */
export interface ReattachEntry {
  readonly path: string;
  /** The rendered section with the file's content, and its tokens; absent when it cannot be attached. */
  readonly content?: { readonly text: string; readonly tokens: number };
  /** Why the content is not attached, when it is not. */
  readonly reason?: string;
  /** The one-line reference used when the content is left out (without the reason). */
  readonly reference: string;
}

/** What reading needs: the reader, a text token count, and the per-file cap. */
export interface ReattachReadOptions {
  readonly readFresh: ReadFresh;
  /** Calibrated tokens of a text, as the compactor counts them. */
  readonly textTokens: (text: string) => number;
  /** Default REATTACH_FILE_TOKENS. */
  readonly fileCap?: number;
}

/**
 * Reads each candidate fresh, in order. A file over the cap (counted on its rendered
 * section) or unreadable gets a reason instead of content; file text is neutralised and made
 * well formed before it is counted.
 */
export async function readReattachments(
  candidates: readonly ReattachCandidate[],
  opts: ReattachReadOptions,
): Promise<ReattachEntry[]> {
  const cap = opts.fileCap ?? REATTACH_FILE_TOKENS;
  const out: ReattachEntry[] = [];
  for (const c of candidates) {
    const path = safePath(c.path);
    let read: FreshRead;
    try {
      read = await opts.readFresh(c.path);
    } catch {
      read = { ok: false, reason: 'it could not be read' };
    }
    if (!read.ok) {
      out.push({ path: c.path, reason: oneLine(read.reason), reference: `- ${path}` });
      continue;
    }
    const reference = `- ${path} (${formatBytes(read.bytes)})`;
    if (read.bytes > cap * BYTES_PER_TOKEN_CEILING) {
      out.push({ path: c.path, reason: 'too large; read it with read_file', reference });
      continue;
    }
    const text = section(path, read.bytes, read.text);
    const tokens = opts.textTokens(text);
    if (tokens > cap) out.push({ path: c.path, reason: 'too large; read it with read_file', reference });
    else out.push({ path: c.path, content: { text, tokens }, reference });
  }
  return out;
}

/** The reminder's text and what it holds. */
export interface Reattachment {
  readonly text: string;
  readonly files: readonly ReattachedFile[];
}

/**
 * Renders the reminder: entries with content while their tokens fit `budget` in total (in
 * order, most recent first), the others as references with their reason, then the file index
 * (fileIndex.ts: the other files touched earlier, named only). Undefined when there are
 * neither entries nor indexed files. `textTokens` counts each reference line for the record.
 */
export function renderReattachment(
  entries: readonly ReattachEntry[],
  budget: number,
  textTokens: (text: string) => number,
  index: readonly IndexedFile[] = [],
): Reattachment | undefined {
  if (entries.length === 0 && index.length === 0) return undefined;
  let left = Math.max(0, budget);
  const attached: string[] = [];
  const references: string[] = [];
  const files: ReattachedFile[] = [];
  for (const e of entries) {
    if (e.content && e.content.tokens <= left) {
      left -= e.content.tokens;
      attached.push(e.content.text);
      files.push({ path: e.path, tokens: e.content.tokens, attached: 'content' });
      continue;
    }
    const reason = e.reason ?? NO_ROOM_REASON;
    const line = `${e.reference} — not attached: ${neutralizeUntrusted(reason)}`;
    references.push(line);
    files.push({ path: e.path, tokens: textTokens(line), attached: 'reference', reason });
  }
  const parts = [
    entries.length > 0
      ? `${REATTACH_HEADING}. These are the files you read or edited most recently, as they are now; where earlier messages or the summary disagree with them, these are current.`
      : `${REATTACH_HEADING}: none, the files read or edited most recently are still in the history.`,
  ];
  parts.push(...attached);
  if (references.length > 0) parts.push(`${NOT_ATTACHED_HEADING}\n${references.join('\n')}`);
  const listed = renderFileIndex(index, safePath);
  if (listed !== undefined) parts.push(listed);
  return { text: toWellFormed(`<system-reminder>\n${parts.join('\n\n')}\n</system-reminder>`), files };
}

/** Whether a block is a compaction's re-attach reminder (see {@link reattachBlock}). */
export function isReattachReminder(b: Block): boolean {
  return (
    b.type === 'text' && b.meta.source === 'reminder' && b.text.startsWith(`<system-reminder>\n${REATTACH_HEADING}`)
  );
}

/** The re-attach reminder as a block: injected context (tier 3, source `reminder`), not compactable on its own. */
export function reattachBlock(text: string, deps: { readonly clock: Clock; readonly ids: IdSource }): TextBlock {
  return {
    type: 'text',
    text,
    meta: {
      id: deps.ids.next('blk'),
      tier: 3,
      source: 'reminder',
      createdAt: deps.clock.now(),
      pinned: false,
      compactable: false,
    },
  };
}

/** One file's section: a heading with its size, then its content fenced (a fence longer than any backtick run in it). */
function section(path: string, bytes: number, raw: string): string {
  const text = toWellFormed(neutralizeUntrusted(raw.replace(/^\uFEFF/, '')));
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `File: ${path} (${formatBytes(bytes)})\n${fence}\n${text}${text.endsWith('\n') || text === '' ? '' : '\n'}${fence}`;
}

/** A path as the reminder shows it: one line, at most 300 characters, our tags neutralised. */
function safePath(path: string): string {
  return neutralizeUntrusted(headChars(oneLine(path), 300));
}

function oneLine(s: string): string {
  return toWellFormed(s.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim());
}

/** One line naming a compaction's re-attached files, e.g. `a.ts (1.2k tokens), b.ts (path only)`, for the Compactions view. */
export function describeReattached(files: readonly ReattachedFile[]): string {
  return files
    .map((f) => `${oneLine(f.path)} (${f.attached === 'content' ? `${compactCount(f.tokens)} tokens` : 'path only'})`)
    .join(', ');
}

function compactCount(n: number): string {
  return n < 1000 ? String(Math.round(n)) : `${(n / 1000).toFixed(1)}k`;
}
