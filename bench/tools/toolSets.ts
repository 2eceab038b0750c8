/**
 * The captured MCP tool sets (`bench/tools/sets/<name>.json`, written by
 * `npm run capture-mcp-tools`) and the combined set of every server, computed here so the
 * union has one home: each tool named `mcp__<server>__<tool>` as the extension sends it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolSchema } from '../../src/core/conversation/conversationModel';

/** Where the captured sets live. */
export const SETS_DIR = join(__dirname, 'sets');

/** The name of the computed union of every captured set. */
export const ALL_SERVERS = 'all-servers';

/** One tool as an MCP server lists it (`tools/list`). */
export interface McpTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: { readonly type: 'object'; readonly [key: string]: unknown };
  readonly annotations?: Readonly<Record<string, unknown>>;
}

/** One captured set: the server (its name is the `<server>` of `mcp__<server>__<tool>`), its package and its tools. */
export interface CapturedSet {
  readonly name: string;
  readonly package: string;
  readonly version: string;
  readonly tools: readonly McpTool[];
}

/** A set as the bench measures it: its name and its tools as the pipeline's schemas. */
export interface ToolSet {
  readonly name: string;
  /** Where it comes from, e.g. `@modelcontextprotocol/server-memory@2026.8.31`, or the union's members. */
  readonly origin: string;
  readonly tools: readonly ToolSchema[];
}

/** The name the extension sends an MCP tool by. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/** A server's tools as the pipeline's schemas, named `mcp__<server>__<tool>`, in the server's order. */
export function schemasOf(set: CapturedSet): ToolSchema[] {
  return set.tools.map((t) => ({
    name: mcpToolName(set.name, t.name),
    description: t.description ?? '',
    inputSchema: t.inputSchema,
    server: set.name,
  }));
}

/** Parses one captured file; an error names what is wrong. */
export function parseCapturedSet(text: string, file: string): CapturedSet {
  const v = JSON.parse(text) as Partial<CapturedSet>;
  const ok =
    typeof v.name === 'string' &&
    typeof v.package === 'string' &&
    typeof v.version === 'string' &&
    Array.isArray(v.tools) &&
    v.tools.every((t: Partial<McpTool>) => typeof t.name === 'string' && t.inputSchema?.type === 'object');
  if (!ok)
    throw new Error(`${file}: not a captured tool set ({ name, package, version, tools: [{ name, inputSchema }] })`);
  return v as CapturedSet;
}

/** The captured sets of `dir`, by file name. */
export function readCapturedSets(dir: string = SETS_DIR): CapturedSet[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => parseCapturedSet(readFileSync(join(dir, f), 'utf8'), join(dir, f)));
}

/** Each captured set, then their union ({@link ALL_SERVERS}) when there are two or more. */
export function toolSets(captured: readonly CapturedSet[]): ToolSet[] {
  const sets = captured.map((c) => ({ name: c.name, origin: `${c.package}@${c.version}`, tools: schemasOf(c) }));
  if (sets.length < 2) return sets;
  return [
    ...sets,
    { name: ALL_SERVERS, origin: captured.map((c) => c.name).join(' + '), tools: sets.flatMap((s) => s.tools) },
  ];
}
