/**
 * The MCP servers of this window, wired to VS Code: the user's setting
 * (`contextPipeline.mcpServers`, user settings only) and the first workspace folder's
 * `.vscode/mcp.json` and `.mcp.json`, read at the first turn and again at the first turn
 * boundary after one of them changed; a workspace server asks before it starts (a modal naming
 * its command, arguments, env names or URL), only in a trusted workspace; `${input:…}` values
 * are asked for (secrets kept in SecretStorage). Servers start, and their tool lists change,
 * only at a turn boundary (`atTurnBoundary`).
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { inBackground } from '../core/platform/background';
import * as vscode from 'vscode';
import type { McpConfigSet, McpInputSpec } from '../core/mcp/mcpConfig';
import { MCP_SOURCE_LABEL } from '../core/mcp/mcpConfig';
import { mergeMcpConfigs } from '../core/mcp/mcpConfigMerge';
import { parseMcpJson, parseUserMcpServers, parseVscodeMcpJson } from '../core/mcp/mcpConfigParse';
import type { AnyToolDefinition } from '../core/tools/toolDefinition';
import type { McpApprovalDecision, McpApprovalRequest } from './mcp/mcpApproval';
import { McpHub } from './mcp/mcpHub';
import type { McpServerStatus } from './mcp/mcpServerState';
import { toast } from './toasts';

/** The setting that lists the user's own servers. */
export const MCP_SERVERS_SETTING = 'contextPipeline.mcpServers';
/** Settings whose change reloads the servers at the next turn boundary. */
const RELOADING_SETTINGS = [MCP_SERVERS_SETTING];

