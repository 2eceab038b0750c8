/**
 * A session's checkpoints on disk: the prior content of every workspace file the agent
 * changes, kept in the session's own storage — never a git commit, never the user's index or
 * stash; git is never run.
 *
 * Layout, under the folder it is given (e.g. `<globalStorage>/sessions/<id>.files/checkpoints/`):
 * - `checkpoints.jsonl` — the journal (core/rewind/checkpointJournal.ts, journalCodec.ts): a
 *   header, then a `checkpoint` line per user message, a `change` line per file per
 *   checkpoint (its state before, and after when known), `after` lines for later writes;
 * - `blobs/<sha256>` — the bytes of each kept state, written once (blobStore.ts).
 *
 * Caps: a file over `maxFileBytes` (default 2 MB) is not kept, nor anything once the blobs
 * reach `maxTotalBytes` (default 200 MB); the change is recorded as `too-large` and the call
 * returns a notice for the user. A path that is, or lies below, a symbolic link inside the
 * workspace is refused and recorded as such; a path outside the workspace folders is refused
 * and not recorded (workspaceFile.ts).
 *
 * How a session uses it (not wired yet):
 * - `checkpoint(messageId)` when a user message is sent;
 * - `beforeWrite(messageId, absPath)` before a tool writes (or deletes) a workspace file —
 *   edit_file, an MCP tool that writes one —, then `afterWrite` once it has;
 * - around `run_command`: `before = snapshotWorkspace()`, run, `after = snapshotWorkspace()`,
 *   `recordCommand(messageId, diffSnapshots(before, after))` (limits: workspaceSnapshot.ts);
 * - `journal.stateAt` / `journal.changedAfter` and `readBlob` to plan and perform a rewind.
 * Every method but `open` works on an open store and never throws: failures are values.
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  ChangeVia,
  CheckpointJournal,
  FileChange,
  JournalEntry,
  RewoundFile,
} from '../../core/rewind/checkpointJournal';
import { ABSENT, notKeptNotice, type FileRef, type FileState } from '../../core/rewind/fileState';
import { decodeJournal, encodeEntry, JOURNAL_HEADER, type SkippedLine } from '../../core/rewind/journalCodec';
import {
  diffSnapshots,
  type SnapshotDiff,
  type SnapshotFile,
  type WorkspaceSnapshot,
} from '../../core/rewind/snapshotDiff';
import { errorCode } from '../tools/paths';
import type { FilesExclude } from '../tools/workspaceFilter';
import { BlobStore, sha256Of } from './blobStore';
import { locate, readWorkspaceFile, type Located } from './workspaceFile';
import { snapshotWorkspace } from './workspaceSnapshot';

/** The caps of a session's checkpoints. */
export interface CheckpointLimits {
  /** A file larger than this is not kept (its change is recorded as too large). */
  readonly maxFileBytes: number;
  /** What all kept blobs of the session may take together. */
  readonly maxTotalBytes: number;
  /** Files a workspace snapshot lists at most; beyond that it is partial. */
  readonly maxSnapshotFiles: number;
}

/** 2 MB per file, 200 MB per session, 20 000 files per snapshot. */
export const DEFAULT_CHECKPOINT_LIMITS: CheckpointLimits = {
  maxFileBytes: 2_000_000,
  maxTotalBytes: 200_000_000,
  maxSnapshotFiles: 20_000,
};

/** Where a store keeps its files and what it watches. */
export interface CheckpointStoreOptions {
  /** The session's checkpoint folder (created on the first write). */
  readonly folder: string;
  /** The workspace folders, read at each call (folders may be added during a session). */
  readonly roots: () => readonly string[];
  /** `files.exclude`-style globs a snapshot leaves out (besides `.git`, `node_modules` and git-ignored paths). */
  readonly exclude?: () => FilesExclude;
  readonly limits?: Partial<CheckpointLimits>;
}

/** An open store, and the journal lines it skipped (damaged, or not applicable) when reading it back. */
export type OpenedStore =
  | { readonly ok: true; readonly store: CheckpointStore; readonly skipped: readonly SkippedLine[] }
  | { readonly ok: false; readonly error: string };

