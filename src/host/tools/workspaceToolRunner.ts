/**
 * The host's tool registry: the built-in tools (builtinTools.ts) and any others the host adds
 * (MCP servers' tools), routed by name through the core's ToolRegistry — checked, approved
 * where the tool says so, executed, capped and timed. It never throws: an exception inside a
 * tool becomes an error outcome naming the tool.
 */
import type { ToolCall, ToolCallState, ToolOutcome, ToolRunner } from '../../core/tools/toolRunner';
import type { FreshRead } from '../../core/compaction/reattach';
import type { ToolSchema } from '../../core/conversation/conversationModel';
import { DEFAULT_TOOL_LIMITS, type ToolLimits } from '../../core/tools/limits';
import type { AnyToolDefinition } from '../../core/tools/toolDefinition';
import { ToolRegistry, type CallApprover } from '../../core/tools/toolRegistry';
import type { Approver } from '../approvals/approval';
import { builtinTools } from './builtinTools';
import { readFresh } from './readFresh';
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
  /** The `contextPipeline.subagents.enabled` setting: `task` is offered when true (absent: never). */
  readonly subagentsEnabled?: () => boolean;
  /** Secrets in use (the API key): stripped from run_command's environment. */
  readonly secrets?: () => readonly string[];
  /** The workspace's `files.exclude` setting. */
  readonly filesExclude: () => FilesExclude;
  /** Tools besides the built-ins (an MCP server's), offered after them; read on every call. */
  readonly extraTools?: () => readonly AnyToolDefinition[];
  /** Consent for tools that ask before they run (MCP tools); without it their calls are refused. */
  readonly approveCall?: CallApprover;
  /** Overrides of the default caps (tests use small ones). */
  readonly limits?: Partial<ToolLimits>;
  /** Milliseconds clock for durationMs; defaults to performance.now. */
  readonly now?: () => number;
}

/** The agent's tools over Node's fs and child_process, plus the host's extra tools. */
export class WorkspaceToolRunner implements ToolRunner {
  private readonly registry: ToolRegistry;
  private readonly roots: () => readonly string[];
  private readonly builtins: readonly AnyToolDefinition[];

  constructor(private readonly options: WorkspaceToolRunnerOptions) {
    const limits = { ...DEFAULT_TOOL_LIMITS, ...options.limits };
    const given = options.roots;
    this.roots = typeof given === 'function' ? given : () => given;
    const builtins = (this.builtins = builtinTools({
      roots: this.roots,
      readOnlyRoots: () => options.readOnlyRoots?.() ?? [],
      approver: options.approver,
      runCommandEnabled: options.runCommandEnabled,
      subagentsEnabled: options.subagentsEnabled ?? (() => false),
      secrets: () => options.secrets?.() ?? [],
      filesExclude: options.filesExclude,
      limits,
    }));
    const extra = options.extraTools;
    this.registry = new ToolRegistry({
      definitions: extra ? () => [...builtins, ...extra()] : () => builtins,
      now: options.now ?? (() => performance.now()),
      maxResultChars: limits.maxResultChars,
      ...(options.approveCall ? { approve: options.approveCall } : {}),
    });
  }

  /** The tools to offer the model now, in a stable order (see ToolRegistry.schemas). */
  schemas(): readonly ToolSchema[] {
    return this.registry.schemas();
  }

  /** The names of the built-in tools (offered or not): names MCP tools never take. Reads no extra tool. */
  builtinNames(): string[] {
    return this.builtins.map((d) => d.schema.name);
  }

  /** The definition named `name`, if any (the chat's cards and the approval ask it what a tool is). */
  definition(name: string): AnyToolDefinition | undefined {
    return this.registry.get(name);
  }

  /**
   * Runs `call`. The outcome's text is at most `limits.maxResultChars` characters, never
   * empty, well-formed UTF-16 (a lone surrogate, e.g. echoed from the model's input, becomes
   * U+FFFD), and `isError` is set for invalid input, refusals, failures, declines and Stop.
   */
  run(call: ToolCall, signal: AbortSignal, onState?: (state: ToolCallState) => void): Promise<ToolOutcome> {
    return this.registry.run(call, signal, onState);
  }

  /**
   * Reads a file fresh for the re-attach after a compaction, under read_file's rules (same
   * folders, same confinement, secrets refused; see readFresh.ts). Never throws.
   */
  async readFresh(path: string): Promise<FreshRead> {
    const roots = this.roots();
    if (roots.length === 0) return { ok: false, reason: 'no folder is open' };
    try {
      return await readFresh({ roots, sessionRoots: this.options.readOnlyRoots?.() ?? [] }, path);
    } catch {
      return { ok: false, reason: 'it could not be read' };
    }
  }
}
