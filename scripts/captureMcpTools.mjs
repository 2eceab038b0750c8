#!/usr/bin/env node
/**
 * `npm run capture-mcp-tools [-- name…]`: starts real MCP servers installed from npm (the
 * devDependencies below) over stdio with the official `@modelcontextprotocol/sdk` client, lists
 * their tools (`tools/list`, every page) and writes each list to `bench/tools/sets/<name>.json`:
 * `{ name, package, version, tools: [{ name, description, inputSchema, annotations? }] }`, in the
 * order the server lists them. `npm run bench -- tools` reads these files; the combined set of
 * every server is computed there, not stored.
 *
 * Nothing is downloaded: each server runs from node_modules with `node`, in a fresh temporary
 * folder (the filesystem server's one allowed directory, the memory server's file), which is
 * removed afterwards. The Playwright server lists its tools without launching a browser.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as prettier from 'prettier';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'bench', 'tools', 'sets');
const require = createRequire(join(root, 'package.json'));

/** The servers: set name (the `<server>` of `mcp__<server>__<tool>`), package, its bin, arguments. */
const SERVERS = [
  { name: 'filesystem', pkg: '@modelcontextprotocol/server-filesystem', args: (dir) => [dir] },
  { name: 'everything', pkg: '@modelcontextprotocol/server-everything', args: () => ['stdio'] },
  {
    name: 'memory',
    pkg: '@modelcontextprotocol/server-memory',
    args: () => [],
    env: (dir) => ({ MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }),
  },
  { name: 'playwright', pkg: '@playwright/mcp', args: () => ['--headless', '--isolated'] },
];

/** The package's installed version and the path of its (single) bin. */
function packageBin(pkg) {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  if (!bin) throw new Error(`${pkg} has no bin`);
  return { version: manifest.version, bin: join(dirname(manifestPath), bin) };
}

/** Every tool the server lists, following `nextCursor`. */
async function listAllTools(client) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/** Starts one server, lists its tools, stops it; returns the set as written. */
async function capture(server) {
  const { version, bin } = packageBin(server.pkg);
  const dir = mkdtempSync(join(tmpdir(), `mcp-${server.name}-`));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, ...server.args(dir)],
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir, ...(server.env ? server.env(dir) : {}) },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += String(d)));
  const client = new Client({ name: 'context-pipeline-capture', version: '1.0.0' });
  try {
    await client.connect(transport, { timeout: 30_000 });
    const tools = await listAllTools(client);
    return {
      name: server.name,
      package: server.pkg,
      version,
      tools: tools.map((t) => ({
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        inputSchema: t.inputSchema,
        ...(t.annotations !== undefined ? { annotations: t.annotations } : {}),
      })),
    };
  } catch (e) {
    throw new Error(`${server.pkg}@${version}: ${e instanceof Error ? e.message : String(e)}\n${stderr.trim()}`, {
      cause: e,
    });
  } finally {
    await client.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(names) {
  const chosen = names.length === 0 ? SERVERS : SERVERS.filter((s) => names.includes(s.name));
  if (chosen.length === 0) {
    process.stderr.write(`unknown server; known: ${SERVERS.map((s) => s.name).join(', ')}\n`);
    return 2;
  }
  mkdirSync(out, { recursive: true });
  let failed = 0;
  for (const server of chosen) {
    try {
      const set = await capture(server);
      const file = join(out, `${set.name}.json`);
      // Formatted as `npm run lint` checks it, so a fresh capture passes the lint as written.
      const options = { ...(await prettier.resolveConfig(file)), filepath: file };
      writeFileSync(file, await prettier.format(JSON.stringify(set, null, 2), options));
      console.log(`${set.name}: ${set.tools.length} tools from ${set.package}@${set.version} → ${file}`);
    } catch (e) {
      failed++;
      process.stderr.write(`FAILED ${server.name}: ${e instanceof Error ? e.message : String(e)}\n`);
    }
  }
  return failed === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (e) => {
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
