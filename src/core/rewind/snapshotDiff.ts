/**
 * What a shell command changed, from two snapshots of the workspace's files taken before and
 * after it (the host takes them: host/rewind/workspaceSnapshot.ts). A snapshot lists each
 * file's size, modification and status-change times, its hash when it was read, and its
 * state as a checkpoint would keep it. A file is created or deleted when only one snapshot
 * lists it, modified when its stamp differs and its hash (when both were read) differs too.
 *
 * A snapshot cut short at its file cap lists the files up to its last one in walk order
 * (depth first, names in code-unit order): only paths both snapshots cover are judged, the
 * others counted as not judged, with a notice. Pure.
 */
import { formatCount, plural } from '../text/counts';
import { ABSENT, type FileRef, type FileState } from './fileState';

/** One file of a snapshot: where it is, its stamp, its hash when read, its state as kept. */
export interface SnapshotFile extends FileRef {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  /** SHA-256 of its bytes, when they were read (not for a file over the per-file cap). */
  readonly sha256?: string;
  /** Its state as a checkpoint keeps it: `content` when its bytes are kept, else why not. */
  readonly state: FileState;
}

/** The workspace's files at one moment. */
export interface WorkspaceSnapshot {
  /** The real paths of the workspace folders walked, in walk order. */
  readonly roots: readonly string[];
  /** By `fileKey`. */
  readonly files: ReadonlyMap<string, SnapshotFile>;
  /**
   * Set when the walk was cut short, at `maxFiles` files (`cap`) or on request (`stopped`):
   * files after `last` in walk order (every file, when `last` is undefined) are not listed.
   */
  readonly partial?: {
    readonly last: FileRef | undefined;
    readonly maxFiles: number;
    readonly cause: 'cap' | 'stopped';
  };
}

/** A file a command created, modified or deleted: its state before and after. */
export interface SnapshotChange extends FileRef {
  readonly kind: 'created' | 'modified' | 'deleted';
  readonly before: FileState;
  readonly after: FileState;
}

/** What changed between two snapshots, and how many paths could not be judged (a partial snapshot). */
export interface SnapshotDiff {
  /** In walk order. */
  readonly changes: readonly SnapshotChange[];
  /** Paths listed by one snapshot only, beyond what the other covers: neither created nor deleted for sure. */
  readonly notJudged: number;
  /** Why some paths were not judged, for the user; undefined when all were. */
  readonly notice?: string;
}

/**
 * Compares two paths in the order a depth-first walk visits them (each folder's names in
 * code-unit order): folder by folder, segment by segment; roots by their place in `roots`.
 */
export function walkOrder(roots: readonly string[], a: FileRef, b: FileRef): number {
  const ra = roots.indexOf(a.root);
  const rb = roots.indexOf(b.root);
  if (ra !== rb) return ra - rb;
  const sa = a.path.split('/');
  const sb = b.path.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const x = sa[i] as string;
    const y = sb[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return sa.length - sb.length;
}

/** Whether `snapshot` would list `ref` if it existed: its root was walked, and the walk reached it. */
export function covers(snapshot: WorkspaceSnapshot, ref: FileRef): boolean {
  if (!snapshot.roots.includes(ref.root)) return false;
  if (snapshot.partial === undefined) return true;
  const last = snapshot.partial.last;
  return last !== undefined && walkOrder(snapshot.roots, ref, last) <= 0;
}

/** Whether a file's two stamps show the same content: same size and times, or the same hash. */
function unchanged(a: SnapshotFile, b: SnapshotFile): boolean {
  if (a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs) return true;
  return a.size === b.size && a.sha256 !== undefined && a.sha256 === b.sha256;
}

/**
 * The files created, modified and deleted between `before` and `after` (see the file
 * comment), with each one's state before and after.
 */
export function diffSnapshots(before: WorkspaceSnapshot, after: WorkspaceSnapshot): SnapshotDiff {
  const changes: SnapshotChange[] = [];
  let notJudged = 0;
  for (const [key, was] of before.files) {
    const now = after.files.get(key);
    if (now === undefined) {
      if (covers(after, was))
        changes.push({ root: was.root, path: was.path, kind: 'deleted', before: was.state, after: ABSENT });
      else notJudged++;
    } else if (!unchanged(was, now))
      changes.push({ root: was.root, path: was.path, kind: 'modified', before: was.state, after: now.state });
  }
  for (const [key, now] of after.files) {
    if (before.files.has(key)) continue;
    if (covers(before, now))
      changes.push({ root: now.root, path: now.path, kind: 'created', before: ABSENT, after: now.state });
    else notJudged++;
  }
  const roots = [...before.roots, ...after.roots.filter((r) => !before.roots.includes(r))];
  changes.sort((a, b) => walkOrder(roots, a, b));
  if (notJudged === 0) return { changes, notJudged };
  const partial = before.partial?.cause === 'cap' ? before.partial : (after.partial ?? before.partial);
  const why =
    partial === undefined
      ? 'a workspace folder was added or removed while it ran'
      : partial.cause === 'cap'
        ? `the workspace has more than ${formatCount(partial.maxFiles)} files, and a checkpoint looks at the first ${formatCount(partial.maxFiles)} only`
        : 'the look at the workspace was stopped';
  return {
    changes,
    notJudged,
    notice: `Checkpoint: ${plural(notJudged, 'file')} the command may have created or deleted could not be checked (${why}); those changes are not kept.`,
  };
}
