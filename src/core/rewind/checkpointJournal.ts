/**
 * The checkpoint model: a session's journal of the workspace files the agent changed. Each
 * user message is a checkpoint (its message id), the files as they were when it was sent.
 * Each change records the checkpoint it happened after (the newest user message when the tool
 * wrote), the file, how it was changed (a tool's write, or found changed after a shell
 * command), the file's state before the first change of that checkpoint (once per file per
 * checkpoint) and, when known, its state after the newest one.
 *
 * From it: what a file was at a checkpoint (`stateAt`: the prior state the first change
 * after it recorded, else the file is as it is now) and which files changed after a
 * checkpoint (`changedAfter`), the basis of a rewind plan. Stored as JSON lines
 * (`checkpoints.jsonl`, journalCodec.ts); the host appends an entry, then `apply`s it here.
 * Pure: no I/O.
 */
import { fileKey, type FileRef, type FileState } from './fileState';

/** The `format` value of a journal's header line. */
export const JOURNAL_FORMAT = 'context-pipeline-checkpoints';
/** The journal format version this code writes and reads. */
export const JOURNAL_VERSION = 1;

/** How a file was changed: a tool wrote it (edit_file, an MCP tool…), or a shell command was found to have changed it. */
export type ChangeVia = 'write' | 'command';

/** One line of the journal. */
export type JournalEntry =
  | { readonly type: 'header'; readonly format: typeof JOURNAL_FORMAT; readonly version: typeof JOURNAL_VERSION }
  /** A user message was sent: a checkpoint, in order. */
  | { readonly type: 'checkpoint'; readonly messageId: string }
  /** The first change of a file after `checkpoint`: its state before, and after when known. */
  | {
      readonly type: 'change';
      readonly checkpoint: string;
      readonly root: string;
      readonly path: string;
      readonly via: ChangeVia;
      readonly before: FileState;
      readonly after?: FileState;
    }
  /** The state a file was left in by a later write of the same checkpoint (replaces the change's `after`). */
  | {
      readonly type: 'after';
      readonly checkpoint: string;
      readonly root: string;
      readonly path: string;
      readonly state: FileState;
    }
  /**
   * A rewind `id` put files back to checkpoint `checkpoint`: per file, its state just before
   * (kept, so an undo can bring it forward again) and the state the rewind wrote.
   */
  | {
      readonly type: 'rewind';
      readonly id: string;
      readonly checkpoint: string;
      readonly files: readonly RewoundFile[];
    }
  /** Rewind `id` was undone: its files went forward to their `before` again. */
  | { readonly type: 'undo'; readonly id: string };

/** One file of a rewind: its state just before the rewind, and the state the rewind left it in. */
export interface RewoundFile extends FileRef {
  readonly before: FileState;
  readonly after: FileState;
}

/** A rewind of files as the journal holds it. */
export interface FileRewind {
  readonly id: string;
  readonly checkpoint: string;
  readonly files: readonly RewoundFile[];
  readonly undone: boolean;
}

/** A file's changes after one checkpoint, as the journal holds them. */
export interface FileChange extends FileRef {
  /** The message id of the user message the change happened after. */
  readonly checkpoint: string;
  /** How the first change of this checkpoint was made. */
  readonly via: ChangeVia;
  /** The file before the checkpoint's first change to it. */
  readonly before: FileState;
  /** The file after the checkpoint's newest change to it, when recorded. */
  readonly after?: FileState;
}

/**
 * What a file was at a checkpoint: `changed` with the state the first change after it
 * recorded, or `changed: false` — no change was recorded since, the file is as it is now.
 * Refused when the checkpoint is not in the journal.
 */
export type FileAtCheckpoint =
  | { readonly ok: true; readonly changed: true; readonly state: FileState; readonly change: FileChange }
  | { readonly ok: true; readonly changed: false }
  | { readonly ok: false; readonly reason: string };

/** A file changed after a checkpoint: its state then (`before`), its newest recorded state, and its changes in order. */
export interface ChangedFile extends FileRef {
  readonly before: FileState;
  /** The newest change's `after`; undefined when it was not recorded. */
  readonly after?: FileState;
  readonly changes: readonly FileChange[];
}

/** The files changed after a checkpoint, in the order of their first change; refused for an unknown checkpoint. */
export type ChangedSince =
  { readonly ok: true; readonly files: readonly ChangedFile[] } | { readonly ok: false; readonly reason: string };

/** A change and its checkpoint's place in the order; `change` is replaced (never mutated) by an `after` entry. */
interface Held {
  change: FileChange;
  readonly at: number;
}

/**
 * A session's checkpoints and file changes in memory, built by applying the journal's
 * entries in order (see the file comment). Never throws: an entry that cannot apply is
 * refused with a reason and leaves the journal as it was.
 */
export class CheckpointJournal {
  private readonly order: string[] = [];
  private readonly position = new Map<string, number>();
  private readonly held: Held[] = [];
  private readonly byFile = new Map<string, Held[]>();
  private readonly byCheckpointFile = new Map<string, Held>();
  private readonly rewindsById = new Map<string, FileRewind>();
  /** The newest state each file was known to be left in (by the agent's writes, a rewind, an undo). */
  private readonly known = new Map<string, FileState>();

  /** The checkpoints (user message ids) in the order they were sent. */
  get checkpoints(): readonly string[] {
    return this.order;
  }

  /** Every change, in the order recorded (each a value: a later `after` entry makes a new one). */
  get changes(): readonly FileChange[] {
    return this.held.map((h) => h.change);
  }

  /** The rewind `id`, if the journal holds it. */
  rewind(id: string): FileRewind | undefined {
    return this.rewindsById.get(id);
  }

