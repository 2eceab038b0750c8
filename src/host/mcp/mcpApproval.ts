/**
 * The rules for a server from a workspace file (`.vscode/mcp.json`, `.mcp.json`): it never
 * starts unless the workspace is trusted and the user approved that server; an approval is
 * remembered per workspace (the store is the workspace's) and per configuration fingerprint
 * (core/mcp/mcpFingerprint.ts), so a changed configuration asks again. Servers of the user's
 * own setting start without asking. The question shows the configuration as written, with
 * env and header *names* only. No `vscode`.
 */
import { configFingerprint, type HashPort } from '../../core/mcp/mcpFingerprint';
import {
  isWorkspaceSource,
  MCP_SOURCE_LABEL,
  type McpServerConfig,
  type McpSource,
  type McpTransportKind,
} from '../../core/mcp/mcpConfig';

/** What the approval card shows: the launch as written, never a value of env or headers. */
export interface McpApprovalRequest {
  readonly name: string;
  readonly source: McpSource;
  readonly transport: McpTransportKind;
  readonly command?: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly envNames: readonly string[];
  readonly url?: string;
  readonly headerNames: readonly string[];
}

/** The user's answer. */
export type McpApprovalDecision = 'approved' | 'declined';

/** Asks the user (the host's approval card or modal). */
export type McpApprovalPort = (request: McpApprovalRequest) => Promise<McpApprovalDecision>;

/** A key-value store like VS Code's Memento (the workspace state): get and update. */
export interface KeyValueStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** What the gate needs. */
export interface McpApprovalDeps {
  readonly isTrusted: () => boolean;
  readonly askApproval: McpApprovalPort;
  readonly store: KeyValueStore;
  readonly hash: HashPort;
}

/** Whether the server may start, or why not. */
export type McpGateOutcome =
  { readonly ok: true } | { readonly ok: false; readonly reason: 'untrusted' | 'declined'; readonly message: string };

/** The store key of a server's approval. */
export function approvalKey(server: McpServerConfig): string {
  return `contextPipeline.mcp.approval/${server.source}/${server.name}`;
}

/** The approval card's content for `server`. */
export function approvalRequest(server: McpServerConfig): McpApprovalRequest {
  const l = server.launch;
  return {
    name: server.name,
    source: server.source,
    transport: l.transport,
    command: l.command,
    args: l.args,
    cwd: l.cwd,
    envNames: Object.keys(l.env).sort(),
    url: l.url,
    headerNames: Object.keys(l.headers).sort(),
  };
}

/** Whether `server`'s current configuration was approved in this workspace. */
export function isApproved(server: McpServerConfig, deps: Pick<McpApprovalDeps, 'store' | 'hash'>): boolean {
  return deps.store.get<string>(approvalKey(server)) === configFingerprint(server, deps.hash);
}

/**
 * The gate: user servers pass; a workspace server passes only in a trusted workspace and when
 * its current configuration was approved, asking (and remembering an approval) when it was not.
 * With `ask: false` it never asks (a declined server stays declined for the session).
 */
export async function passApprovalGate(
  server: McpServerConfig,
  deps: McpApprovalDeps,
  ask = true,
): Promise<McpGateOutcome> {
  if (!isWorkspaceSource(server.source)) return { ok: true };
  const where = MCP_SOURCE_LABEL[server.source];
  if (!deps.isTrusted())
    return {
      ok: false,
      reason: 'untrusted',
      message: `MCP server "${server.name}" from ${where} does not start: the workspace is not trusted.`,
    };
  if (isApproved(server, deps)) return { ok: true };
  const declined = {
    ok: false,
    reason: 'declined',
    message: `MCP server "${server.name}" from ${where} was not approved.`,
  } as const;
  if (!ask) return declined;
  const decision = await deps.askApproval(approvalRequest(server));
  if (decision !== 'approved') return declined;
  await deps.store.update(approvalKey(server), configFingerprint(server, deps.hash));
  return { ok: true };
}
