/**
 * Confinement of every path a tool touches. The one rule, for every tool (read_file,
 * list_files, search, edit_file, run_command's cwd), is {@link resolveToolPath}:
 *
 * - a relative path is relative to the first workspace folder; in a multi-root workspace
 *   (several *workspace* folders) a first segment that names a folder selects that folder;
 * - an absolute path is used as given;
 * - the session's files folder (saved pastes and spilled tool results) is never a workspace
 *   folder: it is reached only by its absolute path (the path the spill notices give), read
 *   only, and it never turns a single-folder workspace into a multi-root one.
 *
 * The lexical result is then resolved through the file system (realpath of its deepest
 * existing ancestor, so symbolic links are followed and a file that does not exist yet is
 * still confined) and refused unless it lies inside the folders the path may use. Callers
 * use the returned real path, never the requested one, and check it again at the moment of
 * the operation (see confinedFs.ts).
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** A folder paths may lead into: its display name and its real (symlink-free) absolute path. */
export interface WorkspaceRoot {
  readonly name: string;
  readonly path: string;
  /** Set for the session's files folder: read-only, shown by its absolute path. */
  readonly session?: true;
}

/** The folders a tool call may use: the workspace folders and the session's files folders. */
export interface PathSpace {
  /** Workspace folders, as VS Code lists them; the first one is the default. */
  readonly roots: readonly string[];
  /** The session's files folders (read-only, addressed by absolute path only). */
  readonly sessionRoots?: readonly string[];
}

/** What a tool means to do with a path: reading may use the session's files folder, writing may not. */
export type PathAccess = 'read' | 'write';

/** A path confined to the workspace (or, for reading, to the session's files folder). */
export interface ResolvedPath {
  readonly ok: true;
  /** Real absolute path: the realpath of the deepest existing ancestor plus the missing rest. */
  readonly path: string;
  readonly root: WorkspaceRoot;
  /**
   * How tools show the path: relative, `/`-separated, prefixed by the folder name in a
   * multi-root workspace; absolute in the session's files folder.
   */
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
 * Resolves `requested` by the one rule of this module (see the file comment) and confines
 * it: to the workspace folders, or — for an absolute path inside the session's files folder
 * and `access` 'read' — to that folder. Never throws: a refusal is an error value naming the
 * problem and the fix.
 */
export async function resolveToolPath(
  space: PathSpace,
  requested: string,
  access: PathAccess,
): Promise<PathResolution> {
  const workspace = await realRoots(space.roots);
  const first = workspace[0];
  if (first === undefined)
    return {
      ok: false,
      error: 'No workspace folder is open (or it no longer exists); ask the user to open a folder in VS Code.',
    };
  if (requested.includes('\0'))
    return {
      ok: false,
      error: `The path ${JSON.stringify(requested)} contains a NUL character; give a plain file path.`,
    };

  let lexical: string;
  let allowed: readonly WorkspaceRoot[] = workspace;
  if (isAbsolute(requested)) {
    lexical = resolve(requested);
    const session = await sessionRootOf(space.sessionRoots ?? [], lexical);
    if (session !== undefined) {
      if (access === 'write')
        return {
          ok: false,
          error: `"${requested}" is in the session's files folder (saved pastes and tool outputs), which is read-only; write inside the workspace instead.`,
        };
      allowed = [session];
    }
  } else {
    const [head = '', ...rest] = requested.split(/[\\/]+/);
    const named = workspace.length > 1 ? workspace.find((r) => r.name === head) : undefined;
    lexical = named ? resolve(named.path, ...rest) : resolve(first.path, requested);
  }

  const real = await realpathDeepest(lexical);
  if ('error' in real) return { ok: false, error: `"${requested}": ${real.error}` };
  const root = allowed.find((r) => isInside(r.path, real.path));
  if (root === undefined) {
    const where = allowed.map((r) => r.path).join(', ');
    const given = allowed === workspace ? space.roots.map((r) => resolve(r)) : [];
    const viaLink = allowed.some((r) => isInside(r.path, lexical)) || given.some((r) => isInside(r, lexical));
    return {
      ok: false,
      error: viaLink
        ? `"${requested}" leads outside the workspace through a symbolic link (it resolves to ${real.path}). Only files inside the workspace (${where}) can be used.`
        : `"${requested}" is outside the workspace (it resolves to ${real.path}). Only files inside the workspace (${where}) can be used; give a path relative to the workspace root.`,
    };
  }
  return { ok: true, path: real.path, root, display: displayPath(workspace, root, real.path), exists: real.exists };
}

/**
 * How a tool shows `abs` (inside `root`): relative with `/`, folder-name prefixed in a
 * multi-root workspace (`roots` are the workspace folders only); the absolute path in the
 * session's files folder.
 */
export function displayPath(roots: readonly WorkspaceRoot[], root: WorkspaceRoot, abs: string): string {
  if (root.session) return abs;
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

/** The session's files folder that the absolute `lexical` lies in (as given or as real path), if any. */
async function sessionRootOf(sessionRoots: readonly string[], lexical: string): Promise<WorkspaceRoot | undefined> {
  for (const given of sessionRoots) {
    const [root] = await realRoots([given]);
    if (root !== undefined && (isInside(resolve(given), lexical) || isInside(root.path, lexical)))
      return { ...root, session: true };
  }
  return undefined;
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
        if (link !== undefined)
          return {
            error: `${current} is a symbolic link to "${link}", which does not exist; use the link's target path instead (if it is inside the workspace).`,
          };
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
