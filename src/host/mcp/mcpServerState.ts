/** The states of one MCP server as the views show them. No `vscode`. */
import type { McpSource, McpTransportKind } from '../../core/mcp/mcpConfig';

/**
 * - `disabled`: off in the configuration, turned off for the session, or in an untrusted workspace (see `message`);
 * - `awaiting-approval`: a workspace server not (yet) approved, or declined this session (see `message`);
 * - `starting`: connecting, or restarting after a crash;
 * - `ready`: connected, its tools offered;
 * - `failed`: could not start (or restart): `message` and `stderrTail` say why;
 * - `stopped`: configured and allowed, not started yet (starts when tools are first needed).
 */
export type McpServerState = 'disabled' | 'awaiting-approval' | 'starting' | 'ready' | 'failed' | 'stopped';

/** One server's status, as `McpHub.statuses()` lists it. */
export interface McpServerStatus {
  readonly name: string;
  readonly source: McpSource;
  readonly transport: McpTransportKind;
  readonly state: McpServerState;
  /** Why it is disabled, awaiting approval or failed; a restart's progress. Redacted of secrets. */
  readonly message?: string;
  /** The server's last stderr lines (stdio) when it failed. Redacted of secrets. */
  readonly stderrTail?: string;
  /** Tools currently offered to the model. */
  readonly toolCount: number;
  /** The server's tool list changed; the new list applies at the next turn boundary. */
  readonly stale: boolean;
  /** Tools left out (invalid schema, name taken, over the cap) and similar notices. */
  readonly notices: readonly string[];
  /** This server's tools turned off for the session (by the server's own tool names). */
  readonly disabledTools: readonly string[];
}
