/**
 * The file index of a compaction: every other file the agent read or edited earlier in the
 * session, named (not attached) in the re-attach reminder, so a summary never makes the agent
 * forget which files it has worked on. Files re-attached with content are not repeated, nor
 * files the kept history still shows a call for. The index is carried from one compaction to
 * the next: a reminder being compacted hands its files (attached or named) to the new one.
 * Pure.
 */
import type { Message } from '../conversation/conversationModel';
import { toolResultSites } from './layerContext';
import { fileKey, fileTouches, reattachCandidates, type ReattachCandidate } from './reattachCandidates';
import { shellFileTouches } from '../tools/shellFiles';
import { classifyToolCall } from '../tools/toolKinds';

/** The line that opens the index inside a re-attach reminder. */
export const FILE_INDEX_HEADING =
  'Other files read or edited earlier in this session, most recent first (not attached; read one again before relying on its content):';

/** The index names at most this many files (about 15 tokens each). */
export const FILE_INDEX_MAX = 40;

/** The heading of a reminder's list of files it could not attach (reattach.ts renders it). */
export const NOT_ATTACHED_HEADING = 'Not attached:';

/** A file of the index. */
export interface IndexedFile {
  /** The path as the model last wrote it. */
  readonly path: string;
  /** Whether a successful edit of it is known. */
  readonly edited: boolean;
}

interface Touch {
  readonly path: string;
  readonly key: string;
  readonly edited: boolean;
  readonly at: number;
}

/**
 * The index for a compaction of `before` (the whole history before it) that leaves `after`:
 * the distinct files read or edited by a successful call in `before`, or named by a reminder
 * standing in `before`, most recent first, at most `max` — leaving out the keys in `exclude`
 * (the files this compaction re-attaches) and files `after` still shows: a read or edit call
 * naming them, or a reminder standing there that names them.
 */
export function fileIndex(
  before: readonly Message[],
  after: readonly Message[],
  exclude: ReadonlySet<string>,
  max = FILE_INDEX_MAX,
): IndexedFile[] {
  const raw = fileTouchesOf(before);
  const kept = fileTouchesOf(after);
  const canon = canonicalKey([...raw, ...kept].map((t) => t.key).concat([...exclude]));
  const touches = raw.map((t) => ({ ...t, key: canon(t.key) }));
  const hidden = new Set([...exclude].map(canon));
  for (const t of kept) hidden.add(canon(t.key));
  const edited = new Set(touches.filter((t) => t.edited).map((t) => t.key));
  const out: IndexedFile[] = [];
  const seen = new Set<string>();
  for (let i = touches.length - 1; i >= 0 && out.length < max; i--) {
    const t = touches[i] as Touch;
    if (t.key === '' || seen.has(t.key)) continue;
    seen.add(t.key);
    if (!hidden.has(t.key)) out.push({ path: t.path, edited: edited.has(t.key) });
  }
  return out;
}

/**
 * One key per file among `keys`: a relative path that exactly one absolute path among them
 * ends with (`lib/a.ex` after `cd /ws/app`, and `/ws/app/lib/a.ex` read by a file tool) maps
 * to that absolute path; every other key maps to itself.
 */
function canonicalKey(keys: readonly string[]): (key: string) => string {
  const absolute = [...new Set(keys.filter(isAbsolute))];
  const memo = new Map<string, string>();
  return (key) => {
    if (key === '' || isAbsolute(key)) return key;
    let out = memo.get(key);
    if (out === undefined) {
      const matches = absolute.filter((a) => a.endsWith(`/${key}`));
      out = matches.length === 1 ? (matches[0] as string) : key;
      memo.set(key, out);
    }
    return out;
  };
}

function isAbsolute(key: string): boolean {
  return key.startsWith('/') || /^[A-Za-z]:\//.test(key);
}

/** The index as a reminder section (one path a line), or undefined when it is empty. */
export function renderFileIndex(files: readonly IndexedFile[], safePath: (path: string) => string): string | undefined {
  if (files.length === 0) return undefined;
  return [FILE_INDEX_HEADING, ...files.map((f) => `- ${safePath(f.path)}${f.edited ? ' (edited)' : ''}`)].join('\n');
}

