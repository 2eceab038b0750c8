/**
 * What a bench run was: its date, the commit it ran on and the machine, written into
 * replay-all's JSON line (`meta`) so the tables generated from a saved run (readmeTable.ts) can
 * say which run they show. Without git (a tarball, no `git` on the PATH) the commit is `null`.
 */
import { execFileSync } from 'node:child_process';
import { arch, cpus, release, type } from 'node:os';

/** The run's stamp: ISO date (UTC), short commit (`-dirty` with uncommitted changes) or null, and the machine. */
export interface RunMeta {
  readonly date: string;
  readonly commit: string | null;
  readonly machine: { readonly os: string; readonly cpus: string };
}

/** The commit the working tree is on (`git rev-parse --short HEAD`), `-dirty` when it has changes; null without git. */
export function gitCommit(cwd = process.cwd()): string | null {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim();
    const head = git('rev-parse', '--short', 'HEAD');
    if (!/^[0-9a-f]{4,40}$/.test(head)) return null;
    return git('status', '--porcelain', '--untracked-files=no') === '' ? head : `${head}-dirty`;
  } catch {
    return null;
  }
}

/** This run's {@link RunMeta}: now, the commit of `cwd`, this machine's OS and CPUs. */
export function runMeta(now = new Date(), cwd = process.cwd()): RunMeta {
  const list = cpus();
  const models = [...new Set(list.map((c) => c.model.trim()))];
  return {
    date: now.toISOString().slice(0, 10),
    commit: gitCommit(cwd),
    machine: {
      os: `${type()} ${release()} ${arch()}`,
      cpus: list.length === 0 ? 'unknown' : `${list.length} × ${models.join(' / ')}`,
    },
  };
}
