/**
 * Git facts through VS Code's built-in Git extension API (`vscode.git`, `getAPI(1)`), never
 * by running git: per repository the branch, its upstream and ahead/behind, the changed files
 * and the last commit subjects. Only the few members used are typed here (structurally, so a
 * fake API serves in tests). No `vscode` import: unit-tested under plain mocha.
 */
import { displayWorkspacePath, locateInWorkspace, type RootFolder } from '../../core/projectContext/paths';
import { MAX_CHANGED_NAMES, MAX_COMMITS, type RepositoryFacts } from '../../core/projectContext/workspaceFacts';

/** A VS Code event, structurally. */
export type GitEvent<T> = (listener: (e: T) => unknown) => { dispose(): void };

/** A URI as far as the facts need one. */
export interface GitUri {
  readonly fsPath: string;
}

/** A branch (HEAD) as the Git API describes it. */
export interface GitBranch {
  readonly name?: string;
  readonly commit?: string;
  readonly upstream?: { readonly remote: string; readonly name: string };
  readonly ahead?: number;
  readonly behind?: number;
}

/** A changed file. */
export interface GitChange {
  readonly uri: GitUri;
}

/** A repository's state. `untrackedChanges` exists in newer VS Code versions only. */
export interface GitRepositoryState {
  readonly HEAD: GitBranch | undefined;
  readonly indexChanges: readonly GitChange[];
  readonly workingTreeChanges: readonly GitChange[];
  readonly mergeChanges: readonly GitChange[];
  readonly untrackedChanges?: readonly GitChange[];
  readonly onDidChange: GitEvent<void>;
}

/** A commit as `log` returns it. */
export interface GitCommit {
  readonly hash: string;
  readonly message: string;
}

/** A repository. */
export interface GitRepository {
  readonly rootUri: GitUri;
  readonly state: GitRepositoryState;
  log(options?: { readonly maxEntries?: number }): Promise<readonly GitCommit[]>;
}

/** The Git extension's API, version 1. */
export interface GitApi {
  readonly state: 'uninitialized' | 'initialized';
  readonly onDidChangeState: GitEvent<'uninitialized' | 'initialized'>;
  readonly repositories: readonly GitRepository[];
}

/**
 * Waits until `subscribe`'s event fires or `ms` pass; resolves true when it fired. Injected,
 * so tests never wait on the wall clock.
 */
export type WaitForEvent = (subscribe: (fire: () => void) => { dispose(): void }, ms: number) => Promise<boolean>;

/**
 * `p`'s value, or undefined when `p` rejects or `wait` gives up first (after `ms`). `p` is not
 * cancelled; a late value is dropped.
 */
export async function within<T>(p: Promise<T>, ms: number, wait: WaitForEvent): Promise<T | undefined> {
  let value: T | undefined;
  const settled = p.then(
    (v) => {
      value = v;
    },
    () => undefined,
  );
  await wait((fire) => {
    // `settled` cannot reject (both outcomes are handled above).
    void settled.then(fire);
    return { dispose: () => undefined };
  }, ms);
  return value;
}

/** How long to wait for the Git extension to initialise (milliseconds). */
export const GIT_INIT_WAIT_MS = 10_000;
/** How long to wait for an opened repository's first status (its HEAD), milliseconds. */
export const REPOSITORY_STATUS_WAIT_MS = 3_000;
/** How long to wait for a repository's recent commits (`git log`), milliseconds. */
export const REPOSITORY_LOG_WAIT_MS = 5_000;

/** Git facts, or why there are none. */
export interface GitFactsResult {
  readonly repositories: readonly RepositoryFacts[];
  readonly note?: string;
}

/**
 * Reads the facts of every repository inside the workspace. Waits (with `wait`) for the API
 * to initialise, then for each repository whose HEAD is not known yet; a repository whose
 * log fails still gives its other facts.
 */
export async function gatherGitFacts(
  api: GitApi | undefined,
  roots: readonly RootFolder[],
  wait: WaitForEvent,
): Promise<GitFactsResult> {
  if (!api) return { repositories: [], note: 'the built-in Git extension is not available or disabled' };
  const initialized = () => api.state === 'initialized';
  if (!initialized()) {
    await wait((fire) => api.onDidChangeState((s) => (s === 'initialized' ? fire() : undefined)), GIT_INIT_WAIT_MS);
    if (!initialized()) return { repositories: [], note: 'the Git extension did not finish starting' };
  }
  const repositories: RepositoryFacts[] = [];
  for (const repo of api.repositories) {
    const root = locateInWorkspace(repo.rootUri.fsPath, roots);
    if (!root) continue;
    if (repo.state.HEAD === undefined)
      await wait((fire) => repo.state.onDidChange(() => fire()), REPOSITORY_STATUS_WAIT_MS);
    repositories.push(await repositoryFacts(repo, roots, displayWorkspacePath(roots, root), wait));
  }
  repositories.sort((a, b) => (a.root < b.root ? -1 : a.root > b.root ? 1 : 0));
  return repositories.length > 0 ? { repositories } : { repositories, note: 'no git repository in the workspace' };
}

async function repositoryFacts(
  repo: GitRepository,
  roots: readonly RootFolder[],
  root: string,
  wait: WaitForEvent,
): Promise<RepositoryFacts> {
  const s = repo.state;
  const head = s.HEAD;
  const seen = new Set<string>();
  const names: string[] = [];
  for (const c of [...s.indexChanges, ...s.mergeChanges, ...s.workingTreeChanges, ...(s.untrackedChanges ?? [])]) {
    const at = locateInWorkspace(c.uri.fsPath, roots);
    const name = at ? displayWorkspacePath(roots, at) : c.uri.fsPath;
    if (seen.has(name)) continue;
    seen.add(name);
    names.push(name);
  }
  // A repository without commits, a failing log or one slower than the bound has no recent
  // commits to show (the first message waits for these facts).
  const log = await within(
    Promise.resolve().then(() => repo.log({ maxEntries: MAX_COMMITS })),
    REPOSITORY_LOG_WAIT_MS,
    wait,
  );
  const commits = (log ?? []).slice(0, MAX_COMMITS).map((c) => c.message.split(/\r?\n/)[0] ?? '');
  return {
    root,
    ...(head?.name !== undefined
      ? { branch: head.name }
      : head?.commit !== undefined
        ? { commit: head.commit.slice(0, 12) }
        : {}),
    ...(head?.upstream
      ? { upstream: `${head.upstream.remote}/${head.upstream.name}`, ahead: head.ahead ?? 0, behind: head.behind ?? 0 }
      : {}),
    changedCount: names.length,
    changed: names.slice(0, MAX_CHANGED_NAMES),
    commits,
  };
}
