/**
 * search: a JavaScript regular expression matched line by line over the workspace's text
 * files, skipping binary, oversized and hidden files; bounded, and it stops walking as soon
 * as it has enough matches, on Stop, or after its time limit.
 */
import { realpath, stat } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { Minimatch } from 'minimatch';
import { formatBytes, safeCutIndex } from '../../core/platform/text';
import { formatCount, plural } from '../../core/text/counts';
import { toolError, toolOk, type ToolResult } from '../../core/tools/result';
import type { SearchInput } from '../../core/tools/builtin/searchSpec';
import { looksLikeSecret } from '../../core/security/secretFiles';
import { looksBinary } from './binary';
import { openConfined } from './confinedFs';
import { displayPath, isInside, realRoots, resolveToolPath, type WorkspaceRoot } from './paths';
import { stoppedMessage, type ToolContext } from './toolContext';
import { walk } from './walk';
import { WorkspaceFilter, type FilesExclude } from './workspaceFilter';

/** `pattern` as a RegExp, or the reason it is not a valid one (in words for the model). */
export function compilePattern(input: Pick<SearchInput, 'pattern' | 'literal' | 'case_sensitive'>): RegExp | string {
  const source = input.literal === true ? input.pattern.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') : input.pattern;
  const flags = input.case_sensitive === false ? 'i' : '';
  try {
    return new RegExp(source, flags);
  } catch (plain) {
    try {
      return new RegExp(source, `${flags}u`); // \p{…} and friends need the u flag
    } catch {
      const why = plain instanceof Error ? plain.message : String(plain);
      return `search: invalid regular expression (${why}). Escape special characters such as ( ) [ ] { } . * + ? with a backslash, or set literal: true to search for plain text.`;
    }
  }
}

/** Cuts a long matching line to a window of about `width` characters around the match. */
export function matchWindow(line: string, matchAt: number, width: number): string {
  if (line.length <= width) return line;
  const start = safeCutIndex(line, Math.max(0, Math.min(matchAt - Math.floor(width / 3), line.length - width)));
  const end = safeCutIndex(line, start + width);
  return `${start > 0 ? '…' : ''}${line.slice(start, end)}${end < line.length ? '…' : ''}`;
}

/**
 * Searches `input.path` (a folder or a file; default: every workspace folder) for lines
 * matching the pattern. Returns `path:line: text` lines, at most `max_results` (default
 * `limits.searchMaxMatches`), then notes on what was cut or skipped.
 */
