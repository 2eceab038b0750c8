/**
 * One configured MCP server's life: the approval gate, resolving its variables, connecting,
 * listing its tools, restarting after a crash (injected sleep, bounded attempts), and calls.
 * Its ToolDefinitions change only in `applyPending()` — the hub calls it at a turn boundary —
 * never when a `tools/list_changed` arrives or a restart lands. No `vscode`.
 */
import type { McpLaunch, McpServerConfig } from '../../core/mcp/mcpConfig';
import type { BuiltMcpTools, McpCallPort } from '../../core/mcp/mcpToolDefinitions';
import type { ResolvedLaunch } from '../../core/mcp/mcpVariables';
import { redactSecrets } from '../../core/security/redact';
import type { AnyToolDefinition, ToolExecution } from '../../core/tools/toolDefinition';
import type { McpGateOutcome } from './mcpApproval';
import type { McpConnection, McpConnectionEvents, McpConnectOptions } from './mcpConnection';
import type { McpServerState, McpServerStatus } from './mcpServerState';

/** Opens a connection (connectMcp, or a fake in tests). */
export type McpConnectPort = (
  launch: McpLaunch,
  events: McpConnectionEvents,
  options: McpConnectOptions,
) => Promise<McpConnection>;

/** Timeouts and the restart policy. */
export interface McpSlotPolicy {
  readonly connectTimeoutMs: number;
  readonly listToolsTimeoutMs: number;
  /** Restart attempts after a crash before the server is `failed`. */
  readonly maxRestartAttempts: number;
  /** The wait before restart attempt `n` (1-based). */
  readonly restartDelayMs: (attempt: number) => number;
  /** A call's timeout when the caller gives none. */
  readonly callTimeoutMs: number;
}

/** What a slot needs from its hub. */
export interface McpSlotDeps {
  readonly connect: McpConnectPort;
  readonly resolve: (server: McpServerConfig) => Promise<ResolvedLaunch>;
  readonly gate: (server: McpServerConfig, ask: boolean) => Promise<McpGateOutcome>;
  readonly build: (
    server: string,
    tools: readonly unknown[],
    disabledTools: ReadonlySet<string>,
    call: McpCallPort,
  ) => BuiltMcpTools;
  readonly sleep: (ms: number) => Promise<void>;
  readonly policy: McpSlotPolicy;
  readonly changed: () => void;
  readonly log: (line: string) => void;
}

/** One server (see the file comment). */
export class McpServerSlot {
  private state: McpServerState;
  private message: string | undefined;
  private stderr: string | undefined;
  private conn: McpConnection | undefined;
  private starting: Promise<void> | undefined;
  /** The whole restart after a crash, while it runs. */
  private restarting: Promise<void> | undefined;
  /** Bumped by stop(): work of an older generation drops its results. */
  private generation = 0;
  private secrets: readonly string[] = [];
  private applied: readonly AnyToolDefinition[] = [];
  private notices: readonly string[] = [];
  /** The latest fetched list, not yet applied. */
  private pendingTools: readonly unknown[] | undefined;
  private appliedTools: readonly unknown[] = [];
  /** The tool list changed (or tools were toggled): rebuild at the next applyPending(). */
  private stale = false;
  private declined = false;

  constructor(
    readonly config: McpServerConfig,
    private readonly deps: McpSlotDeps,
    private readonly disabledTools: Set<string>,
    initial: { readonly state: McpServerState; readonly message?: string },
  ) {
    this.state = initial.state;
    this.message = initial.message;
  }

  get name(): string {
    return this.config.name;
  }

  status(): McpServerStatus {
    const c = this.config;
    return {
      name: c.name,
      source: c.source,
      transport: c.launch.transport,
      state: this.state,
      message: this.message,
      stderrTail: this.state === 'failed' ? this.stderr : undefined,
      toolCount: this.definitions().length,
      stale: this.stale,
      notices: this.notices,
      disabledTools: [...this.disabledTools].sort(),
    };
  }

  /** The applied definitions while the server is ready (or restarting). */
  definitions(): readonly AnyToolDefinition[] {
    return this.state === 'ready' || this.state === 'starting' ? this.applied : [];
  }

  /** Starts the server unless it is disabled, declined this session, failed, or already up. */
  ensureStarted(): Promise<void> {
    if (this.restarting) return this.restarting;
    if (this.starting) return this.starting;
    if (this.state !== 'stopped' && this.state !== 'awaiting-approval') return Promise.resolve();
    if (this.declined) return Promise.resolve();
    return this.launch(true, 0);
  }

  /** Asks for approval again (after a decline) and starts when approved. */
  askAgain(): Promise<void> {
    this.declined = false;
    return this.ensureStarted();
  }

  /** Starts a failed or stopped server afresh. */
  async retry(): Promise<void> {
    if (this.state === 'disabled') return;
    await this.stop();
    return this.ensureStarted();
  }

  private set(state: McpServerState, message?: string, stderr?: string): void {
    this.state = state;
    this.message = message === undefined ? undefined : redactSecrets(message, this.secrets);
    this.stderr = stderr;
    this.deps.changed();
  }

  private launch(ask: boolean, attempt: number): Promise<void> {
    const gen = this.generation;
    const run = this.run(ask, attempt, gen).finally(() => {
      if (this.starting === run) this.starting = undefined;
    });
    this.starting = run;
    return run;
  }

