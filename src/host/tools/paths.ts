/**
 * Confinement of every path a tool touches to the workspace. A requested path is resolved
 * lexically (`..`), then through the file system (realpath of its deepest existing
 * ancestor, so symbolic links are followed and a file that does not exist yet is still
 * confined), and refused unless the result lies inside one of the workspace folders.
 * Callers use the returned real path, never the requested one.
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** A workspace folder: its display name and its real (symlink-free) absolute path. */
export interface WorkspaceRoot {
  readonly name: string;
  readonly path: string;
}

/** A path confined to the workspace. */
export interface ResolvedPath {
  readonly ok: true;
  /** Real absolute path: the realpath of the deepest existing ancestor plus the missing rest. */
  readonly path: string;
  readonly root: WorkspaceRoot;
  /** How tools show the path: relative, `/`-separated, prefixed by the folder name in a multi-root workspace. */
  readonly display: string;
  /** Whether the whole path exists. */
  readonly exists: boolean;
}

/** A confined path, or why the request was refused (a message for the model). */
export type PathResolution = ResolvedPath | { readonly ok: false; readonly error: string };

/**
 * The real paths of the workspace folders, in order; folders that do not exist are left
 * out. The name of a folder is the base name of the path as given.
 */
export async function realRoots(roots: readonly string[]): Promise<WorkspaceRoot[]> {
  const out: WorkspaceRoot[] = [];
  for (const root of roots) {
    try {
      out.push({ name: basename(resolve(root)), path: await realpath(resolve(root)) });
    } catch {
      // A folder that vanished is simply not part of the workspace any more.
    }
  }
  return out;
}

/**
 * Resolves `requested` (relative to the first folder, or to the folder its first segment
 * names in a multi-root workspace, or absolute) and confines it to the workspace, symbolic
 * links included. Never throws: a refusal is an error value naming the problem and the fix.
 */
export async function resolveInWorkspace(roots: readonly string[], requested: string): Promise<PathResolution> {
  const rs = await realRoots(roots);
  const first = rs[0];
  if (first === undefined) return { ok: false, error: 'No workspace folder is open (or it no longer exists); ask the user to open a folder in VS Code.' };
  if (requested.includes('\0')) return { ok: false, error: `The path ${JSON.stringify(requested)} contains a NUL character; give a plain file path.` };

  let lexical: string;
  if (isAbsolute(requested)) lexical = resolve(requested);
  else {
    const [head = '', ...rest] = requested.split(/[\\/]+/);
    const named = rs.length > 1 ? rs.find((r) => r.name === head) : undefined;
    lexical = named ? resolve(named.path, ...rest) : resolve(first.path, requested);
  }

  const real = await realpathDeepest(lexical);
  if ('error' in real) return { ok: false, error: `"${requested}": ${real.error}` };
  const root = rs.find((r) => isInside(r.path, real.path));
  if (root === undefined) {
    const where = rs.map((r) => r.path).join(', ');
    const viaLink = rs.some((r) => isInside(r.path, lexical)) || roots.some((r) => isInside(resolve(r), lexical));
    return {
      ok: false,
      error: viaLink
        ? `"${requested}" leads outside the workspace through a symbolic link (it resolves to ${real.path}). Only files inside the workspace (${where}) can be used.`
        : `"${requested}" is outside the workspace (it resolves to ${real.path}). Only files inside the workspace (${where}) can be used; give a path relative to the workspace root.`,
    };
  }
  return { ok: true, path: real.path, root, display: displayPath(rs, root, real.path), exists: real.exists };
}

/** How a tool shows `abs` (inside `root`): relative with `/`, folder-name prefixed in a multi-root workspace. */
export function displayPath(roots: readonly WorkspaceRoot[], root: WorkspaceRoot, abs: string): string {
  const rel = relative(root.path, abs).split(sep).join('/');
  if (roots.length > 1) return rel === '' ? root.name : `${root.name}/${rel}`;
  return rel === '' ? '.' : rel;
}

/** Whether `child` is `parent` or lies below it (both absolute and normalized). */
export function isInside(parent: string, child: string): boolean {
  const fold = process.platform === 'win32' || process.platform === 'darwin';
  const p = fold ? parent.toLowerCase() : parent;
  const c = fold ? child.toLowerCase() : child;
  return c === p || c.startsWith(p.endsWith(sep) ? p : p + sep);
}

type RealResult = { readonly path: string; readonly exists: boolean } | { readonly error: string };

/** realpath of `abs`, or of its deepest existing ancestor joined with the missing rest. */
async function realpathDeepest(abs: string): Promise<RealResult> {
  const missing: string[] = [];
  let current = abs;
  for (;;) {
    try {
      const real = await realpath(current);
      return { path: join(real, ...missing.reverse()), exists: missing.length === 0 };
    } catch (e) {
      const code = errorCode(e);
      if (code === 'ENOENT') {
        const link = await danglingLinkTarget(current);
        if (link !== undefined) return { error: `${current} is a symbolic link to "${link}", which does not exist; use the link's target path instead (if it is inside the workspace).` };
        const parent = dirname(current);
        if (parent === current) return { error: 'no part of this path exists.' };
        missing.push(basename(current));
        current = parent;
        continue;
      }
      if (code === 'ENOTDIR') return { error: `a part of this path is a file, not a folder (${current}).` };
      if (code === 'ELOOP') return { error: 'this path goes through a loop of symbolic links.' };
      if (code === 'EACCES' || code === 'EPERM') return { error: `permission denied while resolving ${current}.` };
      return { error: `cannot resolve this path (${code ?? String(e)}).` };
    }
  }
}

/** The target of `p` when `p` itself is a symbolic link whose target is missing. */
async function danglingLinkTarget(p: string): Promise<string | undefined> {
  try {
    const st = await lstat(p);
    return st.isSymbolicLink() ? await readlink(p) : undefined;
  } catch {
    return undefined;
  }
}

/** The `code` of a Node system error, if it has one. */
export function errorCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}
