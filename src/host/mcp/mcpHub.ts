/**
 * All configured MCP servers for the extension (no `vscode`: the host wires the ports).
 * Servers start when tools are first needed (`ensureStarted`), workspace servers only when the
 * workspace is trusted and the user approved them (mcpApproval.ts); a crashed server restarts
 * with backoff; a server's changed tool list (`notifications/tools/list_changed`), a restart
 * and a tool toggled on or off are applied only by `applyPendingChanges()` — call it at a turn
 * boundary, never mid-turn. `definitions()` lists the tools of ready servers in a stable order.
 */
import type { McpServerConfig } from '../../core/mcp/mcpConfig';
import { isWorkspaceSource, MCP_SOURCE_LABEL } from '../../core/mcp/mcpConfig';
import type { HashPort } from '../../core/mcp/mcpFingerprint';
import { buildMcpTools, MAX_TOOLS_PER_SERVER } from '../../core/mcp/mcpToolDefinitions';
import type { SchemaCompiler } from '../../core/mcp/mcpToolSchema';
import { resolveLaunch, type InputResolver, type VariableContext } from '../../core/mcp/mcpVariables';
import type { AnyToolDefinition, ToolExecution } from '../../core/tools/toolDefinition';
import { ajvCompiler } from './ajvCompiler';
import { isApproved, passApprovalGate, type KeyValueStore, type McpApprovalPort } from './mcpApproval';
import { connectMcp } from './mcpConnection';
import { McpServerSlot, type McpConnectPort, type McpSlotPolicy } from './mcpServerSlot';
import type { McpServerState, McpServerStatus } from './mcpServerState';
import { sha256Hex } from './sha256';

/** What the hub needs from the host. */
export interface McpHubDeps {
  /** Variables' values (`${workspaceFolder}`, `${userHome}`, `${env:…}`). */
  readonly variables: VariableContext;
  /** Answers `${input:ID}` (a prompt, or the secret store). */
  readonly resolveInput: InputResolver;
  /** Whether the workspace is trusted (vscode.workspace.isTrusted). */
  readonly isTrusted: () => boolean;
  /** Asks the user to approve a workspace server. */
  readonly askApproval: McpApprovalPort;
  /** The workspace's state (context.workspaceState): remembered approvals. */
  readonly store: KeyValueStore;
  /** Names of the built-in and session tools, never shadowed. */
  readonly reservedNames: ReadonlySet<string>;
  /** Waits (restart backoff); injected so tests never wait on the clock. */
  readonly sleep: (ms: number) => Promise<void>;
  /** A log line (already redacted of the servers' secrets). */
  readonly log?: (line: string) => void;
  readonly connect?: McpConnectPort;
  readonly compile?: SchemaCompiler;
  readonly hash?: HashPort;
  readonly policy?: Partial<McpSlotPolicy>;
  readonly maxToolsPerServer?: number;
}

/** The default timeouts and restart policy: 30 s to connect, 30 s to list, 2 min a call; 3 restarts after 1, 2, 4 s. */
export const DEFAULT_MCP_POLICY: McpSlotPolicy = {
  connectTimeoutMs: 30_000,
  listToolsTimeoutMs: 30_000,
  callTimeoutMs: 120_000,
  maxRestartAttempts: 3,
  restartDelayMs: (attempt) => 1000 * 2 ** (attempt - 1),
};

/** A listener's handle. */
export interface McpDisposable {
  dispose(): void;
}

/** See the file comment. */
export class McpHub {
  private slots: McpServerSlot[] = [];
  private readonly listeners = new Set<() => void>();
  /** Survive reload(): the session's choices. */
  private readonly sessionDisabled = new Set<string>();
  private readonly disabledTools = new Map<string, Set<string>>();
  private readonly policy: McpSlotPolicy;
  private disposed = false;

  constructor(
    configs: readonly McpServerConfig[],
    private readonly deps: McpHubDeps,
  ) {
    this.policy = { ...DEFAULT_MCP_POLICY, ...deps.policy };
    this.slots = this.makeSlots(configs);
  }

  /** Fires when any server's status or tools change. */
  onDidChange(listener: () => void): McpDisposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Every configured server's status, by name. */
  statuses(): McpServerStatus[] {
    return this.slots.map((s) => s.status());
  }

  /**
   * Starts every server that may start and is not running (asking approvals as needed), then
   * applies pending tool lists. Resolves when each has settled (ready, failed, declined…).
   * Call it at a turn boundary.
   */
  async ensureStarted(): Promise<void> {
    if (this.disposed) return;
    await Promise.all(this.slots.map((s) => s.ensureStarted()));
    await this.applyPendingChanges();
  }