  /**
   * The state `ref` was last known to be left in — by the agent's newest recorded write, a
   * rewind or an undo, whichever came last; undefined when nothing recorded it. A file whose
   * content on disk is not this was changed by someone else since (a conflict for a rewind).
   */
  lastKnown(ref: FileRef): FileState | undefined {
    return this.known.get(fileKey(ref));
  }

  /** Whether `messageId` is a checkpoint of this journal. */
  hasCheckpoint(messageId: string): boolean {
    return this.position.has(messageId);
  }

  /** The change recorded for `ref` after `checkpoint` (before any later checkpoint), if any. */
  changeAt(checkpoint: string, ref: FileRef): FileChange | undefined {
    return this.byCheckpointFile.get(pairKey(checkpoint, ref))?.change;
  }

  /**
   * Applies one entry; returns undefined when applied, else why it was not (a duplicate, an
   * `after` without its change, a header of another format). A change after a checkpoint the
   * journal does not list (its line lost) adds that checkpoint at this point in the order.
   */
  apply(entry: JournalEntry): string | undefined {
    switch (entry.type) {
      case 'header':
        return entry.format === JOURNAL_FORMAT && entry.version === JOURNAL_VERSION
          ? undefined
          : `a header of another format (${String(entry.format)} ${String(entry.version)})`;
      case 'checkpoint':
        if (this.position.has(entry.messageId)) return `checkpoint ${entry.messageId} is listed twice`;
        this.addCheckpoint(entry.messageId);
        return undefined;
      case 'change': {
        const ref = { root: entry.root, path: entry.path };
        const pair = pairKey(entry.checkpoint, ref);
        if (this.byCheckpointFile.has(pair))
          return `${entry.path} already has a change after checkpoint ${entry.checkpoint}`;
        if (!this.position.has(entry.checkpoint)) this.addCheckpoint(entry.checkpoint);
        const change: FileChange = { checkpoint: entry.checkpoint, ...ref, via: entry.via, before: entry.before };
        const held: Held = {
          change: entry.after === undefined ? change : { ...change, after: entry.after },
          at: this.position.get(entry.checkpoint) ?? 0,
        };
        this.held.push(held);
        this.byCheckpointFile.set(pair, held);
        if (entry.after !== undefined) this.known.set(fileKey(ref), entry.after);
        const key = fileKey(ref);
        const list = this.byFile.get(key);
        if (list) list.push(held);
        else this.byFile.set(key, [held]);
        return undefined;
      }
      case 'after': {
        const held = this.byCheckpointFile.get(pairKey(entry.checkpoint, entry));
        if (held === undefined) return `${entry.path} has no change after checkpoint ${entry.checkpoint}`;
        held.change = { ...held.change, after: entry.state };
        this.known.set(fileKey(entry), entry.state);
        return undefined;
      }
      case 'rewind': {
        if (this.rewindsById.has(entry.id)) return `rewind ${entry.id} is listed twice`;
        this.rewindsById.set(entry.id, {
          id: entry.id,
          checkpoint: entry.checkpoint,
          files: entry.files,
          undone: false,
        });
        for (const f of entry.files) this.known.set(fileKey(f), f.after);
        return undefined;
      }
      case 'undo': {
        const r = this.rewindsById.get(entry.id);
        if (!r) return `no rewind ${entry.id} to undo`;
        if (r.undone) return `rewind ${entry.id} was already undone`;
        this.rewindsById.set(entry.id, { ...r, undone: true });
        for (const f of r.files) this.known.set(fileKey(f), f.before);
        return undefined;
      }
    }
  }

  /**
   * What `ref` was at checkpoint `messageId` — when that message was sent: the state recorded
   * by the first change to it after the checkpoint (that checkpoint's or a later one's), else
   * `changed: false` (it is as it is now).
   */
  stateAt(ref: FileRef, messageId: string): FileAtCheckpoint {
    const at = this.position.get(messageId);
    if (at === undefined) return { ok: false, reason: unknownCheckpoint(messageId) };
    let first: Held | undefined;
    for (const h of this.byFile.get(fileKey(ref)) ?? [])
      if (h.at >= at && (first === undefined || h.at < first.at)) first = h;
    return first
      ? { ok: true, changed: true, state: first.change.before, change: first.change }
      : { ok: true, changed: false };
  }

  /**
   * The files changed after checkpoint `messageId` (by its own turn or any later one), each
   * with its state at the checkpoint and its newest recorded state, in the order of their
   * first change.
   */
  changedAfter(messageId: string): ChangedSince {
    const at = this.position.get(messageId);
    if (at === undefined) return { ok: false, reason: unknownCheckpoint(messageId) };
    const files = new Map<string, Held[]>();
    for (const h of this.held) {
      if (h.at < at) continue;
      const key = fileKey(h.change);
      const list = files.get(key);
      if (list) list.push(h);
      else files.set(key, [h]);
    }
    return {
      ok: true,
      files: [...files.values()].map((list) => {
        const changes = list.map((h) => h.change);
        const first = changes[0] as FileChange;
        const last = changes[changes.length - 1] as FileChange;
        const file: ChangedFile = { root: first.root, path: first.path, before: first.before, changes };
        return last.after === undefined ? file : { ...file, after: last.after };
      }),
    };
  }

  private addCheckpoint(messageId: string): void {
    this.position.set(messageId, this.order.length);
    this.order.push(messageId);
  }
}

function pairKey(checkpoint: string, ref: FileRef): string {
  return `${checkpoint}\u0000${fileKey(ref)}`;
}

function unknownCheckpoint(messageId: string): string {
  return `no checkpoint ${messageId} in this session's journal`;
}
