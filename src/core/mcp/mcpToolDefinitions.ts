/**
 * A server's tools as ToolDefinitions (toolDefinition.ts): named `mcp__<server>__<tool>`
 * (mcpToolNames.ts), effect `external`, origin `{ kind: 'mcp', server, tool }`, approval
 * `ask`, readOnly from `annotations.readOnlyHint === true`, the schema tagged with its server,
 * the description neutralised of our tags (tool poisoning), calls validated against the
 * server's schema and executed through a port. Pure.
 */
import { neutralizeUntrusted } from '../conversation/injections';
import { headChars } from '../platform/text';
import type { AnyToolDefinition, InputCheck, ToolExecution, ToolRunContext } from '../tools/toolDefinition';
import { mcpCallTarget } from '../tools/mcpTarget';
import { findNameCollision, mcpToolName } from './mcpToolNames';
import { checkInputSchema, type SchemaCompiler } from './mcpToolSchema';

/** Most tools taken from one server; the rest are left out with a notice. */
export const MAX_TOOLS_PER_SERVER = 100;
/** Longest description passed to the model, in characters. */
export const MAX_DESCRIPTION_CHARS = 4000;

/** Calls the server's own tool `tool` with checked arguments; never throws (errors are error results). */
export type McpCallPort = (tool: string, args: Record<string, unknown>, ctx: ToolRunContext) => Promise<ToolExecution>;

/** What a server's tool list gives, read defensively (the list is untrusted). */
export interface BuildMcpToolsInput {
  readonly server: string;
  /** The `tools` of the server's `tools/list` answer. */
  readonly tools: readonly unknown[];
  /** Names already taken (the built-in and session tools): never shadowed. */
  readonly reserved: ReadonlySet<string>;
  readonly compile: SchemaCompiler;
  readonly call: McpCallPort;
  /** Tools of this server switched off for the session (by their own names). */
  readonly disabledTools?: ReadonlySet<string>;
  readonly maxTools?: number;
}

/** The definitions (sorted by name) and notices about tools left out; or the whole server refused. */
export type BuiltMcpTools =
  | { readonly ok: true; readonly definitions: readonly AnyToolDefinition[]; readonly notices: readonly string[] }
  | { readonly ok: false; readonly reason: string };

interface RawTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: unknown;
  readonly readOnly: boolean;
}

function readTool(raw: unknown): RawTool | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const t = raw as Record<string, unknown>;
  if (typeof t.name !== 'string' || t.name === '') return undefined;
  const annotations =
    typeof t.annotations === 'object' && t.annotations !== null ? (t.annotations as Record<string, unknown>) : {};
  const description = typeof t.description === 'string' ? t.description : typeof t.title === 'string' ? t.title : '';
  return { name: t.name, description, inputSchema: t.inputSchema, readOnly: annotations.readOnlyHint === true };
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** The ToolDefinitions of one server's tool list (see the file comment and {@link BuiltMcpTools}). */
export function buildMcpTools(input: BuildMcpToolsInput): BuiltMcpTools {
  const { server, compile, call } = input;
  const notices: string[] = [];
  const tools: RawTool[] = [];
  for (const raw of input.tools) {
    const t = readTool(raw);
    if (t === undefined) notices.push(`MCP server "${server}": a tool without a name is left out.`);
    else tools.push(t);
  }
  tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const collision = findNameCollision(
    server,
    tools.map((t) => t.name),
  );
  if (collision)
    return {
      ok: false,
      reason: `its tools "${collision.tools[0]}" and "${collision.tools[1]}" would both be named ${collision.name}`,
    };
  const max = input.maxTools ?? MAX_TOOLS_PER_SERVER;
  const definitions: AnyToolDefinition[] = [];
  for (const t of tools) {
    if (input.disabledTools?.has(t.name)) continue;
    const name = mcpToolName(server, t.name);
    if (input.reserved.has(name)) {
      notices.push(`MCP server "${server}": tool "${t.name}" is left out: its name ${name} is taken by another tool.`);
      continue;
    }
    const checked = checkInputSchema(t.inputSchema);
    const compiled = checked.ok ? compile(checked.schema) : undefined;
    if (!checked.ok || !compiled?.ok) {
      const why = !checked.ok
        ? checked.reason
        : compiled && !compiled.ok
          ? `its input schema is invalid (${compiled.error})`
          : '';
      notices.push(`MCP server "${server}": tool "${t.name}" is left out: ${why}.`);
      continue;
    }
    if (definitions.length >= max) {
      notices.push(`MCP server "${server}" offers more than ${max} tools; only the first ${max} (by name) are used.`);
      break;
    }
    const schema = checked.schema;
    const validate = compiled.validate;
    definitions.push({
      schema: {
        name,
        description: headChars(neutralizeUntrusted(t.description), MAX_DESCRIPTION_CHARS),
        inputSchema: schema,
        effect: 'external',
        server,
      },
      effect: 'external',
      origin: { kind: 'mcp', server, tool: t.name },
      approval: 'ask',
      readOnly: t.readOnly,
      validate(value: unknown): InputCheck<Record<string, unknown>> {
        if (!isPlainObject(value)) return { ok: false, error: `${name}: the input must be a JSON object.` };
        const error = validate(value);
        return error === undefined ? { ok: true, input: value } : { ok: false, error: `${name}: ${error}` };
      },
      target: (value: Record<string, unknown>) => mcpCallTarget(value, schema.properties),
      execute: (value: Record<string, unknown>, ctx: ToolRunContext) => call(t.name, value, ctx),
    });
  }
  return { ok: true, definitions, notices };
}
