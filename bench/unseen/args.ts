/**
 * The arguments of `npm run bench -- unseen [--out DIR] [--only SUBSTRING] [--windows N,…]
 * [--policies P,…]`, checked before anything is generated: an error names what is wrong.
 */
import { isAbsolute, join, relative, resolve } from 'node:path';
import { isPolicyName, POLICY_NAMES, type PolicyName } from '../policies';
import { parseWindows, WINDOWS } from '../replayAll';
import { casesMatching } from './cases';

/** The policies each transcript is replayed under by default: the extension's, and the reference. */
export const UNSEEN_POLICIES: readonly PolicyName[] = ['default', 'baseline'];

/** The repository this bench is part of: `--out` may not point into it. */
export const REPO_ROOT = resolve(join(__dirname, '..', '..'));

/** What `unseen` was asked for. */
export interface UnseenArgs {
  /** Where to write the transcripts; undefined: a fresh folder under the OS temp dir. */
  readonly out?: string;
  /** Only the cases whose name contains it. */
  readonly only?: string;
  readonly windows: readonly number[];
  readonly policies: readonly PolicyName[];
}

/** The usage line of `unseen`. */
export const UNSEEN_USAGE =
  'usage: npm run bench -- unseen [--out DIR] [--only SUBSTRING] [--windows 100000,200000] [--policies default,baseline]\n';

/** Whether `dir` is `root` or inside it. */
function inside(dir: string, root: string): boolean {
  const rel = relative(root, resolve(dir));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Parses the arguments (defaults: a fresh temp folder, every case, {@link WINDOWS},
 * {@link UNSEEN_POLICIES}). Refused: an unknown option or a stray argument, an option without
 * its value, `--out` inside the repository (`repoRoot`), `--only` matching no case, a bad
 * window list, an unknown policy.
 */
export function parseUnseenArgs(
  args: readonly string[],
  repoRoot = REPO_ROOT,
): UnseenArgs | { readonly error: string } {
  let out: string | undefined;
  let only: string | undefined;
  let windows: readonly number[] = WINDOWS;
  let policies: readonly PolicyName[] = UNSEEN_POLICIES;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (!['--out', '--only', '--windows', '--policies'].includes(a))
      return { error: a.startsWith('--') ? `unknown option ${a}` : `unexpected argument "${a}"` };
    const value = args[++i];
    if (value === undefined || value === '') return { error: `${a} needs a value` };
    if (a === '--out') {
      if (inside(value, repoRoot))
        return { error: `--out ${value} is inside the repository (${repoRoot}): write the transcripts elsewhere` };
      out = value;
    } else if (a === '--only') {
      if (casesMatching(value).length === 0) return { error: `--only ${value}: no case name contains it` };
      only = value;
    } else if (a === '--windows') {
      const list = parseWindows(value);
      if ('error' in list) return list;
      windows = list;
    } else {
      const names = value.split(',');
      const unknown = names.find((n) => !isPolicyName(n));
      if (unknown !== undefined) return { error: `unknown policy "${unknown}" (one of ${POLICY_NAMES.join(', ')})` };
      policies = [...new Set(names.filter(isPolicyName))];
    }
  }
  return { ...(out !== undefined ? { out } : {}), ...(only !== undefined ? { only } : {}), windows, policies };
}
