/**
 * File operations on resolved paths that check confinement again at the moment they
 * happen, so that a folder swapped for a symbolic link (or a link flipped) between the
 * path check and the operation cannot make a read return, or a write land, outside the
 * workspace (a time-of-check/time-of-use race).
 *
 * - Reading opens the file first (not following a final link), then proves that what was
 *   opened is the file inside the folder: the realpath of the path is still inside and names
 *   the same file (device and inode) as the open descriptor.
 * - Writing creates missing folders one at a time, checking each; takes the realpath of the
 *   parent folder right before the write and requires it to be the very folder the path was
 *   resolved to; writes a temporary file in that verified folder, checks the folder and the
 *   temporary file again, and renames it over the target.
 */
import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errorCode, isInside, type WorkspaceRoot } from './paths';

/** A file opened for reading and proven to be inside its folder; the caller closes `handle`. */
export interface OpenedFile {
  readonly ok: true;
  readonly handle: FileHandle;
  /** fstat of the open descriptor. */
  readonly stats: Stats;
}

/** Why a confined operation was refused or failed: a sentence for the model. */
export interface ConfinedError {
  readonly ok: false;
  readonly error: string;
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** Opening a FIFO must not block until a writer appears; regular files ignore the flag. */
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * Opens `path` (a real path, as resolved) read-only and checks, after opening, that it is
 * still inside one of `allowed` and is the very file that was opened. `shown` names the
 * path in error text. Never throws; on a refusal nothing stays open.
 */
export async function openConfined(
  path: string,
  allowed: readonly WorkspaceRoot[],
  shown: string,
): Promise<OpenedFile | ConfinedError> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (e) {
    return { ok: false, error: openError(e, shown) };
  }
  try {
    const stats = await handle.stat();
    const moved = await leftFolder(path, stats, allowed, shown);
    if (moved !== undefined) {
      await handle.close();
      return { ok: false, error: moved };
    }
    return { ok: true, handle, stats };
  } catch (e) {
    await handle.close().catch(() => undefined);
    return { ok: false, error: `${shown} could not be opened (${errorCode(e) ?? String(e)}).` };
  }
}

/**
 * Replaces (or creates) the file at `path` (a real path inside `root`, as resolved) with
 * `content` (UTF-8), atomically, after checking at the moment of the write that its folder
 * is still the real folder it was resolved to. An existing file keeps its permission bits;
 * missing parent folders are created, each checked. Never throws: returns why it did not
 * write (a write that was refused leaves the target untouched).
 */
export async function writeConfined(
  path: string,
  root: WorkspaceRoot,
  content: string,
  shown: string,
): Promise<{ readonly ok: true } | ConfinedError> {
  const dir = dirname(path);
  const made = await makeFolders(dir, root, shown);
  if (made !== undefined) return { ok: false, error: made };
  const changed = await folderChanged(dir, root, shown);
  if (changed !== undefined) return { ok: false, error: changed };

  const existing = await lstat(path).catch(() => undefined);
  const mode = existing?.isFile() ? existing.mode & 0o7777 : undefined;
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let handle: FileHandle | undefined;
  try {
    handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o666);
    await handle.writeFile(content, 'utf8');
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
    const written = await handle.stat();
    await handle.close();
    handle = undefined;
    // The folder and the temporary file, checked again right before the rename.
    const now =
      (await folderChanged(dir, root, shown)) ??
      (sameFile(written, await lstat(temp))
        ? undefined
        : `${shown} was not written: its folder changed during the write.`);
    if (now !== undefined) {
      await unlink(temp).catch(() => undefined);
      return { ok: false, error: now };
    }
    await rename(temp, path);
    return { ok: true };
  } catch (e) {
    await handle?.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    return {
      ok: false,
      error: `${shown} could not be written (${errorCode(e) ?? (e instanceof Error ? e.message : String(e))}).`,
    };
  }
}

/** Why the opened file (`opened`, at `path`) is not, or no longer, the file inside `allowed`; undefined when it is. */
async function leftFolder(
  path: string,
  opened: Stats,
  allowed: readonly WorkspaceRoot[],
  shown: string,
): Promise<string | undefined> {
  const real = await realpath(path).catch(() => undefined);
  if (real === undefined) return `${shown} disappeared while it was being opened; try again.`;
  if (!allowed.some((r) => isInside(r.path, real)))
    return `${shown} now leads outside the workspace (to ${real}): a folder or link on its path changed. It was not read.`;
  const there = await stat(real).catch(() => undefined);
  if (there === undefined || !sameFile(opened, there))
    return `${shown} changed while it was being opened (a folder or link on its path was replaced); try again.`;
  return undefined;
}

/** Why `dir` (a real path) is no longer the real folder inside `root`; undefined when it still is. */
async function folderChanged(dir: string, root: WorkspaceRoot, shown: string): Promise<string | undefined> {
  const real = await realpath(dir).catch(() => undefined);
  if (real === undefined) return `${shown} was not written: its folder ${dir} no longer exists.`;
  if (!samePath(real, dir) || !isInside(root.path, real)) {
    return `${shown} was not written: its folder now leads to ${real} (a folder on its path was replaced by a symbolic link or moved), ${isInside(root.path, real) ? 'not the folder that was approved' : 'outside the workspace'}.`;
  }
  return undefined;
}

/** Creates the missing folders of `dir` (a real path inside `root`) one at a time, checking each; why it could not, or undefined. */
async function makeFolders(dir: string, root: WorkspaceRoot, shown: string): Promise<string | undefined> {
  const missing: string[] = [];
  let current = dir;
  while (
    !(await lstat(current).then(
      () => true,
      () => false,
    ))
  ) {
    if (!isInside(root.path, current) || current === root.path)
      return `${shown} was not written: the workspace folder ${root.path} no longer exists.`;
    missing.push(current);
    current = dirname(current);
  }
  if (missing.length === 0) return undefined;
  for (const folder of [current, ...missing.reverse()]) {
    if (folder !== current) {
      try {
        await mkdir(folder);
      } catch (e) {
        if (errorCode(e) !== 'EEXIST')
          return `${shown} was not written: the folder ${folder} could not be created (${errorCode(e) ?? String(e)}).`;
      }
    }
    const changed = await folderChanged(folder, root, shown);
    if (changed !== undefined) return changed;
  }
  return undefined;
}

/** Whether two stats name the same file (device and inode). */
function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** Whether two absolute, normalized paths are the same (case-folded where the file system usually is). */
function samePath(a: string, b: string): boolean {
  return isInside(a, b) && isInside(b, a);
}

/** The error text for a failed open of `shown`. */
function openError(e: unknown, shown: string): string {
  switch (errorCode(e)) {
    case 'ENOENT':
      return `${shown} does not exist (any more). Use list_files or search to find the right path.`;
    case 'ELOOP':
      return `${shown} was replaced by a symbolic link after its path was checked; it was not read. Try again.`;
    case 'EISDIR':
      return `${shown} is a folder, not a file. Use list_files with path "${shown}" to see what it contains.`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied reading ${shown}.`;
    default:
      return `${shown} could not be opened (${errorCode(e) ?? String(e)}).`;
  }
}