/**
 * What `beforeWrite` did: the file's change after this checkpoint (`recorded` false when an
 * earlier call of the same checkpoint recorded it), with a notice for the user when its
 * prior content was not kept; or why nothing was recorded (outside the workspace, the
 * journal could not be written).
 */
export type BeforeWrite =
  | { readonly ok: true; readonly change: FileChange; readonly recorded: boolean; readonly notice?: string }
  | { readonly ok: false; readonly error: string };

/** What `afterWrite` did: the change with its new state, or why not. */
export type AfterWrite =
  { readonly ok: true; readonly change: FileChange } | { readonly ok: false; readonly error: string };

/** What `recordCommand` recorded: the changes (new or updated), the notices for the user, and the first failure if any. */
export interface RecordedCommand {
  readonly changes: readonly FileChange[];
  readonly notices: readonly string[];
  readonly error?: string;
}

/** A session's checkpoint storage (see the file comment). Open it with `CheckpointStore.open`. */
export class CheckpointStore {
  /** Entries are appended one at a time, in order, each then applied to the journal. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly pending = new Map<string, Promise<BeforeWrite>>();
  private readonly stamps = new Map<string, SnapshotFile>();

  private constructor(
    private readonly options: CheckpointStoreOptions,
    /** The limits in force. */
    readonly limits: CheckpointLimits,
    private readonly blobs: BlobStore,
    private readonly book: CheckpointJournal,
    private journalState: 'none' | 'ends-with-newline' | 'needs-newline',
  ) {}

  /**
   * Opens the store of `options.folder`: reads its journal back (a damaged line is skipped,
   * with the reason, in `skipped`) and counts its blobs. An error value when the folder or
   * journal exists but cannot be read.
   */
  static async open(options: CheckpointStoreOptions): Promise<OpenedStore> {
    const limits = { ...DEFAULT_CHECKPOINT_LIMITS, ...options.limits };
    const blobs = await BlobStore.open(join(options.folder, 'blobs'), limits.maxTotalBytes);
    if (!blobs.ok) return blobs;
    let text = '';
    try {
      text = await readFile(journalPath(options.folder), 'utf8');
    } catch (e) {
      if (errorCode(e) !== 'ENOENT')
        return { ok: false, error: `The checkpoint journal could not be read (${errorCode(e) ?? String(e)}).` };
    }
    const { journal, skipped } = decodeJournal(text);
    const state = text === '' ? 'none' : text.endsWith('\n') ? 'ends-with-newline' : 'needs-newline';
    return { ok: true, store: new CheckpointStore(options, limits, blobs.blobs, journal, state), skipped };
  }

  /** The journal as recorded so far (read it; the store is its only writer). */
  get journal(): CheckpointJournal {
    return this.book;
  }

  /** The bytes the kept blobs take. */
  get totalBytes(): number {
    return this.blobs.totalBytes;
  }

  /** Records a user message as a checkpoint (once; a known one is left as it is). */
  checkpoint(messageId: string): Promise<{ readonly ok: true } | { readonly ok: false; readonly error: string }> {
    return this.serially(async () => {
      if (this.book.hasCheckpoint(messageId)) return { ok: true } as const;
      return this.append({ type: 'checkpoint', messageId });
    });
  }

  /**
   * Call before a tool writes or deletes the workspace file `absPath`: keeps its content as
   * it is now, once per file per checkpoint `messageId` (the checkpoint is recorded first if
   * it is new). A later call of the same checkpoint returns the recorded change.
   */
  async beforeWrite(messageId: string, absPath: string): Promise<BeforeWrite> {
    const where = await locate(this.options.roots(), absPath);
    if (!where.ok) return where;
    const pairKey = `${messageId}\u0000${where.ref.root}\u0000${where.ref.path}`;
    const known = this.book.changeAt(messageId, where.ref);
    if (known) return { ok: true, change: known, recorded: false };
    const running = this.pending.get(pairKey);
    if (running) return running.then((r) => (r.ok ? { ok: true, change: r.change, recorded: false } : r));
    const work = this.recordBefore(messageId, where);
    this.pending.set(pairKey, work);
    return work.finally(() => this.pending.delete(pairKey));
  }

  /**
   * Call after a tool wrote the workspace file `absPath` whose `beforeWrite` of checkpoint
   * `messageId` was recorded: records (and keeps) the state it left the file in.
   */
  async afterWrite(messageId: string, absPath: string): Promise<AfterWrite> {
    const where = await locate(this.options.roots(), absPath);
    if (!where.ok) return where;
    if (this.book.changeAt(messageId, where.ref) === undefined)
      return { ok: false, error: `No change of ${where.shown} was recorded after checkpoint ${messageId}.` };
    const state = await this.currentState(where);
    return this.serially(async () => {
      const appended = await this.append({ type: 'after', checkpoint: messageId, ...where.ref, state });
      if (!appended.ok) return appended;
      const change = this.book.changeAt(messageId, where.ref);
      return change ? { ok: true, change } : { ok: false, error: `The change of ${where.shown} could not be updated.` };
    });
  }

  /**
   * The workspace's files now (default: the store's workspace folders), each file whose stamp
   * changed since the previous snapshot read and kept — see workspaceSnapshot.ts for what a
   * snapshot lists and the limits of what it sees.
   */
  snapshotWorkspace(roots: readonly string[] = this.options.roots(), signal?: AbortSignal): Promise<WorkspaceSnapshot> {
    return snapshotWorkspace(roots, {
      maxFiles: this.limits.maxSnapshotFiles,
      maxFileBytes: this.limits.maxFileBytes,
      exclude: this.options.exclude?.() ?? {},
      cache: this.stamps,
      keep: (bytes, sha256) => this.blobs.keep(bytes, sha256),
      ...(signal ? { signal } : {}),
    });
  }

  /** The files created, modified and deleted between two snapshots (core/rewind/snapshotDiff.ts). */
  diffSnapshots(before: WorkspaceSnapshot, after: WorkspaceSnapshot): SnapshotDiff {
    return diffSnapshots(before, after);
  }

  /**
   * Records what a shell command of checkpoint `messageId` changed (`diff` of the snapshots
   * taken around it): a change per file new to this checkpoint, else its new state. The
   * notices say which prior contents were not kept, and what the diff could not judge.
   */
  recordCommand(messageId: string, diff: SnapshotDiff): Promise<RecordedCommand> {
    return this.serially(async () => {
      const changes: FileChange[] = [];
      const notices: string[] = diff.notice === undefined ? [] : [diff.notice];
      const multiRoot = new Set(diff.changes.map((c) => c.root)).size > 1 || this.options.roots().length > 1;
      if (!this.book.hasCheckpoint(messageId)) {
        const made = await this.append({ type: 'checkpoint', messageId });
        if (!made.ok) return { changes, notices, error: made.error };
      }
      for (const c of diff.changes) {
        const ref = { root: c.root, path: c.path };
        const known = this.book.changeAt(messageId, ref);
        const entry: JournalEntry = known
          ? { type: 'after', checkpoint: messageId, ...ref, state: c.after }
          : { type: 'change', checkpoint: messageId, ...ref, via: 'command', before: c.before, after: c.after };
        const appended = await this.append(entry);
        if (!appended.ok) return { changes, notices, error: appended.error };
        const change = this.book.changeAt(messageId, ref);
        if (change) changes.push(change);
        const notice = known ? undefined : notKeptNotice(shownPath(ref, multiRoot), c.before);
        if (notice !== undefined) notices.push(notice);
      }
      return { changes, notices };
    });
  }

  /**
   * What the workspace file `ref` is now, its bytes kept as a blob when they fit the caps (so a
   * rewind can bring this content back by undoing itself).
   */
  stateNow(ref: FileRef): Promise<FileState> {
    return this.currentState({ ok: true, ref, abs: join(ref.root, ...ref.path.split('/')), shown: ref.path });
  }

  /** Records that rewind `id` put `files` back to checkpoint `checkpoint` (each with its state before and after). */
  recordRewind(
    id: string,
    checkpoint: string,
    files: readonly RewoundFile[],
  ): Promise<{ readonly ok: true } | { readonly ok: false; readonly error: string }> {
    return this.serially(() => this.append({ type: 'rewind', id, checkpoint, files }));
  }

  /** Records that rewind `id`'s files went forward again. */
  recordUndo(id: string): Promise<{ readonly ok: true } | { readonly ok: false; readonly error: string }> {
    return this.serially(() => this.append({ type: 'undo', id }));
  }

  /** The bytes of the kept blob `sha256` (a `content` state's), checked against its hash. */
  readBlob(sha256: string): ReturnType<BlobStore['read']> {
    return this.blobs.read(sha256);
  }

  private async recordBefore(messageId: string, where: Located): Promise<BeforeWrite> {
    const before = await this.currentState(where);
    return this.serially(async (): Promise<BeforeWrite> => {
      const known = this.book.changeAt(messageId, where.ref);
      if (known) return { ok: true, change: known, recorded: false };
      if (!this.book.hasCheckpoint(messageId)) {
        const made = await this.append({ type: 'checkpoint', messageId });
        if (!made.ok) return made;
      }
      const via: ChangeVia = 'write';
      const appended = await this.append({ type: 'change', checkpoint: messageId, ...where.ref, via, before });
      if (!appended.ok) return appended;
      const change = this.book.changeAt(messageId, where.ref);
      if (change === undefined) return { ok: false, error: `The change of ${where.shown} could not be recorded.` };
      const notice = notKeptNotice(where.shown, before);
      return notice === undefined ? { ok: true, change, recorded: true } : { ok: true, change, recorded: true, notice };
    });
  }

  /** The file's state now, its bytes kept as a blob when they fit the caps. */
  private async currentState(where: Located): Promise<FileState> {
    const read = await readWorkspaceFile(where.ref, this.limits.maxFileBytes);
    switch (read.kind) {
      case 'absent':
        return ABSENT;
      case 'refused':
        return { kind: 'refused', why: read.why, detail: read.detail };
      case 'too-large':
        return { kind: 'too-large', size: read.size, cap: 'file', capBytes: this.limits.maxFileBytes };
      case 'bytes':
        return this.blobs.keep(read.bytes, sha256Of(read.bytes));
    }
  }

  /** Appends one entry to the journal file (the header first, in a new file), then applies it. */
  private async append(
    entry: JournalEntry,
  ): Promise<{ readonly ok: true } | { readonly ok: false; readonly error: string }> {
    const lines = [...(this.journalState === 'none' ? [JOURNAL_HEADER] : []), entry].map(encodeEntry);
    const text = `${this.journalState === 'needs-newline' ? '\n' : ''}${lines.join('\n')}\n`;
    try {
      await mkdir(this.options.folder, { recursive: true });
      await appendFile(journalPath(this.options.folder), text, 'utf8');
    } catch (e) {
      return { ok: false, error: `The checkpoint journal could not be written (${errorCode(e) ?? String(e)}).` };
    }
    this.journalState = 'ends-with-newline';
    const refused = this.book.apply(entry);
    return refused === undefined
      ? { ok: true }
      : { ok: false, error: `The checkpoint journal refused an entry: ${refused}.` };
  }

  /** Runs `work` after every earlier queued one (appends stay in order; checks and writes do not interleave). */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function journalPath(folder: string): string {
  return join(folder, 'checkpoints.jsonl');
}

/** How the chat shows a file: its path, prefixed by its folder's name when several folders are open. */
export function shownPath(ref: { readonly root: string; readonly path: string }, multiRoot: boolean): string {
  if (!multiRoot) return ref.path;
  const name =
    ref.root
      .split(/[\\/]/)
      .filter((s) => s !== '')
      .pop() ?? ref.root;
  return `${name}/${ref.path}`;
}
