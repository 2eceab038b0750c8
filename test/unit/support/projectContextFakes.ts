// Fakes for the host side of project context: an in-memory workspace of instruction files,
// a scriptable Git API with repositories, a wait that never touches the clock, and settings.
import { DEFAULT_INSTRUCTION_SETTINGS } from '../../../src/core/projectContext/instructions';
import type { RootFolder, WorkspaceLocation } from '../../../src/core/projectContext/paths';
import type { GitApi, GitRepository, WaitForEvent } from '../../../src/host/projectContext/gitFacts';
import type { FileProbe, ProjectFiles } from '../../../src/host/projectContext/instructionReader';
import type { ProjectContextSettings } from '../../../src/host/projectContext/projectContextSession';
import { Gate } from './gate';

/** One fake file: its text or bytes, a symlink (inside or outside the workspace) or just a size. */
export type Entry =
  string | Uint8Array | { readonly symlink: 'inside' | 'outside'; readonly text: string } | { readonly size: number };

/** A workspace of in-memory files: keys are `<folder index>:<relative path>`. */
export function fakeFiles(
  entries: Record<string, Entry>,
  opts: { trusted?: boolean; roots?: RootFolder[] } = {},
): ProjectFiles & { reads: string[]; set(key: string, e: Entry | undefined): void; trust: boolean } {
  const map = new Map(Object.entries(entries));
  const key = (at: WorkspaceLocation) => `${at.rootIndex}:${at.relative}`;
  const f = {
    reads: [] as string[],
    trust: opts.trusted ?? true,
    set: (k: string, e: Entry | undefined) => void (e === undefined ? map.delete(k) : map.set(k, e)),
    folders: () => opts.roots ?? [{ name: 'app', path: '/ws/app' }],
    trusted: () => f.trust,
    stat: async (at: WorkspaceLocation): Promise<FileProbe> => {
      const e = map.get(key(at));
      if (e === undefined) return { kind: 'missing' };
      if (typeof e === 'string') return { kind: 'file', size: e.length, symlink: false };
      if (e instanceof Uint8Array) return { kind: 'file', size: e.length, symlink: false };
      if ('size' in e) return { kind: 'file', size: e.size, symlink: false };
      return { kind: 'file', size: e.text.length, symlink: true };
    },
    read: async (at: WorkspaceLocation): Promise<Uint8Array> => {
      f.reads.push(key(at));
      const e = map.get(key(at));
      if (typeof e === 'string') return new TextEncoder().encode(e);
      if (e instanceof Uint8Array) return e;
      if (e && 'text' in e) return new TextEncoder().encode(e.text);
      throw new Error('no such file');
    },
    insideWorkspace: async (at: WorkspaceLocation) => {
      const e = map.get(key(at));
      return typeof e === 'object' && 'symlink' in e ? e.symlink === 'inside' : true;
    },
  };
  return f;
}

/** Default instruction settings with workspace facts off, and `over` on top. */
export const settings = (over: Partial<ProjectContextSettings> = {}): ProjectContextSettings => ({
  ...DEFAULT_INSTRUCTION_SETTINGS,
  workspaceFacts: false,
  ...over,
});

/** A fake Git API whose state and repositories a test sets; events fire when the test says. */
export function fakeGit(state: GitApi['state'], repos: GitRepository[]): GitApi & { init(): void } {
  const listeners: Array<(s: GitApi['state']) => unknown> = [];
  const api = {
    state,
    repositories: repos,
    onDidChangeState: (l: (s: GitApi['state']) => unknown) => {
      listeners.push(l);
      return { dispose: () => undefined };
    },
    init: () => {
      api.state = 'initialized';
      for (const l of listeners) l('initialized');
    },
  };
  return api;
}

/** A repository at `root` on branch main (ahead 1, behind 2) whose log returns `log`; `over` patches its state. */
export const repo = (root: string, over: Partial<GitRepository['state']> = {}, log: string[] = []): GitRepository => ({
  rootUri: { fsPath: root },
  state: {
    HEAD: { name: 'main', upstream: { remote: 'origin', name: 'main' }, ahead: 1, behind: 2 },
    indexChanges: [],
    workingTreeChanges: [],
    mergeChanges: [],
    onDidChange: () => ({ dispose: () => undefined }),
    ...over,
  },
  log: async (o) => log.slice(0, o?.maxEntries).map((message, i) => ({ hash: `h${i}`, message })),
});

/** A wait that never touches the clock: it resolves when the event fires, or "times out" when the test opens the gate. */
export function gatedWait(timeout = new Gate()): WaitForEvent & { waits: number } {
  const w = Object.assign(
    (subscribe: (fire: () => void) => { dispose(): void }) =>
      new Promise<boolean>((resolve) => {
        w.waits++;
        subscribe(() => resolve(true));
        void timeout.wait().then(() => resolve(false));
      }),
    { waits: 0 },
  );
  return w;
}
