/**
 * Finding and reading a workspace file for a checkpoint, without following symbolic links:
 * where an absolute path lies (which workspace folder, its `/`-separated path inside it; a
 * path outside every folder is refused), and its bytes as they are before a tool writes it.
 * A path that is a symbolic link, or has one among its folders below the workspace folder,
 * is refused (its prior content is not kept): a link's target may be outside the workspace,
 * and putting "it" back would write through the link. Reading opens the file without
 * following a final link and checks afterwards that its folder is still the real folder it
 * was found in. Never throws.
 */
import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { lstat, open, realpath, type FileHandle } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import type { FileRef, RefusalKind } from '../../core/rewind/fileState';
import { errorCode, isInside } from '../tools/paths';

/** A workspace file found: its ref (real root, path inside it), how to show it, and its absolute path below the real root. */
export interface Located {
  readonly ok: true;
  readonly ref: FileRef;
  /** The path as the chat shows it: relative, prefixed by the folder's name in a multi-root workspace. */
  readonly shown: string;
  /** `ref.root` joined with `ref.path`. */
  readonly abs: string;
}

/**
 * Where `absPath` lies among the workspace folders `roots` (as given; each is also matched by
 * its real path, the deepest folder winning). Refused when it is in none, is a folder itself,
 * or holds a NUL. Folders that do not exist are ignored.
 */
export async function locate(
  roots: readonly string[],
  absPath: string,
): Promise<Located | { readonly ok: false; readonly error: string }> {
  if (absPath.includes('\0')) return { ok: false, error: `${JSON.stringify(absPath)} contains a NUL character.` };
  const abs = resolve(absPath);
  let best: { real: string; rel: string; name: string } | undefined;
  let existing = 0;
  for (const given of roots) {
    const lexical = resolve(given);
    const real = await realpath(lexical).catch(() => undefined);
    if (real === undefined) continue;
    existing++;
    const base = isInside(real, abs) ? real : isInside(lexical, abs) ? lexical : undefined;
    if (base === undefined) continue;
    const rel = relative(base, abs);
    if (best === undefined || rel.length < best.rel.length) best = { real, rel, name: basename(lexical) };
  }
  if (best === undefined)
    return { ok: false, error: `${abs} is outside the workspace folders; a checkpoint keeps workspace files only.` };
  if (best.rel === '') return { ok: false, error: `${abs} is a workspace folder, not a file.` };
  const path = best.rel.split(sep).join('/');
  return {
    ok: true,
    ref: { root: best.real, path },
    shown: existing > 1 ? `${best.name}/${path}` : path,
    abs: join(best.real, best.rel),
  };
}

/** What reading a file found: nothing there, a refusal, a file over the cap (not read), or its bytes. */
export type ReadOutcome =
  | { readonly kind: 'absent' }
  | { readonly kind: 'refused'; readonly why: RefusalKind; readonly detail: string }
  | { readonly kind: 'too-large'; readonly size: number; readonly stats: Stats }
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array; readonly stats: Stats };

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** Opening a FIFO must not block until a writer appears; regular files ignore the flag. */
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const CHUNK = 64 * 1024;

/**
 * Reads the regular file `abs` without following a final symbolic link: absent when nothing
 * is there, refused when it is a link, not a regular file or unreadable, `too-large` without
 * reading when it has more than `maxBytes` bytes (or grows past them while read), else its
 * bytes and the stats of the open file.
 */
export async function readRegularFile(abs: string, maxBytes: number): Promise<ReadOutcome> {
  let handle: FileHandle;
  try {
    handle = await open(abs, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (e) {
    const code = errorCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
    if (code === 'ELOOP' || code === 'EMLINK')
      return { kind: 'refused', why: 'symlink', detail: 'it is a symbolic link' };
    if (code === 'EISDIR') return { kind: 'refused', why: 'not-a-file', detail: 'it is a folder' };
    return { kind: 'refused', why: 'unreadable', detail: `it could not be read (${code ?? String(e)})` };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile())
      return {
        kind: 'refused',
        why: 'not-a-file',
        detail: stats.isDirectory() ? 'it is a folder' : 'it is not a regular file',
      };
    if (stats.size > maxBytes) return { kind: 'too-large', size: stats.size, stats };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(CHUNK);
      const { bytesRead } = await handle.read(chunk, 0, CHUNK, total);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) return { kind: 'too-large', size: Math.max(total, stats.size), stats };
    }
    return { kind: 'bytes', bytes: Buffer.concat(chunks, total), stats };
  } catch (e) {
    return { kind: 'refused', why: 'unreadable', detail: `it could not be read (${errorCode(e) ?? String(e)})` };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Reads the file `ref` (see `locate`) as it is now, refusing it when it or one of its folders
 * below the workspace folder is a symbolic link (see the file comment). A path whose folders
 * do not exist is absent.
 */
export async function readWorkspaceFile(ref: FileRef, maxBytes: number): Promise<ReadOutcome> {
  const segments = ref.path.split('/');
  let current = ref.root;
  for (let i = 0; i < segments.length; i++) {
    current = join(current, segments[i] as string);
    const last = i === segments.length - 1;
    let stats: Stats;
    try {
      stats = await lstat(current);
    } catch (e) {
      const code = errorCode(e);
      if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
      return { kind: 'refused', why: 'unreadable', detail: `it could not be read (${code ?? String(e)})` };
    }
    if (stats.isSymbolicLink())
      return {
        kind: 'refused',
        why: 'symlink',
        detail: last ? 'it is a symbolic link' : `its folder ${segments.slice(0, i + 1).join('/')} is a symbolic link`,
      };
    if (!last && !stats.isDirectory()) return { kind: 'absent' };
  }
  const read = await readRegularFile(current, maxBytes);
  if (read.kind === 'absent' || read.kind === 'refused') return read;
  // The folders checked above may have been swapped for a link while the file was opened.
  const folder = join(ref.root, ...segments.slice(0, -1));
  const real = await realpath(folder).catch(() => undefined);
  if (real !== folder)
    return { kind: 'refused', why: 'symlink', detail: 'its folder was replaced by a symbolic link while it was read' };
  return read;
}
