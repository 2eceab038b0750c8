/**
 * One live connection to an MCP server through the official SDK client: stdio (a child
 * process, its stderr's tail kept), Streamable HTTP, or legacy SSE (also tried when Streamable
 * HTTP is refused with a 4xx, as the SDK advises for old servers). Lists tools with a timeout;
 * calls a tool with Stop and a timeout (the SDK then sends `notifications/cancelled`), always
 * answering a ToolExecution, never throwing. Every text it produces is redacted of the launch's
 * secrets (env, header and input values). No `vscode`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpLaunch } from '../../core/mcp/mcpConfig';
import { redactSecrets } from '../../core/security/redact';
import type { ToolExecution } from '../../core/tools/toolDefinition';
import { mcpResultToExecution } from '../../core/mcp/mcpResult';
import { StderrTail } from './stderrTail';

/** What the connection tells its owner. */
export interface McpConnectionEvents {
  /** The connection ended (the process exited, the stream closed), including after `close()`. */
  readonly onClosed: () => void;
  /** The server sent `notifications/tools/list_changed`. */
  readonly onToolsChanged: () => void;
}

/** How to connect. */
export interface McpConnectOptions {
  /** The values to redact from every message (env, header and input values). */
  readonly secrets: readonly string[];
  /** Time allowed for the initialize handshake. */
  readonly connectTimeoutMs: number;
  readonly clientVersion?: string;
}

/** A call's options: Stop, and a timeout after which the call ends with an error result. */
export interface McpCallOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs: number;
}

/** A connected server. */
export interface McpConnection {
  /** The `tools` of `tools/list` (all pages); rejects (redacted) on failure or timeout. */
  listTools(timeoutMs: number): Promise<unknown[]>;
  /** Calls `tool`; an error, Stop or timeout is an error result. Never throws. */
  callTool(tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<ToolExecution>;
  /** Whether the server advertises `tools.listChanged`. */
  readonly announcesListChanges: boolean;
  /** The last lines of the server's stderr (stdio), redacted. */
  stderrTail(): string;
  /** The child process's id (stdio), for diagnostics and tests. */
  readonly pid: number | undefined;
  /** Ends the connection (and the child process). */
  close(): Promise<void>;
}

/** A failure text with the secrets redacted. */
export function redactedError(e: unknown, secrets: readonly string[]): string {
  const text = e instanceof Error ? e.message : String(e);
  return redactSecrets(text, secrets);
}

function stdioTransport(launch: McpLaunch, tail: StderrTail): StdioClientTransport {
  const transport = new StdioClientTransport({
    command: launch.command ?? '',
    args: [...launch.args],
    env: { ...launch.env },
    cwd: launch.cwd,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer | string) => tail.push(chunk.toString()));
  return transport;
}

function httpInit(launch: McpLaunch): { requestInit: RequestInit } {
  return { requestInit: { headers: { ...launch.headers } } };
}

/** A fresh SDK client wired to the events. */
function newClient(events: McpConnectionEvents, version: string): Client {
  const client = new Client({ name: 'context-pipeline', version }, { capabilities: {} });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => events.onToolsChanged());
  return client;
}

/** Connects `client` over `transport`; on failure the transport is closed and the error rethrown. */
async function connectOver(client: Client, transport: Transport, timeoutMs: number): Promise<void> {
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (e) {
    await transport.close().catch(() => undefined);
    throw e;
  }
}

/** Opens a connection for a resolved launch; rejects with a redacted Error (with the stderr tail for stdio). */
export async function connectMcp(
  launch: McpLaunch,
  events: McpConnectionEvents,
  options: McpConnectOptions,
): Promise<McpConnection> {
  const tail = new StderrTail();
  const secrets = options.secrets;
  const version = options.clientVersion ?? '0.0.0';
  let client = newClient(events, version);
  let transport: Transport;
  try {
    if (launch.transport === 'stdio') {
      transport = stdioTransport(launch, tail);
      await connectOver(client, transport, options.connectTimeoutMs);
    } else if (launch.transport === 'sse') {
      transport = new SSEClientTransport(new URL(launch.url ?? ''), httpInit(launch));
      await connectOver(client, transport, options.connectTimeoutMs);
    } else {
      const url = new URL(launch.url ?? '');
      try {
        transport = new StreamableHTTPClientTransport(url, httpInit(launch));
        await connectOver(client, transport, options.connectTimeoutMs);
      } catch (e) {
        const code = e instanceof StreamableHTTPError ? (e.code ?? 0) : 0;
        if (code < 400 || code >= 500) throw e;
        client = newClient(events, version);
        transport = new SSEClientTransport(url, httpInit(launch));
        await connectOver(client, transport, options.connectTimeoutMs);
      }
    }
  } catch (e) {
    const stderr = tail.text();
    const message = `${redactedError(e, secrets)}${stderr ? `\n${redactSecrets(stderr, secrets)}` : ''}`;
    // eslint-disable-next-line preserve-caught-error -- the cause would carry the unredacted text
    throw new Error(message);
  }
  client.onclose = () => events.onClosed();
  const pid = transport instanceof StdioClientTransport ? (transport.pid ?? undefined) : undefined;
  return {
    pid,
    announcesListChanges: client.getServerCapabilities()?.tools?.listChanged === true,
    stderrTail: () => redactSecrets(tail.text(), secrets),
    close: () => client.close(),
    async listTools(timeoutMs) {
      const tools: unknown[] = [];
      let cursor: string | undefined;
      try {
        do {
          const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
          tools.push(...page.tools);
          cursor = page.nextCursor;
        } while (cursor !== undefined && tools.length < 10_000);
      } catch (e) {
        // eslint-disable-next-line preserve-caught-error -- the cause would carry the unredacted text
        throw new Error(redactedError(e, secrets));
      }
      return tools;
    },
    async callTool(tool, args, { signal, timeoutMs }) {
      if (signal?.aborted) return { content: 'Stopped before the call was sent.', isError: true };
      try {
        const result = await client.callTool({ name: tool, arguments: args }, undefined, {
          signal,
          timeout: timeoutMs,
        });
        return mcpResultToExecution(result);
      } catch (e) {
        if (signal?.aborted) return { content: 'Stopped: the call was cancelled.', isError: true };
        if (e instanceof McpError && e.code === ErrorCode.RequestTimeout)
          return {
            content: `The call timed out after ${Math.round(timeoutMs / 1000)} s and was cancelled.`,
            isError: true,
          };
        return { content: `The call failed: ${redactedError(e, secrets)}`, isError: true };
      }
    },
  };
}