  /** Applies changed tool lists, restarts and toggles. True when any server's tools changed. Call at a turn boundary. */
  async applyPendingChanges(): Promise<boolean> {
    const changed = await Promise.all(this.slots.map((s) => s.applyPending()));
    return changed.some((c) => c);
  }

  /** The tools of all ready servers: servers by name, tools by name. */
  definitions(): AnyToolDefinition[] {
    return this.slots.flatMap((s) => s.definitions());
  }

  /**
   * Calls `tool` (the server's own name) of `server`; Stop, a timeout, a crash or an unknown
   * server give an error result, never a throw.
   */
  async callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    timeoutMs?: number,
  ): Promise<ToolExecution> {
    const slot = this.slot(server);
    if (!slot) return { content: `There is no MCP server "${server}".`, isError: true };
    return slot.callTool(tool, args, signal, timeoutMs);
  }

  /** Turns a server on or off for this session (off stops it; on starts it, its tools applied at the next boundary). */
  async setServerEnabled(server: string, enabled: boolean): Promise<void> {
    const slot = this.slot(server);
    if (!slot || slot.config.disabled) return;
    if (enabled) {
      this.sessionDisabled.delete(server);
      await slot.stop(this.initialState(slot.config).state, this.initialState(slot.config).message);
      await slot.ensureStarted();
    } else {
      this.sessionDisabled.add(server);
      await slot.stop('disabled', 'Turned off for this session.');
    }
  }

  /** Turns one tool (the server's own name) on or off for this session; applied at the next boundary. */
  setToolEnabled(server: string, tool: string, enabled: boolean): void {
    this.slot(server)?.toggleTool(tool, enabled);
  }

  /** Asks again for a workspace server the user declined this session, and starts it when approved. */
  askApprovalAgain(server: string): Promise<void> {
    return this.slot(server)?.askAgain() ?? Promise.resolve();
  }

  /** Restarts a failed (or any running) server afresh. */
  retry(server: string): Promise<void> {
    return this.slot(server)?.retry() ?? Promise.resolve();
  }

  /** Replaces the configuration: every server is stopped; the new ones start at the next ensureStarted(). */
  async reload(configs: readonly McpServerConfig[]): Promise<void> {
    const old = this.slots;
    this.slots = this.disposed ? [] : this.makeSlots(configs);
    await Promise.all(old.map((s) => s.stop()));
    this.fire();
  }

  /** Stops every server. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.reload([]);
    this.listeners.clear();
  }

  private slot(name: string): McpServerSlot | undefined {
    return this.slots.find((s) => s.name === name);
  }

  private fire(): void {
    for (const l of [...this.listeners]) l();
  }

  private initialState(c: McpServerConfig): { state: McpServerState; message?: string } {
    if (c.disabled) return { state: 'disabled', message: 'Disabled in its configuration.' };
    if (this.sessionDisabled.has(c.name)) return { state: 'disabled', message: 'Turned off for this session.' };
    if (!isWorkspaceSource(c.source)) return { state: 'stopped' };
    const where = MCP_SOURCE_LABEL[c.source];
    if (!this.deps.isTrusted()) return { state: 'disabled', message: `From ${where}: the workspace is not trusted.` };
    if (!isApproved(c, { store: this.deps.store, hash: this.hash }))
      return { state: 'awaiting-approval', message: `From ${where}: needs your approval.` };
    return { state: 'stopped' };
  }

  private get hash(): HashPort {
    return this.deps.hash ?? sha256Hex;
  }

  private makeSlots(configs: readonly McpServerConfig[]): McpServerSlot[] {
    const d = this.deps;
    const compile = d.compile ?? ajvCompiler;
    const gateDeps = { isTrusted: d.isTrusted, askApproval: d.askApproval, store: d.store, hash: this.hash };
    const slotDeps = {
      connect: d.connect ?? connectMcp,
      resolve: (c: McpServerConfig) => resolveLaunch(c, d.variables, d.resolveInput),
      gate: (c: McpServerConfig, ask: boolean) => passApprovalGate(c, gateDeps, ask),
      build: (
        server: string,
        tools: readonly unknown[],
        disabledTools: ReadonlySet<string>,
        call: Parameters<typeof buildMcpTools>[0]['call'],
      ) =>
        buildMcpTools({
          server,
          tools,
          reserved: d.reservedNames,
          compile,
          call,
          disabledTools,
          maxTools: d.maxToolsPerServer ?? MAX_TOOLS_PER_SERVER,
        }),
      sleep: d.sleep,
      policy: this.policy,
      changed: () => this.fire(),
      log: d.log ?? (() => undefined),
    };
    const sorted = [...configs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return sorted.map((c) => {
      let tools = this.disabledTools.get(c.name);
      if (!tools) this.disabledTools.set(c.name, (tools = new Set()));
      return new McpServerSlot(c, slotDeps, tools, this.initialState(c));
    });
  }
}
