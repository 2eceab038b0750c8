/**
 * The MCP servers the user and the workspace configure, as parsed (variables not yet resolved)
 * and as resolved for a launch. Pure types and the names shown for them.
 */

/** Where a server's configuration comes from. Workspace sources need trust and approval. */
export type McpSource = 'user' | 'workspace-vscode' | 'workspace-mcp-json';

/** How the client talks to a server. */
export type McpTransportKind = 'stdio' | 'http' | 'sse';

/** Where each source is written, as shown in messages. */
export const MCP_SOURCE_LABEL: Readonly<Record<McpSource, string>> = {
  user: 'the setting contextPipeline.mcpServers',
  'workspace-vscode': '.vscode/mcp.json',
  'workspace-mcp-json': '.mcp.json',
};

/** Whether servers of `source` come from the workspace (and so need trust and approval). */
export function isWorkspaceSource(source: McpSource): boolean {
  return source !== 'user';
}

/**
 * What a launch needs, strings possibly holding `${…}` variables (as written) or resolved.
 * stdio uses command/args/env/cwd; http and sse use url/headers. Empty records when absent.
 */
export interface McpLaunch {
  readonly transport: McpTransportKind;
  readonly command?: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly url?: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** A prompt the workspace file declares for `${input:ID}` (VS Code's `inputs` entries). */
export interface McpInputSpec {
  readonly id: string;
  readonly type: string;
  readonly description?: string;
  /** A secret input (an API key): its value is stored and shown as a secret. */
  readonly password: boolean;
  readonly default?: string;
}

/** One configured server, as written in its source. */
export interface McpServerConfig {
  readonly name: string;
  readonly source: McpSource;
  readonly launch: McpLaunch;
  /** Off in the configuration (`disabled: true`): listed, never started. */
  readonly disabled: boolean;
  /** The `inputs` of the file it came from, for `${input:ID}`. */
  readonly inputs: readonly McpInputSpec[];
}

/** A server (or a whole file) refused, with the reason naming the server and the source. */
export interface McpConfigRefusal {
  readonly server: string | undefined;
  readonly source: McpSource;
  readonly message: string;
}

/** The outcome of reading the sources: the servers that parsed, and the refusals. */
export interface McpConfigSet {
  readonly servers: readonly McpServerConfig[];
  readonly refused: readonly McpConfigRefusal[];
}
