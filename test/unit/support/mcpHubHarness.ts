/**
 * Builds McpHubs for the MCP tests: user-setting servers over real stdio processes, ports
 * that never touch the clock (sleep resolves at once unless gated), a Memento-like store.
 */
import * as path from 'node:path';
import type { McpServerConfig } from '../../../src/core/mcp/mcpConfig';
import { McpHub, type McpHubDeps } from '../../../src/host/mcp/mcpHub';
import type { KeyValueStore } from '../../../src/host/mcp/mcpApproval';

const ROOT = path.resolve(__dirname, '../../..');

/** The stdio entry of server-everything. */
export const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
/** The stdio entry of server-filesystem. */
export const FILESYSTEM = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
/** The tiny test server (list_changed on demand, a crash tool). */
export const TINY_SERVER = path.join(ROOT, 'test/unit/support/mcpTinyServer.mjs');

/** A stdio server from the user setting running `node <script> ...args`. */
export function nodeServer(
  name: string,
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
): McpServerConfig {
  return {
    name,
    source: 'user',
    disabled: false,
    inputs: [],
    launch: { transport: 'stdio', command: process.execPath, args: [script, ...args], env, headers: {} },
  };
}

/** An in-memory Memento. */
export function memoryStore(): KeyValueStore & { readonly data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return {
    data,
    get: <T>(key: string) => data.get(key) as T | undefined,
    update: async (key: string, value: unknown) => void data.set(key, value),
  };
}

/** A hub over `configs` with test ports; `overrides` replace any of them. */
export function testHub(configs: readonly McpServerConfig[], overrides: Partial<McpHubDeps> = {}): McpHub {
  return new McpHub(configs, {
    variables: { workspaceFolder: ROOT, userHome: '/home/test', env: {} },
    resolveInput: async () => undefined,
    isTrusted: () => true,
    askApproval: async () => 'declined',
    store: memoryStore(),
    reservedNames: new Set(['read_file', 'list_files', 'search', 'edit_file', 'run_command', 'recall']),
    sleep: async () => undefined,
    policy: { connectTimeoutMs: 15_000, listToolsTimeoutMs: 10_000 },
    ...overrides,
  });
}

/** Resolves when `check()` holds, polling the hub's change events (no fixed delays). */
export function waitFor(hub: McpHub, check: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (check()) return resolve();
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out waiting for ${what}: ${JSON.stringify(hub.statuses())}`));
    }, limitMs);
    const sub = hub.onDidChange(() => {
      if (!check()) return;
      clearTimeout(timer);
      sub.dispose();
      resolve();
    });
  });
}
