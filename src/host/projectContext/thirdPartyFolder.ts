/**
 * Whether a workspace folder holds another project's files, decided by what it is rather than
 * by its name alone (core/projectContext/nested.ts has the names): hidden by `.gitignore`,
 * `files.exclude` or `search.exclude`; a Python virtual environment (`pyvenv.cfg`); a cache
 * (`CACHEDIR.TAG`, the cache-directory tagging convention); a git submodule or another
 * repository (a `.git` file or folder of its own); a link whose real path is outside the
 * workspace or inside a dependency folder (`src/lib → ../node_modules/pkg`). An AGENTS.md in
 * such a folder is never read as the project's instructions. Reads the disk (Node's fs).
 */
import { lstat, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { insideDependencies } from '../../core/projectContext/nested';
import type { FilesExclude } from '../tools/workspaceFilter';
import { WorkspaceFilter } from '../tools/workspaceFilter';

/** Files whose presence in a folder says what it is. */
const MARKERS: ReadonlyArray<readonly [string, string]> = [
  ['pyvenv.cfg', 'a Python virtual environment (pyvenv.cfg)'],
  ['CACHEDIR.TAG', 'a cache folder (CACHEDIR.TAG)'],
];

/**
 * Tells, folder by folder, why one is another project's (undefined: it is this project's).
 * One per tool round: it keeps the `.gitignore` files it read.
 */
export class ThirdPartyFolders {
  private readonly filters = new Map<string, WorkspaceFilter>();

  /** `excludes(root)`: the `files.exclude` and `search.exclude` globs switched on for a workspace folder. */
  constructor(private readonly excludes: (rootPath: string) => FilesExclude) {}

  /** Why the folder `rel` (`/`-separated, below the workspace folder at `rootPath`) is not this project's, or undefined. */
  async reason(rootPath: string, rel: string): Promise<string | undefined> {
    if (rel === '') return undefined;
    const hidden = await this.filter(rootPath).hiddenReasonDeep(rel, true);
    if (hidden === '.gitignore') return 'ignored by git (.gitignore)';
    if (hidden === 'files.exclude') return 'hidden by files.exclude or search.exclude';
    if (hidden === '.git') return 'inside .git';
    const dir = join(rootPath, ...rel.split('/'));
    for (const [name, why] of MARKERS) if (await exists(join(dir, name))) return why;
    const git = await lstat(join(dir, '.git')).catch(() => undefined);
    if (git?.isFile()) return 'a git submodule (its own .git)';
    if (git?.isDirectory()) return 'another git repository (its own .git)';
    const [real, rootReal] = await Promise.all([
      realpath(dir).catch(() => dir),
      realpath(rootPath).catch(() => rootPath),
    ]);
    const inside = relative(rootReal, real);
    if (inside.startsWith('..') || inside === real) return 'a link to a folder outside the workspace';
    const insideRel = inside.split(sep).join('/');
    if (insideRel !== rel && insideDependencies(insideRel)) return `a link into ${insideRel}`;
    return undefined;
  }

  private filter(rootPath: string): WorkspaceFilter {
    let f = this.filters.get(rootPath);
    if (!f) {
      f = new WorkspaceFilter(rootPath, this.excludes(rootPath));
      this.filters.set(rootPath, f);
    }
    return f;
  }
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}
