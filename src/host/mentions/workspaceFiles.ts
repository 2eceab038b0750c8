/**
 * The workspace's files as an `@` mention offers them: listed with `vscode.workspace.findFiles`
 * once and kept until a file is created or deleted or the exclude settings change. Left out:
 * `node_modules` and `.git`, what `files.exclude`, `search.exclude` and `.gitignore` files hide,
 * secrets-looking files and names a mention cannot carry (see isMentionPath).
 */
import * as vscode from 'vscode';
import { configuredExcludes } from '../excludeSettings';
import { isMentionPath } from '../../protocol/chat';
import { looksLikeSecret } from '../../core/security/secretFiles';
import { WorkspaceFilter, type FilesExclude } from '../tools/workspaceFilter';

/** The most files listed (a larger workspace is searched within the first ones found). */
export const MAX_LISTED_FILES = 20_000;

/** Folders never offered, whatever the settings say. */
const ALWAYS_EXCLUDED = ['**/node_modules', '**/.git'];

/** The workspace files a mention may name, workspace-relative (folder-prefixed in a multi-root workspace). */
export class WorkspaceFiles implements vscode.Disposable {
  private listed: Promise<readonly string[]> | undefined;
  private readonly subscriptions: vscode.Disposable[];

  constructor() {
    const forget = () => (this.listed = undefined);
    const watcher = vscode.workspace.createFileSystemWatcher('**/*', false, true, false);
    this.subscriptions = [
      watcher,
      watcher.onDidCreate(forget),
      watcher.onDidDelete(forget),
      vscode.workspace.onDidChangeWorkspaceFolders(forget),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('files.exclude') || e.affectsConfiguration('search.exclude')) forget();
      }),
    ];
  }

  /** The files, listed on first use after a change (a failed listing is tried again next time). */
  files(): Promise<readonly string[]> {
    const listed = (this.listed ??= listFiles());
    listed.catch(() => {
      if (this.listed === listed) this.listed = undefined;
    });
    return listed;
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}

async function listFiles(): Promise<readonly string[]> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const out: string[] = [];
  for (const folder of folders) {
    const excludes = excludeMap(folder.uri);
    const found = await vscode.workspace.findFiles(
      new vscode.RelativePattern(folder, '**/*'),
      excludeGlob(excludes),
      MAX_LISTED_FILES - out.length,
    );
    const filter = new WorkspaceFilter(folder.uri.fsPath, excludes);
    for (const uri of found) {
      const rel = vscode.workspace.asRelativePath(uri, false).replace(/\\/g, '/');
      if (rel.startsWith('/') || looksLikeSecret(rel)) continue;
      if ((await filter.hiddenReasonDeep(rel, false)) !== undefined) continue;
      const path = folders.length > 1 ? `${folder.name}/${rel}` : rel;
      if (isMentionPath(path)) out.push(path);
    }
    if (out.length >= MAX_LISTED_FILES) break;
  }
  return out;
}

/** `files.exclude` and `search.exclude` of a folder, with the folders never offered: the globs switched on. */
function excludeMap(scope: vscode.Uri): FilesExclude {
  const on: Record<string, boolean> = { ...configuredExcludes(scope) };
  for (const glob of ALWAYS_EXCLUDED) on[glob] = true;
  return on;
}

/** One glob for findFiles of the excluded globs and everything below them (globs with braces are filtered afterwards). */
function excludeGlob(excludes: FilesExclude): string {
  const globs = Object.keys(excludes)
    .filter((g) => !/[{},]/.test(g) && g.trim() !== '')
    .flatMap((g) => [g, `${g.replace(/\/$/, '')}/**`]);
  return `{${globs.join(',')}}`;
}
