/**
 * Workspace paths as plain strings, for the project context: where a path the model wrote
 * lies in the workspace, how it is shown, and which folders lie between a file and its
 * workspace folder. Pure and platform-neutral: `/` and `\` both separate segments, and a
 * Windows-looking root (drive letter or backslash) compares case-insensitively. It resolves
 * paths lexically (`.`/`..`), as the tools' own rule does before they follow symbolic links.
 */

/** A workspace folder: its display name and its absolute file-system path. */
export interface RootFolder {
  readonly name: string;
  readonly path: string;
}

/** A path located in a workspace folder: the folder's index and the `/`-separated path below it ('' for the folder itself). */
export interface WorkspaceLocation {
  readonly rootIndex: number;
  readonly relative: string;
}

/** Splits a path into segments, dropping empty ones and `.`, resolving `..` (undefined when `..` climbs above the start). */
export function segmentsOf(path: string): string[] | undefined {
  const out: string[] = [];
  for (const seg of path.split(/[\\/]+/)) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(seg);
  }
  return out;
}

/** Whether a path is absolute: `/…`, `\…` or a drive letter (`C:\…`, `C:/…`). */
export function isAbsolutePath(path: string): boolean {
  return /^[\\/]/.test(path) || /^[a-zA-Z]:[\\/]/.test(path);
}

const windowsLike = (p: string) => /^[a-zA-Z]:/.test(p) || p.includes('\\');

/**
 * Where `requested` lies in the workspace, by the tools' rule: a relative path is relative to
 * the first folder, except that in a multi-root workspace a first segment naming a folder
 * selects it; an absolute path must lie inside a folder. Undefined when it lies outside every
 * folder (or no folder is open).
 */
export function locateInWorkspace(requested: string, roots: readonly RootFolder[]): WorkspaceLocation | undefined {
  if (roots.length === 0 || requested.includes('\0')) return undefined;
  if (isAbsolutePath(requested)) {
    const target = segmentsOf(requested);
    if (!target) return undefined;
    let best: WorkspaceLocation | undefined;
    let bestDepth = -1;
    roots.forEach((root, rootIndex) => {
      const base = segmentsOf(root.path);
      if (!base || base.length > target.length || base.length <= bestDepth) return;
      const fold = windowsLike(root.path) || windowsLike(requested);
      const same = (a: string, b: string) => (fold ? a.toLowerCase() === b.toLowerCase() : a === b);
      if (base.every((s, i) => same(s, target[i] ?? ''))) {
        best = { rootIndex, relative: target.slice(base.length).join('/') };
        bestDepth = base.length;
      }
    });
    return best;
  }
  const raw = requested.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
  const named = roots.length > 1 ? roots.findIndex((r) => r.name === raw[0]) : -1;
  const rootIndex = named >= 0 ? named : 0;
  const rest = segmentsOf((named >= 0 ? raw.slice(1) : raw).join('/'));
  return rest ? { rootIndex, relative: rest.join('/') } : undefined;
}

/** How a workspace path is shown (and named as an origin): `/`-separated, prefixed by the folder's name in a multi-root workspace. */
export function displayWorkspacePath(roots: readonly RootFolder[], at: WorkspaceLocation): string {
  const name = roots[at.rootIndex]?.name ?? '';
  if (roots.length > 1) return at.relative === '' ? name : `${name}/${at.relative}`;
  return at.relative === '' ? '.' : at.relative;
}

/**
 * The folders between the file at `file` and its workspace folder: from the outermost
 * (just below the workspace folder) to the file's own folder, the workspace folder itself
 * excluded (its instruction files are in the system prompt already). `relative` paths, `/`-separated.
 */
export function foldersBetween(file: WorkspaceLocation): WorkspaceLocation[] {
  const segs = file.relative === '' ? [] : file.relative.split('/');
  const out: WorkspaceLocation[] = [];
  for (let n = 1; n < segs.length; n++) out.push({ rootIndex: file.rootIndex, relative: segs.slice(0, n).join('/') });
  return out;
}

/** A path below a located folder (`/`-joined). */
export function childOf(folder: WorkspaceLocation, name: string): WorkspaceLocation {
  return { rootIndex: folder.rootIndex, relative: folder.relative === '' ? name : `${folder.relative}/${name}` };
}
