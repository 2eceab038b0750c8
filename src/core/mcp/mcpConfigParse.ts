/**
 * Reads the three MCP configuration sources into McpServerConfigs (mcpConfig.ts):
 * - the user setting `contextPipeline.mcpServers`: `{ name: { type?, command, args?, env?, cwd?, url, headers?, disabled? } }`;
 * - the workspace's `.vscode/mcp.json` (VS Code's format): `{ servers: { name: … }, inputs: [...] }`, JSONC;
 * - the workspace's `.mcp.json` (Claude Code's and Cursor's format): `{ mcpServers: { name: … } }`, JSONC.
 * Each malformed entry is refused alone, with a message naming the server and the source;
 * the others go on. Messages never quote configured values (they may be secrets). Pure.
 */
import * as v from 'valibot';
import { parseJsonc } from './jsonc';
import {
  MCP_SOURCE_LABEL,
  type McpConfigRefusal,
  type McpConfigSet,
  type McpInputSpec,
  type McpServerConfig,
  type McpSource,
  type McpTransportKind,
} from './mcpConfig';

const Str = v.string();
const StrRecord = v.record(v.string(), v.string());

/** One server entry, in the union of the three formats (stricter checks follow in `toServer`). */
const ServerEntry = v.looseObject({
  type: v.optional(v.picklist(['stdio', 'http', 'sse'])),
  command: v.optional(v.pipe(Str, v.trim(), v.minLength(1))),
  args: v.optional(v.array(Str)),
  env: v.optional(v.record(v.string(), v.union([Str, v.number(), v.boolean(), v.null()]))),
  cwd: v.optional(Str),
  url: v.optional(v.pipe(Str, v.trim(), v.minLength(1))),
  headers: v.optional(StrRecord),
  disabled: v.optional(v.boolean()),
  envFile: v.optional(v.unknown()),
});

const InputEntry = v.looseObject({
  id: v.pipe(Str, v.minLength(1)),
  type: v.optional(Str),
  description: v.optional(Str),
  password: v.optional(v.boolean()),
  default: v.optional(Str),
});

/** What a valibot issue says, without the value it received: `"args" must be Array`. */
function issueText(issues: readonly v.BaseIssue<unknown>[]): string {
  const first = issues[0];
  if (first === undefined) return 'invalid entry';
  const path = v.getDotPath(first);
  const expected = first.expected ?? 'valid';
  return path ? `"${path}" must be ${expected}` : `the entry must be ${expected}`;
}

function refusal(source: McpSource, server: string | undefined, reason: string): McpConfigRefusal {
  const where = MCP_SOURCE_LABEL[source];
  return {
    server,
    source,
    message: server ? `MCP server "${server}" in ${where}: ${reason}.` : `${where}: ${reason}.`,
  };
}

/** The transport an entry asks for: its `type`, else stdio when it has a command, http when it has a url. */
function transportOf(entry: v.InferOutput<typeof ServerEntry>): McpTransportKind | undefined {
  if (entry.type) return entry.type;
  if (entry.command !== undefined) return 'stdio';
  if (entry.url !== undefined) return 'http';
  return undefined;
}

/** One entry → a server, or the reason it is refused. */
function toServer(
  name: string,
  raw: unknown,
  source: McpSource,
  inputs: readonly McpInputSpec[],
): McpServerConfig | McpConfigRefusal {
  if (name.trim() === '') return refusal(source, undefined, 'a server has an empty name');
  const parsed = v.safeParse(ServerEntry, raw);
  if (!parsed.success) return refusal(source, name, issueText(parsed.issues));
  const e = parsed.output;
  if (e.envFile !== undefined)
    return refusal(
      source,
      name,
      '"envFile" is not supported; put the variables in "env" (with ${input:…} for secrets)',
    );
  const transport = transportOf(e);
  if (transport === undefined) return refusal(source, name, 'needs a "command" (stdio) or a "url" (http, sse)');
  if (transport === 'stdio' && e.command === undefined)
    return refusal(source, name, 'a stdio server needs a "command"');
  if (transport !== 'stdio' && e.url === undefined)
    return refusal(source, name, `an ${transport} server needs a "url"`);
  const env: Record<string, string> = {};
  for (const [k, val] of Object.entries(e.env ?? {})) if (val !== null) env[k] = String(val);
  const launch =
    transport === 'stdio'
      ? { transport, command: e.command, args: e.args ?? [], env, cwd: e.cwd, headers: {} }
      : { transport, url: e.url, args: [], env: {}, headers: e.headers ?? {} };
  return { name, source, launch, disabled: e.disabled === true, inputs };
}

