/**
 * The VS Code side of the project context: workspace files through `vscode.workspace.fs`
 * (workspace trust respected), the built-in Git extension's API, a real event wait, and the
 * session's ProjectContextSession built on them.
 */
import { realpath } from 'node:fs/promises';
import * as vscode from 'vscode';
import type { Clock, IdSource, Tokenizer } from '../../core/platform/platformPorts';
import { locateInWorkspace, type RootFolder, type WorkspaceLocation } from '../../core/projectContext/paths';
import { readProjectContextSettings } from '../settings';
import { GIT_INIT_WAIT_MS, type GitApi, type WaitForEvent } from './gitFacts';
import type { FileProbe, ProjectFiles } from './instructionReader';
import { ProjectContextSession } from './projectContextSession';
import { ThirdPartyFolders } from './thirdPartyFolder';
import { configuredExcludes } from '../excludeSettings';

/** The workspace folders as name and file-system path. */
function workspaceRoots(): RootFolder[] {
  return (vscode.workspace.workspaceFolders ?? []).map((f) => ({ name: f.name, path: f.uri.fsPath }));
}

function uriOf(at: WorkspaceLocation): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[at.rootIndex];
  if (!folder) throw new Error('the workspace folder is no longer open');
  return at.relative === '' ? folder.uri : vscode.Uri.joinPath(folder.uri, ...at.relative.split('/'));
}

/** Workspace files for the instruction reader, through `vscode.workspace.fs`. */
export function vscodeProjectFiles(): ProjectFiles {
  return {
    folders: workspaceRoots,
    trusted: () => vscode.workspace.isTrusted,
    stat: async (at): Promise<FileProbe> => {
      let s: vscode.FileStat;
      try {
        s = await vscode.workspace.fs.stat(uriOf(at));
      } catch {
        return { kind: 'missing' };
      }
      if ((s.type & vscode.FileType.File) === 0) return { kind: 'other' };
      return { kind: 'file', size: s.size, symlink: (s.type & vscode.FileType.SymbolicLink) !== 0 };
    },
    read: (at) => Promise.resolve(vscode.workspace.fs.readFile(uriOf(at))),
    insideWorkspace: async (at) => {
      const uri = uriOf(at);
      if (uri.scheme !== 'file') return undefined;
      const real = await realpath(uri.fsPath);
      const roots = await Promise.all(
        workspaceRoots().map(async (r) => ({ name: r.name, path: await realpath(r.path).catch(() => r.path) })),
      );
      return locateInWorkspace(real, roots) !== undefined;
    },
    thirdPartyJudge: () => {
      const folders = new ThirdPartyFolders((rootPath) => configuredExcludes(vscode.Uri.file(rootPath)));
      return async (at) => {
        const folder = vscode.workspace.workspaceFolders?.[at.rootIndex];
        if (!folder || folder.uri.scheme !== 'file') return undefined;
        return folders.reason(folder.uri.fsPath, at.relative);
      };
    },
  };
}

/** What the Git extension exports (only what is used). */
interface GitExtensionExports {
  readonly enabled?: boolean;
  getAPI(version: 1): GitApi;
}

/** The built-in Git extension's API, activated if needed; undefined when it is missing or disabled. */
export async function vscodeGitApi(): Promise<GitApi | undefined> {
  const ext = vscode.extensions.getExtension<GitExtensionExports>('vscode.git');
  if (!ext) return undefined;
  // Activation is bounded too: the first send waits for the facts.
  const exports = ext.isActive ? ext.exports : await withTimeout(Promise.resolve(ext.activate()), GIT_INIT_WAIT_MS);
  if (!exports || exports.enabled === false) return undefined;
  return exports.getAPI(1);
}

/** `p`'s value, or undefined when it takes longer than `ms`. */
function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Waits for an event or a timeout (the real clock: only the extension uses this). */
export const waitForEvent: WaitForEvent = (subscribe, ms) =>
  new Promise((resolve) => {
    let done = false;
    // `subscribe` may fire synchronously, before `sub` is assigned (hence `let`, not `const`).
    // eslint-disable-next-line prefer-const
    let sub: { dispose(): void } | undefined;
    const finish = (fired: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sub?.dispose();
      resolve(fired);
    };
    const timer = setTimeout(() => finish(false), ms);
    sub = subscribe(() => finish(true));
    if (done) sub.dispose();
  });

/** The project context of a new session, on VS Code's workspace, git and settings. */
export function createProjectContext(deps: {
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly tokenizer: Tokenizer;
  readonly log?: (text: string) => void;
}): ProjectContextSession {
  return new ProjectContextSession({
    files: vscodeProjectFiles(),
    git: vscodeGitApi,
    wait: waitForEvent,
    settings: readProjectContextSettings,
    platform: process.platform,
    ...deps,
  });
}
