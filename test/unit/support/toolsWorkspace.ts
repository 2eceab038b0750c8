/**
 * Helpers for the workspace-tool tests: throw-away folders under the OS temp dir, files
 * written from a map, a ToolContext with small caps, and scripted approvers.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DEFAULT_TOOL_LIMITS, type ToolLimits } from '../../../src/core/tools/limits';
import type { ToolResult } from '../../../src/core/tools/result';
import type { ApprovalDecision, Approver, CommandProposal, EditProposal } from '../../../src/host/approvals/approval';
import type { ToolContext } from '../../../src/host/tools/toolContext';

/** Temp folders made by {@link tempDir}, removed by {@link cleanTempDirs}. */
const made: string[] = [];

/** A new empty folder under the OS temp dir (its real path). */
export async function tempDir(prefix = 'cp-tools-'): Promise<string> {
  const dir = await mkdtemp(join(await realpath(tmpdir()), prefix));
  made.push(dir);
  return dir;
}

/** Removes every folder {@link tempDir} made. */
export async function cleanTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}

/** Writes `files` (relative path → content) below `root`, creating folders. */
export async function writeTree(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(root, rel);
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
}

/** A tool context over `roots` with default caps (overridable) and a live signal. */
export function toolContext(
  roots: readonly string[],
  limits: Partial<ToolLimits> = {},
  signal: AbortSignal = new AbortController().signal,
): ToolContext {
  return { roots, signal, limits: { ...DEFAULT_TOOL_LIMITS, ...limits } };
}

/** An approver that answers from a script and records what it was asked. */
export class ScriptedApprover implements Approver {
  readonly edits: EditProposal[] = [];
  readonly commands: CommandProposal[] = [];
  constructor(
    private readonly decide: ApprovalDecision = { approved: true },
    private readonly onAsk?: () => void,
  ) {}
  async approveEdit(proposal: EditProposal, _signal?: AbortSignal): Promise<ApprovalDecision> {
    this.edits.push(proposal);
    this.onAsk?.();
    return this.decide;
  }
  async approveCommand(proposal: CommandProposal, _signal?: AbortSignal): Promise<ApprovalDecision> {
    this.commands.push(proposal);
    this.onAsk?.();
    return this.decide;
  }
}

/** The text of a result, asserting it is (or is not) an error. */
export function expectOk(result: ToolResult): string {
  if (result.isError) throw new Error(`expected success, got error: ${result.text}`);
  return result.text;
}

/** The text of an error result. */
export function expectError(result: ToolResult): string {
  if (!result.isError) throw new Error(`expected an error, got: ${result.text}`);
  return result.text;
}
