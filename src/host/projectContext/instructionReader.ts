/**
 * Reads project instruction files through a small file port (VS Code's workspace.fs in the
 * extension, a fake in tests): the root files of every workspace folder, and the nested ones
 * of given folders. Workspace content is untrusted: nothing is read in an untrusted
 * workspace; a file over 1 MB, a binary one, or a symbolic link that leads outside the
 * workspace is skipped with its reason; bad UTF-8 and lone surrogates are cleaned.
 * No `vscode` import: unit-tested under plain mocha.
 */
import {
  childOf,
  displayWorkspacePath,
  type RootFolder,
  type WorkspaceLocation,
} from '../../core/projectContext/paths';
import {
  rootInstructionPaths,
  type InstructionFile,
  type InstructionSettings,
} from '../../core/projectContext/instructions';
import { toWellFormed } from '../../core/platform/text';
import { looksBinary } from '../tools/binary';

/** Largest instruction file read (bytes). */
export const MAX_INSTRUCTION_FILE_BYTES = 1_000_000;

/** What is at a path: a file (its size, and whether it is a symbolic link), or something else / nothing. */
export type FileProbe =
  | { readonly kind: 'file'; readonly size: number; readonly symlink: boolean }
  | { readonly kind: 'missing' }
  | { readonly kind: 'other' };

/** The workspace as the reader sees it. Every method may reject; the reader turns that into a skip reason. */
export interface ProjectFiles {
  /** The workspace folders, in order. */
  folders(): readonly RootFolder[];
  /** Whether the user trusts this workspace (VS Code's workspace trust). */
  trusted(): boolean;
  stat(at: WorkspaceLocation): Promise<FileProbe>;
  read(at: WorkspaceLocation): Promise<Uint8Array>;
  /**
   * Whether the file's real path (symbolic links in it and in its folders followed) lies
   * inside a workspace folder; undefined when that cannot be told (then a link is not followed).
   */
  insideWorkspace?(at: WorkspaceLocation): Promise<boolean | undefined>;
  /**
   * A judge, for one tool round, of why a folder holds another project's files (ignored by git
   * or the excludes, a virtual environment, a cache, a submodule, a link out:
   * thirdPartyFolder.ts), undefined when it is this project's; it keeps the `.gitignore` files
   * it read for that round. Absent: decided by the folder names alone.
   */
  thirdPartyJudge?(): (at: WorkspaceLocation) => Promise<string | undefined>;
}

/** A file that exists but was not used, and why. */
export interface SkippedFile {
  readonly origin: string;
  readonly reason: string;
}

/** Result of reading one candidate path. */
export type ReadOutcome =
  | { readonly kind: 'file'; readonly file: InstructionFile }
  | { readonly kind: 'missing' }
  | { readonly kind: 'skipped'; readonly skipped: SkippedFile };

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Reads one instruction file at `at`, or says why not (missing is not a problem). */
export async function readInstructionFile(files: ProjectFiles, at: WorkspaceLocation): Promise<ReadOutcome> {
  const origin = displayWorkspacePath(files.folders(), at);
  const skip = (reason: string): ReadOutcome => ({ kind: 'skipped', skipped: { origin, reason } });
  let probe: FileProbe;
  try {
    probe = await files.stat(at);
  } catch {
    return { kind: 'missing' };
  }
  if (probe.kind === 'missing') return { kind: 'missing' };
  if (probe.kind === 'other') return skip('it is not a regular file');
  if (probe.size > MAX_INSTRUCTION_FILE_BYTES)
    return skip(`it is larger than 1 MB (${probe.size.toLocaleString('en-US')} bytes)`);
  const inside = await files.insideWorkspace?.(at).catch(() => undefined);
  if (inside === false) return skip('it leads outside the workspace through a symbolic link');
  if (inside === undefined && probe.symlink) return skip('it is a symbolic link whose target could not be checked');
  let bytes: Uint8Array;
  try {
    bytes = await files.read(at);
  } catch (err) {
    return skip(`it could not be read: ${message(err)}`);
  }
  if (bytes.length > MAX_INSTRUCTION_FILE_BYTES)
    return skip(`it is larger than 1 MB (${bytes.length.toLocaleString('en-US')} bytes)`);
  if (looksBinary(bytes.subarray(0, 8192))) return skip('it looks like a binary file');
  const text = toWellFormed(new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, ''));
  if (text.trim() === '') return skip('it is empty');
  return { kind: 'file', file: { origin, text } };
}

/** Instruction files found, and those skipped with their reasons. */
export interface InstructionsRead {
  readonly files: readonly InstructionFile[];
  readonly skipped: readonly SkippedFile[];
  /** Set when the workspace is untrusted: nothing was read. */
  readonly untrusted?: true;
}

/**
 * Reads the root instruction files the settings enable, folder by folder, in the order of
 * ROOT_INSTRUCTION_FILES. A file whose text equals one already read (a symbolic link or a
 * copy: CLAUDE.md → AGENTS.md) is skipped as a duplicate.
 */
export async function readRootInstructions(
  files: ProjectFiles,
  settings: InstructionSettings,
): Promise<InstructionsRead> {
  if (!files.trusted()) return { files: [], skipped: [], untrusted: true };
  const found: InstructionFile[] = [];
  const skipped: SkippedFile[] = [];
  const paths = rootInstructionPaths(settings);
  const folders = files.folders();
  for (let rootIndex = 0; rootIndex < folders.length; rootIndex++) {
    for (const path of paths) {
      const r = await readInstructionFile(files, childOf({ rootIndex, relative: '' }, path));
      if (r.kind === 'skipped') skipped.push(r.skipped);
      if (r.kind !== 'file') continue;
      const same = found.find((f) => f.text === r.file.text);
      if (same) skipped.push({ origin: r.file.origin, reason: `it has the same content as ${same.origin}` });
      else found.push(r.file);
    }
  }
  return { files: found, skipped };
}

/** Reads the nested instruction files (`names`) of `folder`, skipping a text equal to one already read there. */
export async function readFolderInstructions(
  files: ProjectFiles,
  folder: WorkspaceLocation,
  names: readonly string[],
): Promise<InstructionsRead> {
  if (!files.trusted()) return { files: [], skipped: [], untrusted: true };
  const found: InstructionFile[] = [];
  const skipped: SkippedFile[] = [];
  for (const name of names) {
    const r = await readInstructionFile(files, childOf(folder, name));
    if (r.kind === 'skipped') skipped.push(r.skipped);
    if (r.kind !== 'file') continue;
    if (found.some((f) => f.text === r.file.text))
      skipped.push({
        origin: r.file.origin,
        reason: 'it has the same content as another instruction file of its folder',
      });
    else found.push(r.file);
  }
  return { files: found, skipped };
}

/**
 * The instruction files (`names`) that exist in `folder`, as display paths, without reading
 * them: for telling the user which files of a folder that is never read were left out.
 */
export async function instructionFilesIn(
  files: ProjectFiles,
  folder: WorkspaceLocation,
  names: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  const roots = files.folders();
  for (const name of names) {
    const at = childOf(folder, name);
    const probe = await files.stat(at).catch(() => undefined);
    if (probe && probe.kind !== 'missing') out.push(displayWorkspacePath(roots, at));
  }
  return out;
}