/** The servers of one `{ name: entry }` object. */
function serversOf(
  entries: unknown,
  source: McpSource,
  key: string | undefined,
  inputs: readonly McpInputSpec[] = [],
): McpConfigSet {
  if (entries === undefined || entries === null) return { servers: [], refused: [] };
  if (typeof entries !== 'object' || Array.isArray(entries))
    return {
      servers: [],
      refused: [refusal(source, undefined, `${key ? `"${key}"` : 'the value'} must be an object of servers by name`)],
    };
  const servers: McpServerConfig[] = [];
  const refused: McpConfigRefusal[] = [];
  for (const [name, raw] of Object.entries(entries)) {
    const out = toServer(name, raw, source, inputs);
    if ('launch' in out) servers.push(out);
    else refused.push(out);
  }
  return { servers, refused };
}

/** The setting `contextPipeline.mcpServers` (already JSON, from VS Code's settings). */
export function parseUserMcpServers(value: unknown): McpConfigSet {
  return serversOf(value, 'user', undefined);
}

/** The top-level object of a workspace file's text, or its refusal. */
function fileObject(
  text: string,
  source: McpSource,
):
  | { readonly ok: true; readonly obj: Record<string, unknown> }
  | { readonly ok: false; readonly refusal: McpConfigRefusal } {
  const parsed = parseJsonc(text);
  if (!parsed.ok) return { ok: false, refusal: refusal(source, undefined, `not valid JSON (${parsed.error})`) };
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, refusal: refusal(source, undefined, 'the file must hold an object') };
  return { ok: true, obj: value as Record<string, unknown> };
}

/** The `inputs` array of `.vscode/mcp.json`: the entries that parse (the others are refused). */
function inputsOf(raw: unknown, source: McpSource, refused: McpConfigRefusal[]): McpInputSpec[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    refused.push(refusal(source, undefined, '"inputs" must be an array'));
    return [];
  }
  const out: McpInputSpec[] = [];
  for (const [i, item] of raw.entries()) {
    const parsed = v.safeParse(InputEntry, item);
    if (!parsed.success) {
      refused.push(refusal(source, undefined, `input ${i + 1}: ${issueText(parsed.issues)}`));
      continue;
    }
    const e = parsed.output;
    out.push({
      id: e.id,
      type: e.type ?? 'promptString',
      description: e.description,
      password: e.password === true,
      default: e.default,
    });
  }
  return out;
}

/** The workspace's `.vscode/mcp.json` text (VS Code's format, JSONC). */
export function parseVscodeMcpJson(text: string): McpConfigSet {
  const source: McpSource = 'workspace-vscode';
  const file = fileObject(text, source);
  if (!file.ok) return { servers: [], refused: [file.refusal] };
  const obj = file.obj;
  const refused: McpConfigRefusal[] = [];
  const inputs = inputsOf(obj.inputs, source, refused);
  const set = serversOf(obj.servers, source, 'servers', inputs);
  return { servers: set.servers, refused: [...refused, ...set.refused] };
}

/** The workspace's `.mcp.json` text (the `mcpServers` format, JSONC tolerated). */
export function parseMcpJson(text: string): McpConfigSet {
  const source: McpSource = 'workspace-mcp-json';
  const file = fileObject(text, source);
  if (!file.ok) return { servers: [], refused: [file.refusal] };
  return serversOf(file.obj.mcpServers, source, 'mcpServers');
}