  private async run(ask: boolean, attempt: number, gen: number): Promise<void> {
    const gate = await this.deps.gate(this.config, ask);
    if (gen !== this.generation) return;
    if (!gate.ok) {
      if (gate.reason === 'declined') this.declined = true;
      this.set(gate.reason === 'untrusted' ? 'disabled' : 'awaiting-approval', gate.message);
      return;
    }
    this.set(
      'starting',
      attempt > 0
        ? `Restarting after a crash (attempt ${attempt} of ${this.deps.policy.maxRestartAttempts}).`
        : undefined,
    );
    const resolved = await this.deps.resolve(this.config);
    if (gen !== this.generation) return;
    if (!resolved.ok) return this.set('failed', resolved.error);
    this.secrets = resolved.secrets;
    let conn: McpConnection | undefined;
    try {
      conn = await this.deps.connect(
        resolved.launch,
        { onClosed: () => this.closed(conn, gen), onToolsChanged: () => this.toolsChanged(gen) },
        { secrets: resolved.secrets, connectTimeoutMs: this.deps.policy.connectTimeoutMs },
      );
      if (gen !== this.generation) return void (await conn.close());
      const tools = await conn.listTools(this.deps.policy.listToolsTimeoutMs);
      if (gen !== this.generation) return void (await conn.close());
      this.conn = conn;
      this.pendingTools = tools;
      this.stale = true;
      this.deps.log(`MCP server "${this.name}": ready, ${tools.length} tools listed.`);
      this.set('ready');
    } catch (e) {
      await conn?.close().catch(() => undefined);
      if (gen !== this.generation) return;
      const text = redactSecrets(e instanceof Error ? e.message : String(e), this.secrets);
      const [first = '', ...rest] = text.split('\n');
      this.deps.log(`MCP server "${this.name}" failed to start: ${first}`);
      this.set('failed', `MCP server "${this.name}" failed to start: ${first}`, rest.join('\n') || undefined);
    }
  }

  /** The connection closed: after our stop() nothing; else a crash, restarted with backoff. */
  private closed(conn: McpConnection | undefined, gen: number): void {
    if (gen !== this.generation || (this.conn !== undefined && conn !== undefined && conn !== this.conn)) return;
    const stderr = conn?.stderrTail() ?? this.conn?.stderrTail();
    this.conn = undefined;
    if (this.state !== 'ready') return;
    this.deps.log(`MCP server "${this.name}" exited unexpectedly; restarting.`);
    const restarting = this.restart(gen, stderr).finally(() => {
      if (this.restarting === restarting) this.restarting = undefined;
    });
    this.restarting = restarting;
  }

  private async restart(gen: number, stderr: string | undefined): Promise<void> {
    const max = this.deps.policy.maxRestartAttempts;
    for (let attempt = 1; attempt <= max; attempt++) {
      this.set('starting', `Restarting after a crash (attempt ${attempt} of ${max}).`);
      await this.deps.sleep(this.deps.policy.restartDelayMs(attempt));
      if (gen !== this.generation) return;
      await this.launch(false, attempt);
      if (gen !== this.generation || this.state === 'ready') return;
      stderr = this.stderr ?? stderr;
    }
    this.set('failed', `MCP server "${this.name}" crashed and did not restart after ${max} attempts.`, stderr);
  }

  private toolsChanged(gen: number): void {
    if (gen !== this.generation) return;
    this.stale = true;
    this.pendingTools = undefined;
    this.deps.changed();
  }

  /** Turns one of the server's tools on or off; applied at the next applyPending(). */
  toggleTool(tool: string, enabled: boolean): void {
    if (enabled) this.disabledTools.delete(tool);
    else this.disabledTools.add(tool);
    this.stale = true;
    this.deps.changed();
  }

  /** Applies a changed tool list or toggles (fetching the list if needed). True when the definitions changed. */
  async applyPending(): Promise<boolean> {
    if (!this.stale || this.state !== 'ready' || !this.conn) return false;
    const gen = this.generation;
    let tools = this.pendingTools;
    if (tools === undefined) {
      try {
        tools = await this.conn.listTools(this.deps.policy.listToolsTimeoutMs);
      } catch (e) {
        this.deps.log(`MCP server "${this.name}": listing tools failed: ${e instanceof Error ? e.message : String(e)}`);
        return false;
      }
      if (gen !== this.generation) return false;
    }
    this.appliedTools = tools;
    this.pendingTools = undefined;
    this.stale = false;
    const built = this.deps.build(this.name, this.appliedTools, this.disabledTools, (tool, args, ctx) =>
      this.callTool(tool, args, ctx.signal),
    );
    if (!built.ok) {
      this.applied = [];
      this.notices = [];
      await this.stop('failed', `MCP server "${this.name}" is refused: ${built.reason}.`);
      return true;
    }
    this.applied = built.definitions;
    this.notices = built.notices;
    this.deps.changed();
    return true;
  }

  /** Calls a tool of this server; waits for a restart in progress; never throws. */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    timeoutMs?: number,
  ): Promise<ToolExecution> {
    const pending = this.restarting ?? this.starting;
    if (this.state === 'starting' && pending) await pending.catch(() => undefined);
    const conn = this.conn;
    if (this.state !== 'ready' || conn === undefined)
      return {
        content: `MCP server "${this.name}" is not running (${this.state}${this.message ? `: ${this.message}` : ''}).`,
        isError: true,
      };
    return conn.callTool(tool, args, { signal, timeoutMs: timeoutMs ?? this.deps.policy.callTimeoutMs });
  }

  /** Stops the server (and any start or restart in progress). The state becomes `stopped` unless given. */
  async stop(state: McpServerState = 'stopped', message?: string): Promise<void> {
    this.generation++;
    const conn = this.conn;
    this.conn = undefined;
    this.starting = undefined;
    this.restarting = undefined;
    this.stale = false;
    this.pendingTools = undefined;
    this.set(state, message);
    await conn?.close().catch(() => undefined);
  }
}
