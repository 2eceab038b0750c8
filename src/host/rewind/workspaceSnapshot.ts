/**
 * A snapshot of the workspace's files, taken before and after a shell command so that
 * core/rewind/snapshotDiff.ts can tell which files the command created, modified or deleted.
 * Each file gets its size, modification and status-change times and, when those differ from
 * the stamp cached from the previous snapshot (or it is new), its bytes are read, hashed and
 * kept as a blob (so its content before the command is there to put back); an unchanged stamp
 * reuses the cached hash and state without reading the file.
 *
 * What it lists: the regular files of each workspace folder, walked depth first in name
 * order, not following symbolic links, leaving out `.git` and `node_modules` folders (at any
 * depth), what `.gitignore` files hide and the `files.exclude`-style globs given — git's
 * tracked and untracked files, roughly, found without running git — at most `maxFiles`
 * files (beyond that the snapshot is partial and says where it stopped).
 *
 * Limits — what a command can change that a checkpoint does not see:
 * - files outside the workspace folders (a home folder's dotfiles, /tmp, global installs);
 * - files in the folders it skips (`.git`: commits, the index, the stash; `node_modules`;
 *   git-ignored and excluded paths: build outputs, an ignored `.env`, even a file git tracks
 *   although it is ignored) and files reached through symbolic links (nor the links);
 * - files past the `maxFiles` cap (their creation or deletion is counted as not judged);
 * - a change undone before the command ends (a file rewritten with its old bytes, or deleted
 *   and created again identical), which leaves nothing to put back anyway, and a change that
 *   keeps a file's size and both its times (only a write within the file system's timestamp
 *   granularity right after the first snapshot read it, or a changed clock, can do that);
 * - the content of a file over the per-file cap (its change is seen from its size and times,
 *   its prior bytes are not kept), or of any file once the session's total cap is reached;
 * - changes made by other programs while the command runs, which are taken for the command's;
 * - the cost: each snapshot stats every listed file and reads the ones whose stamp changed;
 *   the first one of a session reads (and keeps, up to the total cap) every listed file.
 */
import { lstat, realpath } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { fileKey, type FileRef, type FileState } from '../../core/rewind/fileState';
import type { SnapshotFile, WorkspaceSnapshot } from '../../core/rewind/snapshotDiff';
import { walk } from '../tools/walk';
import { WorkspaceFilter, type FilesExclude } from '../tools/workspaceFilter';
import { sha256Of } from './blobStore';
import { readRegularFile } from './workspaceFile';

/** What a snapshot needs besides the folders: its caps, the excludes, the stamp cache and where blobs are kept. */
export interface SnapshotDeps {
  readonly maxFiles: number;
  readonly maxFileBytes: number;
  /** `files.exclude`-style globs (relative to each folder, or absolute) of paths left out. */
  readonly exclude: FilesExclude;
  /** The stamps of the previous snapshot, by `fileKey`; updated in place. */
  readonly cache: Map<string, SnapshotFile>;
  /** Keeps a file's bytes as a blob (or says why not). */
  readonly keep: (bytes: Uint8Array, sha256: string) => Promise<FileState>;
  /** Stops the walk: the snapshot is then partial. */
  readonly signal?: AbortSignal;
}

/** Folders never walked, at any depth. */
const SKIPPED_FOLDERS = new Set(['.git', 'node_modules']);

/** The workspace's files now (see the file comment); never throws — an unreadable entry is left out. */
export async function snapshotWorkspace(roots: readonly string[], deps: SnapshotDeps): Promise<WorkspaceSnapshot> {
  const real: string[] = [];
  for (const root of roots) {
    const path = await realpath(resolve(root)).catch(() => undefined);
    if (path !== undefined && !real.includes(path)) real.push(path);
  }
  const files = new Map<string, SnapshotFile>();
  const signal = deps.signal ?? new AbortController().signal;
  let last: FileRef | undefined;
  let cut: 'cap' | 'stopped' | undefined;
  for (const root of real) {
    const summary = await walk(
      // A new filter per snapshot, so a .gitignore changed since is read again.
      {
        root,
        start: root,
        filter: new WorkspaceFilter(root, deps.exclude),
        recursive: true,
        maxEntries: Infinity,
        signal,
      },
      async (entry) => {
        if (entry.isSymlink) return 'skip';
        if (entry.isDir) return SKIPPED_FOLDERS.has(basename(entry.abs)) ? 'skip' : 'continue';
        if (files.size >= deps.maxFiles) return 'stop';
        const ref: FileRef = { root, path: entry.rel };
        const file = await stampOf(ref, entry.abs, deps);
        if (file !== undefined) {
          files.set(fileKey(ref), file);
          last = ref;
        }
        return 'continue';
      },
    );
    cut = summary.stopped ? 'cap' : summary.aborted ? 'stopped' : undefined;
    if (cut !== undefined) break;
  }
  const snapshot: WorkspaceSnapshot = { roots: real, files };
  if (cut !== undefined) return { ...snapshot, partial: { last, maxFiles: deps.maxFiles, cause: cut } };
  for (const key of [...deps.cache.keys()]) if (!files.has(key)) deps.cache.delete(key);
  return snapshot;
}

/** The stamp of the file at `abs`: the cached one when its size and times match, else read, hashed and kept. */
async function stampOf(ref: FileRef, abs: string, deps: SnapshotDeps): Promise<SnapshotFile | undefined> {
  const key = fileKey(ref);
  const stats = await lstat(abs).catch(() => undefined);
  if (stats === undefined || !stats.isFile()) return undefined;
  const cached = deps.cache.get(key);
  if (
    cached !== undefined &&
    cached.size === stats.size &&
    cached.mtimeMs === stats.mtimeMs &&
    cached.ctimeMs === stats.ctimeMs
  )
    return cached;
  const read = await readRegularFile(abs, deps.maxFileBytes);
  let file: SnapshotFile;
  switch (read.kind) {
    case 'absent':
    case 'refused':
      return undefined; // gone, or no longer a regular file, since the walk listed it
    case 'too-large': {
      const { size, mtimeMs, ctimeMs } = read.stats;
      file = {
        ...ref,
        size,
        mtimeMs,
        ctimeMs,
        state: { kind: 'too-large', size, cap: 'file', capBytes: deps.maxFileBytes },
      };
      break;
    }
    case 'bytes': {
      const { mtimeMs, ctimeMs } = read.stats;
      const sha256 = sha256Of(read.bytes);
      const size = read.bytes.byteLength;
      file = { ...ref, size, mtimeMs, ctimeMs, sha256, state: await deps.keep(read.bytes, sha256) };
      break;
    }
  }
  deps.cache.set(key, file);
  return file;
}