/** Files touched in `messages`, oldest first: the files reminders name, then successful read/edit calls, message by message. */
function fileTouchesOf(messages: readonly Message[]): Touch[] {
  const named = messages.flatMap((m, at) =>
    m.blocks.flatMap((b) =>
      b.type === 'text' && b.meta.source === 'reminder'
        ? reminderFiles(b.text)
            .reverse()
            .map((f) => ({ path: f.path, key: fileKey(f.path), edited: f.edited, at }))
        : [],
    ),
  );
  const called = fileTouches(messages).map((t) => ({
    path: t.path,
    key: t.key,
    edited: t.kind === 'edit',
    at: t.messageIndex,
  }));
  // Files a successful shell command read or wrote (`cat`, `sed -n`, `grep … file`, `> file`).
  const shell = toolResultSites(messages).flatMap((site) => {
    const input = site.use?.input;
    const command = typeof input === 'object' && input !== null ? (input as { command?: unknown }).command : undefined;
    if (site.block.isError || !site.use || typeof command !== 'string' || classifyToolCall(site.use).kind !== 'run')
      return [];
    return shellFileTouches(command).map((f) => ({ ...f, key: fileKey(f.path), at: site.messageIndex }));
  });
  // A stable sort: in one message, a reminder's files come before its calls' results.
  return [...named, ...called, ...shell].sort((a, b) => a.at - b.at);
}

/**
 * What a compaction of `before` that leaves `after` re-attaches (reattachCandidates.ts) and
 * names in its index; one home for the run (reattachRun.ts) and Compact Now's preview.
 */
export function reattachSelection(
  before: readonly Message[],
  after: readonly Message[],
): { readonly candidates: ReattachCandidate[]; readonly index: IndexedFile[] } {
  const candidates = reattachCandidates(before, after);
  return { candidates, index: fileIndex(before, after, new Set(candidates.map((c) => c.key))) };
}

/** Where in a re-attach reminder a file is named: with its content, as a not-attached reference, or in the index. */
export type ReminderPart = 'attached' | 'reference' | 'index';

/** A file a re-attach reminder names, and where. */
export interface ReminderFile extends IndexedFile {
  readonly part: ReminderPart;
}

/**
 * The files a re-attach reminder names, in its order (most recent first): the attached
 * sections' `File: path (size)` headings (their fenced content skipped, so a file's text never
 * adds a path), the not-attached references, and the index. Empty for any other text.
 */
export function reminderFiles(text: string): ReminderFile[] {
  const lines = text.split('\n');
  const out: ReminderFile[] = [];
  let list: ReminderPart | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const file = /^File: (.+) \([^()]*\)$/.exec(line);
    const fence = lines[i + 1];
    if (file && fence !== undefined && /^`{3,}$/.test(fence)) {
      out.push({ path: file[1] as string, edited: false, part: 'attached' });
      const close = lines.indexOf(fence, i + 2);
      i = close < 0 ? lines.length : close;
      list = undefined;
      continue;
    }
    if (line === NOT_ATTACHED_HEADING || line === FILE_INDEX_HEADING) {
      list = line === FILE_INDEX_HEADING ? 'index' : 'reference';
      continue;
    }
    if (list === undefined || !line.startsWith('- ')) {
      list = undefined;
      continue;
    }
    const edited = line.endsWith(' (edited)');
    const path = line
      .slice(2)
      .replace(/ — not attached: .*$/, '')
      .replace(/ \([^()]*\)$/, '')
      .trim();
    if (path !== '') out.push({ path, edited, part: list });
  }
  return out;
}

/** One line naming indexed files for the Compactions view, e.g. `a.ts (edited), b.ts`. */
export function describeIndexed(files: readonly IndexedFile[]): string {
  return files.map((f) => `${f.path.replace(/[\u0000-\u001f\u007f]+/g, ' ')}${f.edited ? ' (edited)' : ''}`).join(', ');
}
