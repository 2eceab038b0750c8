import * as vscode from 'vscode';
import type { FilesExclude } from './tools/workspaceFilter';

/**
 * The `files.exclude` and `search.exclude` globs switched on for a workspace folder (`scope`),
 * as one map: what the user hides from the explorer and from search, read where the `@`
 * picker lists files and where nested instruction folders are judged.
 */
export function configuredExcludes(scope: vscode.Uri): FilesExclude {
  const on: Record<string, boolean> = {};
  for (const section of ['files', 'search']) {
    const map = vscode.workspace.getConfiguration(section, scope).get<Record<string, unknown>>('exclude') ?? {};
    for (const [glob, value] of Object.entries(map)) if (value === true) on[glob] = true;
  }
  return on;
}
