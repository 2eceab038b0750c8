/**
 * list_files: the entries of a folder, or (with a glob) the files below it that match,
 * leaving out `.git` and what `.gitignore` or `files.exclude` hide. Sorted and capped.
 */
import { stat } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { Minimatch } from 'minimatch';
import { formatCount } from '../../core/text/counts';
import { toolError, toolOk, type ToolResult } from '../../core/tools/result';
import type { ListFilesInput } from '../../core/tools/builtin/listFilesSpec';
import { displayPath, realRoots, resolveToolPath, type WorkspaceRoot } from './paths';
import { stoppedMessage, type ToolContext } from './toolContext';
import { walk } from './walk';
import { WorkspaceFilter, type FilesExclude } from './workspaceFilter';

/** A folder to list: its workspace folder, its real path and how it is shown. */
interface Target {
  readonly root: WorkspaceRoot;
  readonly start: string;
  readonly display: string;
}

/**
 * Lists `input.path` (default: the workspace root; in a multi-root workspace without a
 * glob, the folders themselves). Without a glob: direct entries, folders with a trailing `/`.
 * With a glob: files below `path` whose path relative to it matches. At most
 * `limits.listMaxEntries` entries, with a note when more exist.
 */
export async function listFilesTool(
  input: ListFilesInput,
  ctx: ToolContext,
  filesExclude: FilesExclude,
): Promise<ToolResult> {
  const roots = await realRoots(ctx.roots);
  if (roots.length === 0)
    return toolError('list_files: no workspace folder is open; ask the user to open a folder in VS Code.');
  let targets: Target[];
  if (input.path === undefined) {
    if (roots.length > 1 && input.glob === undefined) return toolOk(roots.map((r) => `${r.name}/`).join('\n'));
    targets = roots.map((root) => ({ root, start: root.path, display: displayPath(roots, root, root.path) }));
  } else {
    const resolved = await resolveToolPath(ctx, input.path, 'read');
    if (!resolved.ok) return toolError(`list_files: ${resolved.error}`);
    if (!resolved.exists)
      return toolError(`list_files: ${resolved.display} does not exist. List its parent folder to see what is there.`);
    if (!(await stat(resolved.path)).isDirectory())
      return toolError(`list_files: ${resolved.display} is a file, not a folder; use read_file to read it.`);
    targets = [{ root: resolved.root, start: resolved.path, display: resolved.display }];
  }

  const max = ctx.limits.listMaxEntries;
  const nocase = process.platform === 'win32' || process.platform === 'darwin';
  const matcher =
    input.glob === undefined ? undefined : new Minimatch(input.glob.replace(/^\.\//, ''), { dot: true, nocase });
  const found: string[] = [];
  const notes: string[] = [];
  let more = false;
  for (const target of targets) {
    const filter = new WorkspaceFilter(target.root.path, filesExclude);
    const startRel = relative(target.root.path, target.start).split(sep).join('/');
    const hidden = startRel === '' ? undefined : await filter.hiddenReasonDeep(startRel, true);
    if (hidden !== undefined)
      notes.push(`[${target.display} is hidden by ${hidden}; it is listed anyway because you asked for it.]`);
    const summary = await walk(
      {
        root: target.root.path,
        start: target.start,
        filter: hidden ? undefined : filter,
        recursive: matcher !== undefined,
        maxEntries: ctx.limits.walkMaxEntries,
        signal: ctx.signal,
      },
      (entry) => {
        const shown = displayPath(roots, target.root, entry.abs);
        if (matcher === undefined) {
          found.push(entry.isDir ? `${shown}/` : shown);
        } else {
          const below = relative(target.start, entry.abs).split(sep).join('/');
          if (entry.isDir) return matcher.match(below, true) ? 'continue' : 'skip';
          if (matcher.match(below)) found.push(shown);
        }
        if (found.length > max) {
          more = true;
          return 'stop';
        }
        return 'continue';
      },
    );
    if (summary.aborted) return toolError(stoppedMessage('list_files'));
    if (summary.hitEntryLimit)
      notes.push(
        `[The walk of ${target.display} stopped after ${formatCount(ctx.limits.walkMaxEntries)} entries, so this list is incomplete; narrow it with path.]`,
      );
    if (more) break;
  }

  found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const shown = found.slice(0, max);
  if (more)
    notes.push(`[Showing the first ${formatCount(max)} entries; more exist. Narrow the listing with path or glob.]`);
  if (shown.length === 0) {
    const where = targets.map((t) => t.display).join(', ');
    if (input.glob === undefined)
      return toolOk(
        [`(${where} has no entries, apart from any hidden by .gitignore or files.exclude)`, ...notes].join('\n'),
      );
    const hint = !input.glob.includes('/')
      ? ` A glob without "/" only matches at the top level of path; use "**/${input.glob}" to include subfolders.`
      : '';
    return toolOk(
      [
        `No files under ${where} match "${input.glob}" (files hidden by .gitignore or files.exclude are not listed).${hint}`,
        ...notes,
      ].join('\n'),
    );
  }
  return toolOk(notes.length > 0 ? `${shown.join('\n')}\n\n${notes.join('\n')}` : shown.join('\n'));
}
