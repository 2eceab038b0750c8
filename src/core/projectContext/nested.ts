/**
 * Nested project instructions: when the agent reads or edits a file, the AGENTS.md / CLAUDE.md
 * of the folders between that file and its workspace folder apply to it. This decides which
 * folders to look in (pure, over paths) and renders a found file as a `<system-reminder>`
 * injection; the host reads the files and remembers what this session already injected.
 */
import { classifyToolCall } from '../tools/toolKinds';
import type { Injection } from '../conversation/conversationModel';
import type { Tokenizer } from '../platform/platformPorts';
import { capTokens, instructionText, neutralizeProjectText, type InstructionFile } from './instructions';
import {
  displayWorkspacePath,
  foldersBetween,
  locateInWorkspace,
  type RootFolder,
  type WorkspaceLocation,
} from './paths';

/** A tool call of the round that just ran, with whether it failed. */
export interface RanToolCall {
  readonly name: string;
  readonly input: unknown;
  readonly isError: boolean;
}

/** A folder whose instruction files are to be looked for, with the key it is remembered by. */
export interface NestedFolder {
  readonly at: WorkspaceLocation;
  /** How the folder is shown (workspace-relative, folder-name prefixed in a multi-root workspace). */
  readonly display: string;
  /** Set for a {@link DEPENDENCY_FOLDERS} folder or one inside it: never read, only told about. */
  readonly dependency?: true;
}

/**
 * Folder names that hold other projects' code or tools' output (installed packages, vendored
 * sources, virtual environments, build and cache folders, other version-control stores),
 * lowercase: an AGENTS.md there is that package's author's, not this project's, and is never
 * read as instructions. Matched case-insensitively (`Node_Modules` is `node_modules` on a
 * case-insensitive disk). The host also decides by what a folder is (ignored by git or the
 * excludes, a virtual environment's `pyvenv.cfg`, a `CACHEDIR.TAG`, a submodule, a link out):
 * host/projectContext/thirdPartyFolder.ts.
 */
const DEPENDENCY_FOLDERS = new Set([
  'node_modules',
  'bower_components',
  'jspm_packages',
  'web_modules',
  'vendor',
  'vendors',
  'third_party',
  'third-party',
  'thirdparty',
  '3rdparty',
  'external',
  'externals',
  'deps',
  '_deps',
  '.venv',
  'venv',
  'env',
  'virtualenv',
  '.virtualenv',
  'site-packages',
  'dist-packages',
  '.tox',
  '.nox',
  '__pypackages__',
  '.terraform',
  '.yarn',
  '.pnpm-store',
  'pods',
  'carthage',
  '.bundle',
  '.cargo',
  'target',
  '.gradle',
  '.m2',
  'elm-stuff',
  '.stack-work',
  '_build',
  '.dart_tool',
  '.pub-cache',
  '.git',
  '.hg',
  '.svn',
]);

/** Whether `folder` (workspace-relative, `/`- or `\`-separated) is, or is inside, a {@link DEPENDENCY_FOLDERS} folder (any letter case). */
export function insideDependencies(folder: string): boolean {
  return folder.split(/[\\/]/).some((segment) => DEPENDENCY_FOLDERS.has(segment.toLowerCase()));
}

/**
 * The folders to look in after a tool round: for every successful read or edit that names a
 * path inside the workspace, each folder from just below its workspace folder down to the
 * file's own folder — outermost first, each once, leaving out those `seen` already holds
 * (keys: display paths); a dependency folder ({@link insideDependencies}) and those below it
 * are marked `dependency`, to be told about, never read.
 * Failed calls, other kinds of calls and paths outside the workspace add nothing.
 */
export function nestedFoldersToCheck(
  calls: readonly RanToolCall[],
  roots: readonly RootFolder[],
  seen: ReadonlySet<string>,
): NestedFolder[] {
  const out: NestedFolder[] = [];
  const added = new Set<string>();
  for (const call of calls) {
    if (call.isError) continue;
    const info = classifyToolCall(call);
    if ((info.kind !== 'read' && info.kind !== 'edit') || info.path === undefined) continue;
    const file = locateInWorkspace(info.path, roots);
    if (!file) continue;
    for (const at of foldersBetween(file)) {
      const display = displayWorkspacePath(roots, at);
      if (seen.has(display) || added.has(display)) continue;
      added.add(display);
      out.push(insideDependencies(at.relative) ? { at, display, dependency: true } : { at, display });
    }
  }
  return out;
}

/**
 * A nested instruction file as the `<system-reminder>` injection that goes with the tool
 * results: the file's text, neutralised, in its `<project_instructions>` tag, capped at
 * `maxTokens` with a notice; its origin is recorded on the block.
 */
export function nestedInstructionReminder(
  file: InstructionFile,
  folder: string,
  opts: { readonly maxTokens: number; readonly tokenizer: Tokenizer },
): Injection {
  const capped = capTokens(file.text, Math.max(0, opts.maxTokens), opts.tokenizer);
  const body = instructionText(
    file.origin,
    capped.text,
    capped.truncated ? { ...capped, maxTokens: opts.maxTokens } : undefined,
  );
  return {
    kind: 'system_reminder',
    origin: file.origin,
    prebuilt: true,
    text: `Project instructions for the files under ${neutralizeProjectText(folder)}/ (from ${neutralizeProjectText(file.origin)}); they apply in addition to the more general ones:\n${body}`,
  };
}

/** A nested instruction file or folder not read, with why (e.g. `vendor/lib/`, "it is ignored by git"). */
export interface NotReadNested {
  readonly what: string;
  readonly why: string;
}

/** Most entries the chat line names before "and N more". */
const MAX_NAMED_NOT_READ = 4;

/**
 * The chat's info line for one tool round's nested instructions not read (undefined for none):
 * "Nested instructions not read: vendor/lib/ (it is ignored by git), … and 2 more (see the
 * Context Pipeline output)". Reasons are the reader's own words, without a final period.
 */
export function notReadNestedLine(entries: readonly NotReadNested[]): string | undefined {
  if (entries.length === 0) return undefined;
  const named = entries.slice(0, MAX_NAMED_NOT_READ).map((e) => `${e.what} (${e.why.replace(/\.$/, '')})`);
  const more = entries.length - named.length;
  const tail = more > 0 ? `, and ${more} more (listed in the Context Pipeline output)` : '';
  return `Nested instructions not read: ${named.join(', ')}${tail}.`;
}
