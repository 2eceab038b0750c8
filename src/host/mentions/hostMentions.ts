/** The extension's `@` mentions: the workspace's files (findFiles) and readFresh's confined read, over the workspace folders only. */
import * as vscode from 'vscode';
import { readFresh } from '../tools/readFresh';
import { FileMentions, type FileMentionsDeps } from './fileMentions';
import { WorkspaceFiles } from './workspaceFiles';

/**
 * Mentions wired to VS Code: files listed by {@link WorkspaceFiles}, read with read_file's
 * rules confined to the workspace folders (never the session's files folder); dispose `files`
 * with the extension.
 */
export function hostFileMentions(nextTurn: FileMentionsDeps['nextTurn']): {
  readonly mentions: FileMentions;
  readonly files: WorkspaceFiles;
} {
  const files = new WorkspaceFiles();
  const mentions = new FileMentions({
    files: () => files.files(),
    read: async (path) => {
      const roots = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
      if (roots.length === 0) return { ok: false, reason: 'no folder is open' };
      try {
        return await readFresh({ roots }, path);
      } catch {
        return { ok: false, reason: 'it could not be read' };
      }
    },
    nextTurn,
  });
  return { mentions, files };
}