/** The extension's MCP servers: the hub, its configuration sources and their watchers. */
export class McpServers implements vscode.Disposable {
  readonly hub: McpHub;
  private reloadPending = true;
  private refusedShown = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly inputs = new Map<string, string>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    reservedNames: ReadonlySet<string>,
  ) {
    this.hub = new McpHub([], {
      variables: { workspaceFolder: folder(), userHome: homedir(), env: process.env },
      resolveInput: (id, spec, server) => this.resolveInput(id, spec, server),
      isTrusted: () => vscode.workspace.isTrusted,
      askApproval: (r) => askToStart(r),
      store: context.workspaceState,
      reservedNames,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      log: (line) => log.info(`MCP: ${line}`),
      policy: { callTimeoutMs: callTimeoutSeconds() * 1000 },
    });
    const root = vscode.workspace.workspaceFolders?.[0];
    if (root) {
      const watcher = vscode.workspace.createFileSystemWatcher(
        new vscode.RelativePattern(root, '{.vscode/mcp.json,.mcp.json}'),
      );
      const changed = () => this.configChanged();
      this.disposables.push(
        watcher,
        watcher.onDidChange(changed),
        watcher.onDidCreate(changed),
        watcher.onDidDelete(changed),
      );
    }
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (RELOADING_SETTINGS.some((s) => e.affectsConfiguration(s))) this.configChanged();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.configChanged()),
    );
  }

  /** Whether a changed configuration waits for the next turn boundary. */
  get changePending(): boolean {
    return this.reloadPending;
  }

  /** The tools of the ready servers (stable between turn boundaries). */
  definitions(): readonly AnyToolDefinition[] {
    return this.hub.definitions();
  }

  /** Every configured server's state. */
  statuses(): McpServerStatus[] {
    return this.hub.statuses();
  }

  /**
   * At a turn boundary: takes a changed configuration, starts the servers a session needs
   * (asking approvals), and applies changed tool lists. Never throws; a server that fails is
   * shown as failed and the chat goes on without it.
   */
  async atTurnBoundary(): Promise<void> {
    try {
      if (this.reloadPending) {
        this.reloadPending = false;
        const set = await readConfigs();
        this.showRefusals(set);
        await this.hub.reload(set.servers);
      }
      await this.hub.ensureStarted();
      await this.hub.applyPendingChanges();
    } catch (e) {
      this.log.error(`MCP servers could not be prepared: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    inBackground(this.hub.dispose(), this.log, 'Stopping the MCP servers');
  }

  private configChanged(): void {
    this.reloadPending = true;
    this.log.info('MCP configuration changed: it applies at the next turn boundary.');
  }

  private showRefusals(set: McpConfigSet): void {
    for (const r of set.refused) {
      this.log.warn(`MCP: ${r.message}`);
      if (this.refusedShown.has(r.message)) continue;
      this.refusedShown.add(r.message);
      toast.warn(`Context Pipeline: ${r.message}`);
    }
  }

  private async resolveInput(id: string, spec: McpInputSpec | undefined, server: string): Promise<string | undefined> {
    const key = `contextPipeline.mcp.input/${folder() ?? ''}/${server}/${id}`;
    if (spec?.password) {
      const stored = await this.context.secrets.get(key);
      if (stored) return stored;
    } else if (this.inputs.has(key)) return this.inputs.get(key);
    const value = await vscode.window.showInputBox({
      title: `MCP server "${server}" asks for ${id}`,
      prompt: spec?.description ?? `The value of \${input:${id}} for the MCP server "${server}".`,
      password: spec?.password ?? false,
      ignoreFocusOut: true,
      ...(spec?.default !== undefined && !spec.password ? { value: spec.default } : {}),
    });
    if (value === undefined) return undefined;
    if (spec?.password) await this.context.secrets.store(key, value);
    else this.inputs.set(key, value);
    return value;
  }
}

/** The modal that asks before a workspace's server starts: what it runs, never a value of its env or headers. */
async function askToStart(r: McpApprovalRequest): Promise<McpApprovalDecision> {
  const lines =
    r.transport === 'stdio'
      ? [
          `Command: ${r.command ?? '(none)'}`,
          `Arguments: ${r.args.length > 0 ? r.args.join(' ') : '(none)'}`,
          ...(r.cwd ? [`Folder: ${r.cwd}`] : []),
          `Environment variables: ${r.envNames.length > 0 ? r.envNames.join(', ') : '(none)'}`,
        ]
      : [`URL: ${r.url ?? '(none)'}`, `Headers: ${r.headerNames.length > 0 ? r.headerNames.join(', ') : '(none)'}`];
  const detail = [
    `${MCP_SOURCE_LABEL[r.source]} in this workspace defines the MCP server "${r.name}" (${r.transport}).`,
    r.transport === 'stdio'
      ? 'It runs this command on your machine, with your permissions:'
      : 'Its tools send your conversation data to:',
    ...lines,
    '',
    'Allow it only if you trust this repository. You are asked again if its configuration changes.',
  ].join('\n');
  const allow = 'Allow';
  const answer = await vscode.window.showWarningMessage(
    `Start the MCP server "${r.name}" from this workspace?`,
    { modal: true, detail },
    allow,
  );
  return answer === allow ? 'approved' : 'declined';
}

/** Reads the three sources: the user's setting (user level only) and the workspace's two files. */
async function readConfigs(): Promise<McpConfigSet> {
  const inspected = vscode.workspace.getConfiguration().inspect<unknown>(MCP_SERVERS_SETTING);
  const user = parseUserMcpServers(inspected?.globalValue ?? {});
  const root = folder();
  const sets = [user];
  if (root) {
    const vscodeFile = await readText(join(root, '.vscode', 'mcp.json'));
    if (vscodeFile !== undefined) sets.push(parseVscodeMcpJson(vscodeFile));
    const mcpJson = await readText(join(root, '.mcp.json'));
    if (mcpJson !== undefined) sets.push(parseMcpJson(mcpJson));
  }
  return mergeMcpConfigs(sets);
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

function folder(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

function callTimeoutSeconds(): number {
  const v = vscode.workspace.getConfiguration().inspect<unknown>('contextPipeline.mcp.callTimeoutSeconds');
  const n = v?.globalValue ?? v?.defaultValue;
  return typeof n === 'number' && Number.isFinite(n) && n >= 5 ? Math.min(n, 3600) : 120;
}
