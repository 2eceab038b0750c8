/**
 * Which workspace entries the listing and search tools leave out: the `.git` folder, what
 * `.gitignore` files hide (nested ones too, with git's precedence: a deeper file can
 * re-include what a shallower one ignored), and what the user's `files.exclude` hides.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { Minimatch } from 'minimatch';

/** Why an entry is hidden. */
export type HiddenReason = '.git' | '.gitignore' | 'files.exclude';

/** A `files.exclude`-style map: glob → whether it is excluded (only `true` excludes). */
export type FilesExclude = Readonly<Record<string, boolean>>;

const CASE_INSENSITIVE_FS = process.platform === 'win32' || process.platform === 'darwin';

/** The hiding rules of one workspace folder. Caches each `.gitignore` it reads. */
export class WorkspaceFilter {
  private readonly gitignores = new Map<string, Promise<Ignore | undefined>>();
  private readonly excludes: readonly Minimatch[];

  /** `root` is the folder's real path; glob keys of `filesExclude` are relative to it (or absolute). */
  constructor(
    private readonly root: string,
    filesExclude: FilesExclude,
  ) {
    this.excludes = Object.entries(filesExclude)
      .filter(([glob, on]) => on === true && glob.trim() !== '')
      .map(([glob]) => new Minimatch(glob.replace(/^\.\//, ''), { dot: true, nocase: CASE_INSENSITIVE_FS }));
  }

  /**
   * Why the entry at `rel` (relative to the root, `/`-separated) is hidden, assuming its
   * parent folders are not; undefined when it is shown.
   */
  async hiddenReason(rel: string, isDir: boolean): Promise<HiddenReason | undefined> {
    const segments = rel.split('/');
    if (segments[segments.length - 1] === '.git') return '.git';
    const abs = join(this.root, rel);
    if (this.excludes.some((m) => m.match(isAbsolute(m.pattern) ? abs : rel))) return 'files.exclude';
    let ignored = false;
    for (let depth = 0; depth < segments.length; depth++) {
      const dir = segments.slice(0, depth).join('/');
      const rules = await this.gitignoreOf(dir);
      if (rules === undefined) continue;
      const below = segments.slice(depth).join('/') + (isDir ? '/' : '');
      const result = rules.test(below);
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored ? '.gitignore' : undefined;
  }

  /** Why `rel` or one of its parent folders is hidden; undefined when none is. */
  async hiddenReasonDeep(rel: string, isDir: boolean): Promise<HiddenReason | undefined> {
    const segments = rel === '' ? [] : rel.split('/');
    for (let i = 1; i <= segments.length; i++) {
      const reason = await this.hiddenReason(segments.slice(0, i).join('/'), i < segments.length || isDir);
      if (reason !== undefined) return reason;
    }
    return undefined;
  }

  private gitignoreOf(dirRel: string): Promise<Ignore | undefined> {
    let rules = this.gitignores.get(dirRel);
    if (rules === undefined) {
      rules = readFile(join(this.root, dirRel, '.gitignore'), 'utf8').then(
        (text) => ignore({ ignorecase: CASE_INSENSITIVE_FS }).add(text),
        () => undefined,
      );
      this.gitignores.set(dirRel, rules);
    }
    return rules;
  }
}
