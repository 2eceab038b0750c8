/**
 * Pure helpers for editor context (no `vscode` at run time, so they are unit-tested):
 * which editors may be named, how they are named, which files the workspace excludes,
 * which look like secrets, and how a selection becomes an `ide_selection` injection.
 * The live tracking of the editor is EditorContextTracker's (editorContextTracker.ts).
 */
import { Minimatch } from 'minimatch';
import type { Injection } from '../core/conversation/conversationModel';
import { looksLikeSecret } from '../core/security/secretFiles';
import { headChars } from '../core/platform/text';

/** Selections longer than this are cut, with a notice saying how much is missing. */
export const MAX_SELECTION_CHARS = 20_000;

/**
 * Whether a path looks like a secrets file: never injected, whatever the settings say. The
 * rule is shared with read_file, search and the edit approval card (core/secretFiles.ts).
 */
export { looksLikeSecret };

/** URI schemes whose editors may be named: files (local or remote) and untitled documents. */
const NAMED_SCHEMES = new Set(['file', 'vscode-remote', 'untitled']);

/**
 * Schemes of editors that are never remembered as "the" editor: those outside the editor
 * area (the Output panel) and the extension's own read-only documents (a proposed edit's diff,
 * a compaction's originals), which open beside the user's file and must not replace it.
 */
const PANEL_SCHEMES = new Set([
  'output',
  'debug',
  'vscode-terminal',
  'context-pipeline-proposed',
  'context-pipeline-record',
]);

/** Whether an editor of this scheme is not one of the user's (a panel, or the extension's own documents). */
export function isPanelScheme(scheme: string): boolean {
  return PANEL_SCHEMES.has(scheme);
}

/** The few facts about a document the naming rules need. */
export interface DocumentFacts {
  readonly scheme: string;
  /** The URI's path (for untitled documents, `Untitled-1` or the path it will be saved to). */
  readonly uriPath: string;
  /** Path relative to its workspace folder (`/`-separated); absent when outside every folder. */
  readonly workspaceRelative?: string;
  /** Full path, for files outside the workspace. */
  readonly fsPath: string;
}

/** Why nothing is said about an editor. */
export type SkipReason = 'non-file editor' | 'secret-looking file' | 'excluded by files.exclude';

/** How an editor is named to the model, or why it is not. */
export type EditorName =
  { readonly ok: true; readonly path: string } | { readonly ok: false; readonly reason: SkipReason };

/**
 * Names a document for the model: workspace-relative for files in the workspace, the full
 * path outside it, `Untitled-1 (unsaved)` for untitled documents. Non-file editors (output,
 * git diffs, settings), secret-looking names and what `files.exclude` hides are not named.
 */
export function nameDocument(doc: DocumentFacts, filesExclude: FilesExclude = {}): EditorName {
  if (!NAMED_SCHEMES.has(doc.scheme)) return { ok: false, reason: 'non-file editor' };
  if (doc.scheme === 'untitled') {
    const base = doc.uriPath.split('/').filter(Boolean).at(-1) ?? 'Untitled';
    const path = `${base} (unsaved)`;
    return looksLikeSecret(base) ? { ok: false, reason: 'secret-looking file' } : { ok: true, path };
  }
  const path = doc.workspaceRelative ?? doc.fsPath;
  if (looksLikeSecret(path)) return { ok: false, reason: 'secret-looking file' };
  if (doc.workspaceRelative !== undefined && isExcluded(doc.workspaceRelative, filesExclude))
    return { ok: false, reason: 'excluded by files.exclude' };
  return { ok: true, path };
}

/** A `files.exclude`-style map: glob → whether it is excluded (only `true` excludes; `when` clauses are not honoured). */
export type FilesExclude = Readonly<Record<string, unknown>>;

/**
 * Whether `files.exclude` hides a workspace-relative path: a glob matching the path itself
 * or one of its parent folders (VS Code hides everything below an excluded folder).
 */
export function isExcluded(
  relativePath: string,
  filesExclude: FilesExclude,
  caseInsensitive = process.platform === 'win32' || process.platform === 'darwin',
): boolean {
  const globs = Object.entries(filesExclude)
    .filter(([glob, on]) => on === true && glob.trim() !== '')
    .map(([glob]) => new Minimatch(glob.replace(/^\.\//, ''), { dot: true, nocase: caseInsensitive }));
  if (globs.length === 0) return false;
  const segments = relativePath.replace(/\\/g, '/').split('/').filter(Boolean);
  for (let i = 1; i <= segments.length; i++) {
    const prefix = segments.slice(0, i).join('/');
    if (globs.some((m) => m.match(prefix))) return true;
  }
  return false;
}

/** A selection as editors report it: 0-based positions, end exclusive at `endCharacter`. */
export interface SelectionFacts {
  readonly startLine: number;
  readonly endLine: number;
  readonly endCharacter: number;
  readonly text: string;
}

/**
 * The `ide_selection` injection for a selection, or undefined when it is empty or only
 * whitespace. Lines are 1-based and inclusive; a selection ending at the start of a line
 * does not count that line. Text beyond `maxChars` is cut and the cut is stated.
 */
export function selectionInjection(
  path: string,
  sel: SelectionFacts,
  opts: { maxChars?: number; pinned?: boolean } = {},
): Extract<Injection, { kind: 'ide_selection' }> | undefined {
  if (!sel.text.trim()) return undefined;
  const kept = headChars(sel.text, opts.maxChars ?? MAX_SELECTION_CHARS);
  return {
    kind: 'ide_selection',
    path,
    startLine: sel.startLine + 1,
    endLine: sel.endCharacter === 0 && sel.endLine > sel.startLine ? sel.endLine : sel.endLine + 1,
    text: kept,
    ...(kept.length < sel.text.length ? { truncatedChars: sel.text.length - kept.length } : {}),
    ...(opts.pinned ? { pinned: true } : {}),
  };
}

/** Whether two selection injections carry the same lines of the same file. */
export function sameSelection(a: Injection, b: Injection): boolean {
  return (
    a.kind === 'ide_selection' &&
    b.kind === 'ide_selection' &&
    a.path === b.path &&
    a.startLine === b.startLine &&
    a.endLine === b.endLine &&
    a.text === b.text
  );
}
