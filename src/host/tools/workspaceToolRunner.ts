/**
 * The ToolRunner of the agent loop: checks each call's input, dispatches it to the
 * workspace tool of that name, caps what comes back and times it. It never throws: an
 * exception inside a tool becomes an error outcome naming the tool.
 */
import type { ToolCall, ToolOutcome, ToolRunner } from '../../core/agent/agentPorts';
import type { FreshRead } from '../../core/compaction/reattach';
import { toWellFormed } from '../../core/platform/text';
import { capOutput, DEFAULT_TOOL_LIMITS, type ToolLimits } from '../../core/tools/limits';
import { toolError, type ToolResult } from '../../core/tools/result';
import { validateToolInput, type ValidatedToolCall } from '../../core/tools/validateInput';
import type { Approver } from '../approvals/approval';
import { editFileTool } from './editFile';
import { listFilesTool } from './listFiles';
import { readFileTool } from './readFile';
import { readFresh } from './readFresh';
import { runCommandTool } from './runCommand';
import { searchTool } from './search';
import { stoppedMessage, type ToolContext } from './toolContext';
import type { FilesExclude } from './workspaceFilter';

/** What the runner needs from the host. Functions are read on every call, so setting changes apply at once. */
export interface WorkspaceToolRunnerOptions {
  /** Workspace folder paths, first = default; or a function returning the current ones. */
  readonly roots: readonly string[] | (() => readonly string[]);
  /**
   * The session's files folders (saved pastes and tool outputs): the reading tools reach them
   * by absolute path only, nothing writes there, and they are never workspace folders.
   */
  readonly readOnlyRoots?: () => readonly string[];
  readonly approver: Approver;
  /** The `contextPipeline.enableRunCommand` setting. */
  readonly runCommandEnabled: () => boolean;
  /** Secrets in use (the API key): stripped from run_command's environment. */
  readonly secrets?: () => readonly string[];
  /** The workspace's `files.exclude` setting. */
  readonly filesExclude: () => FilesExclude;
  /** Overrides of the default caps (tests use small ones). */
  readonly limits?: Partial<ToolLimits>;
  /** Milliseconds clock for durationMs; defaults to performance.now. */
  readonly now?: () => number;
}

/** Runs the five workspace tools over Node's fs and child_process. */
export class WorkspaceToolRunner implements ToolRunner {
  private readonly limits: ToolLimits;
  private readonly now: () => number;

  constructor(private readonly options: WorkspaceToolRunnerOptions) {
    this.limits = { ...DEFAULT_TOOL_LIMITS, ...options.limits };
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * Runs `call`. The outcome's text is at most `limits.maxResultChars` characters, never
   * empty, well-formed UTF-16 (a lone surrogate, e.g. echoed from the model's input, becomes
   * U+FFFD), and `isError` is set for invalid input, refusals, failures, declines and Stop.
   */
  async run(call: ToolCall, signal: AbortSignal): Promise<ToolOutcome> {
    const started = this.now();
    let result: ToolResult;
    try {
      result = await this.dispatch(call, signal);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      result = toolError(`${call.name} failed: ${message}. Check the input and try again, or try another approach.`);
    }
    const text = toWellFormed(capOutput(result.text === '' ? '(no output)' : result.text, this.limits.maxResultChars));
    return { content: text, isError: result.isError, durationMs: Math.max(0, Math.round(this.now() - started)) };
  }

  /**
   * Reads a file fresh for the re-attach after a compaction, under read_file's rules (same
   * folders, same confinement, secrets refused; see readFresh.ts). Never throws.
   */
  async readFresh(path: string): Promise<FreshRead> {
    const roots = typeof this.options.roots === 'function' ? this.options.roots() : this.options.roots;
    if (roots.length === 0) return { ok: false, reason: 'no folder is open' };
    try {
      return await readFresh({ roots, sessionRoots: this.options.readOnlyRoots?.() ?? [] }, path);
    } catch {
      return { ok: false, reason: 'it could not be read' };
    }
  }

  private async dispatch(call: ToolCall, signal: AbortSignal): Promise<ToolResult> {
    const checked = validateToolInput(call.name, call.input);
    if (!checked.ok) return toolError(checked.error);
    if (signal.aborted) return toolError(stoppedMessage(call.name));
    const roots = typeof this.options.roots === 'function' ? this.options.roots() : this.options.roots;
    if (roots.length === 0)
      return toolError(
        `${call.name}: no folder is open in VS Code, so there is no workspace to work in. Ask the user to open a folder.`,
      );
    const ctx: ToolContext = { roots, sessionRoots: this.options.readOnlyRoots?.() ?? [], signal, limits: this.limits };
    return this.runChecked(checked.call, ctx);
  }

  private runChecked(call: ValidatedToolCall, ctx: ToolContext): Promise<ToolResult> {
    switch (call.name) {
      case 'read_file':
        return readFileTool(call.input, ctx);
      case 'list_files':
        return listFilesTool(call.input, ctx, this.options.filesExclude());
      case 'search':
        return searchTool(call.input, ctx, this.options.filesExclude());
      case 'edit_file':
        return editFileTool(call.input, ctx, this.options.approver);
      case 'run_command':
        return runCommandTool(
          call.input,
          ctx,
          this.options.runCommandEnabled(),
          this.options.approver,
          this.options.secrets?.() ?? [],
        );
    }
  }
}