export async function searchTool(
  input: SearchInput,
  ctx: ToolContext,
  filesExclude: FilesExclude,
): Promise<ToolResult> {
  const regex = compilePattern(input);
  if (typeof regex === 'string') return toolError(regex);
  const { limits, signal } = ctx;
  const roots = await realRoots(ctx.roots);
  if (roots.length === 0)
    return toolError('search: no workspace folder is open; ask the user to open a folder in VS Code.');

  let targets: { root: WorkspaceRoot; start: string; display: string; isFile: boolean }[];
  if (input.path === undefined)
    targets = roots.map((root) => ({
      root,
      start: root.path,
      display: displayPath(roots, root, root.path),
      isFile: false,
    }));
  else {
    const resolved = await resolveToolPath(ctx, input.path, 'read');
    if (!resolved.ok) return toolError(`search: ${resolved.error}`);
    if (!resolved.exists)
      return toolError(`search: ${resolved.display} does not exist. Use list_files to find the right path.`);
    targets = [
      {
        root: resolved.root,
        start: resolved.path,
        display: resolved.display,
        isFile: (await stat(resolved.path)).isFile(),
      },
    ];
  }

  const max = Math.min(input.max_results ?? limits.searchMaxMatches, limits.searchMaxMatches);
  const nocase = process.platform === 'win32' || process.platform === 'darwin';
  const matcher =
    input.glob === undefined ? undefined : new Minimatch(input.glob.replace(/^\.\//, ''), { dot: true, nocase });
  const deadline = Date.now() + limits.searchTimeoutMs;
  const matches: string[] = [];
  const filesWithMatches = new Set<string>();
  let filesSearched = 0;
  let tooLarge = 0;
  let secretFiles = 0;
  let more = false;
  let timedOut = false;
  let walkCut = false;

  const searchFile = async (
    abs: string,
    shown: string,
    allowed: readonly WorkspaceRoot[],
  ): Promise<'continue' | 'stop'> => {
    if (Date.now() > deadline) {
      timedOut = true;
      return 'stop';
    }
    if (looksLikeSecret(shown) || looksLikeSecret(abs)) {
      secretFiles++; // the rule read_file and editor context follow: never sent to the model
      return 'continue';
    }
    const bytes = await readConfined(abs, allowed, shown, limits.searchMaxFileBytes);
    if (bytes === 'too-large') {
      tooLarge++;
      return 'continue';
    }
    if (bytes === undefined || looksBinary(bytes.subarray(0, limits.binarySniffBytes))) return 'continue';
    filesSearched++;
    const lines = bytes
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .split(/\r\n|\r|\n/);
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string;
      const m = regex.exec(line);
      if (m === null) continue;
      if (matches.length >= max) {
        more = true;
        return 'stop';
      }
      matches.push(`${shown}:${i + 1}: ${matchWindow(line, m.index, limits.searchMaxLineChars)}`);
      filesWithMatches.add(shown);
    }
    return signal.aborted ? 'stop' : 'continue';
  };

  for (const target of targets) {
    const allowed = [target.root, ...roots];
    if (target.isFile) {
      await searchFile(target.start, target.display, allowed);
      continue;
    }
    const filter = new WorkspaceFilter(target.root.path, filesExclude);
    const startRel = relative(target.root.path, target.start).split(sep).join('/');
    const explicit = startRel !== '' && (await filter.hiddenReasonDeep(startRel, true)) !== undefined;
    const summary = await walk(
      {
        root: target.root.path,
        start: target.start,
        filter: explicit ? undefined : filter,
        recursive: true,
        maxEntries: limits.walkMaxEntries,
        signal,
      },
      async (entry) => {
        const below = relative(target.start, entry.abs).split(sep).join('/');
        if (entry.isDir) return matcher === undefined || matcher.match(below, true) ? 'continue' : 'skip';
        if (matcher !== undefined && !matcher.match(below)) return 'continue';
        const real = entry.isSymlink ? await realpath(entry.abs).catch(() => undefined) : entry.abs;
        if (real === undefined || !allowed.some((r) => isInside(r.path, real))) return 'continue';
        return searchFile(real, displayPath(roots, target.root, entry.abs), allowed);
      },
    );
    walkCut ||= summary.hitEntryLimit;
    if (more || timedOut || signal.aborted) break;
  }
  if (signal.aborted) return toolError(stoppedMessage('search'));

  const notes: string[] = [];
  if (more)
    notes.push(
      `[Stopped at ${formatCount(max)} matches; there are more. Narrow the search with path, glob or a more specific pattern.]`,
    );
  if (timedOut)
    notes.push(
      `[The search stopped after ${formatCount(limits.searchTimeoutMs / 1000)} s, so results are incomplete; narrow it with path or glob.]`,
    );
  if (walkCut)
    notes.push(
      `[The walk stopped after ${formatCount(limits.walkMaxEntries)} entries, so results are incomplete; narrow it with path.]`,
    );
  if (secretFiles > 0)
    notes.push(
      `[Skipped ${plural(secretFiles, 'secret-looking file')} (.env, .git/config, keys …): their content is never sent to the model.]`,
    );
  if (tooLarge > 0)
    notes.push(
      `[Skipped ${plural(tooLarge, 'file')} larger than ${formatBytes(limits.searchMaxFileBytes)}; use read_file with offset/limit for those.]`,
    );
  const where = targets.map((t) => t.display).join(', ');
  if (matches.length === 0) {
    const slashes = /^\/.+\/[a-z]*$/.test(input.pattern)
      ? ' Note: the pattern includes the surrounding slashes; give the expression without /…/ and use case_sensitive instead of flags.'
      : '';
    return toolOk(
      [
        `No matches for ${JSON.stringify(input.pattern)} in ${where} (${plural(filesSearched, 'file')} searched).${slashes}`,
        ...notes,
      ].join('\n'),
    );
  }
  const summary = `[${plural(matches.length, 'match', 'matches')} in ${plural(filesWithMatches.size, 'file')}.]`;
  return toolOk(`${matches.join('\n')}\n\n${[summary, ...notes].join('\n')}`);
}

/**
 * The bytes of the file at `abs` through a confined open (see confinedFs.ts): undefined when
 * it vanished, is unreadable, not a regular file or left `allowed` meanwhile; 'too-large' over `maxBytes`.
 */
async function readConfined(
  abs: string,
  allowed: readonly WorkspaceRoot[],
  shown: string,
  maxBytes: number,
): Promise<Buffer | 'too-large' | undefined> {
  const opened = await openConfined(abs, allowed, shown);
  if (!opened.ok) return undefined;
  try {
    if (!opened.stats.isFile()) return undefined;
    if (opened.stats.size > maxBytes) return 'too-large';
    return await opened.handle.readFile().catch(() => undefined);
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}
