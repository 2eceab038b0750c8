/**
 * A depth-first walk of a workspace folder in sorted order that leaves out hidden entries
 * (see WorkspaceFilter), never follows symbolic links into folders, and stops on request,
 * on abort, or after a fixed number of entries.
 */
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { WorkspaceFilter } from './workspaceFilter';

/** One entry the walk visits. */
export interface WalkEntry {
  /** Absolute path (below the real root, not resolved further). */
  readonly abs: string;
  /** Relative to the workspace root, `/`-separated. */
  readonly rel: string;
  /** A folder, or a symbolic link to one. */
  readonly isDir: boolean;
  readonly isSymlink: boolean;
}

/** What a visitor tells the walk: go on, don't descend into this folder, or stop. */
export type WalkVerdict = 'continue' | 'skip' | 'stop';

/** How a walk ended. */
export interface WalkSummary {
  readonly visited: number;
  /** The walk stopped after `maxEntries` entries. */
  readonly hitEntryLimit: boolean;
  readonly aborted: boolean;
  /** A visitor returned 'stop'. */
  readonly stopped: boolean;
}

/** Where and how to walk. */
export interface WalkOptions {
  /** Real path of the workspace folder (`rel` is relative to it). */
  readonly root: string;
  /** Real path of the folder to walk (the root or a folder below it). */
  readonly start: string;
  /** Hidden entries are skipped; without a filter only `.git` is. */
  readonly filter: WorkspaceFilter | undefined;
  readonly recursive: boolean;
  readonly maxEntries: number;
  readonly signal: AbortSignal;
}

/**
 * Visits every shown entry below `start` depth-first (a folder, then its contents; names in
 * code-unit order), awaiting `visit` for each. Unreadable folders are skipped. Never throws for file
 * system errors; exceptions from `visit` propagate.
 */
export async function walk(
  options: WalkOptions,
  visit: (entry: WalkEntry) => WalkVerdict | Promise<WalkVerdict>,
): Promise<WalkSummary> {
  const state = { visited: 0, hitEntryLimit: false, stopped: false };
  const done = () => state.stopped || state.hitEntryLimit || options.signal.aborted;

  const walkDir = async (dir: string): Promise<void> => {
    for (const child of await sortedChildren(dir)) {
      if (done()) return;
      if (state.visited >= options.maxEntries) {
        state.hitEntryLimit = true;
        return;
      }
      const entry = await toEntry(options.root, dir, child);
      if (entry === undefined || child.name === '.git') continue;
      if (options.filter && (await options.filter.hiddenReason(entry.rel, entry.isDir)) !== undefined) continue;
      state.visited++;
      const verdict = await visit(entry);
      if (verdict === 'stop') state.stopped = true;
      else if (verdict === 'continue' && options.recursive && entry.isDir && !entry.isSymlink) await walkDir(entry.abs);
    }
  };

  await walkDir(options.start);
  return {
    visited: state.visited,
    hitEntryLimit: state.hitEntryLimit,
    aborted: options.signal.aborted,
    stopped: state.stopped,
  };
}

async function sortedChildren(dir: string): Promise<Dirent[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

async function toEntry(root: string, dir: string, d: Dirent): Promise<WalkEntry | undefined> {
  const abs = join(dir, d.name);
  const rel = relative(root, abs).split(sep).join('/');
  if (d.isDirectory()) return { abs, rel, isDir: true, isSymlink: false };
  if (d.isFile()) return { abs, rel, isDir: false, isSymlink: false };
  if (!d.isSymbolicLink()) return undefined; // sockets, FIFOs, devices
  try {
    const target = await stat(abs);
    if (!target.isDirectory() && !target.isFile()) return undefined;
    return { abs, rel, isDir: target.isDirectory(), isSymlink: true };
  } catch {
    return undefined; // dangling link
  }
}
