/**
 * The tool loading plan: which tool definitions a request sends eagerly and which it defers,
 * with the figures of both. Pure.
 *
 * Built-in tools (no `server`) are always loaded. The MCP tools (with `server`) are deferred
 * when their definitions together cost more than `thresholdTokens`:
 * - with a model that supports the API's tool search (modelFacts `toolSearch`), each is sent
 *   with `deferLoading: true` and serialize adds the tool search tool (`search: 'server'`); the
 *   API loads a definition where a search references it, so the list stays byte-identical;
 * - otherwise they are left out of the request, except those the client-side `find_tools`
 *   (findTools.ts) found earlier in the session (`loaded`), which are sent like built-ins; the
 *   plan then asks for `find_tools` (`search: 'client'`).
 *
 * Order is stable so that the same servers give byte-identical tools across sessions (the
 * prompt cache's prefix): built-ins first in the order offered, then MCP tools by server name,
 * then by tool name.
 *
 * API facts (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool):
 * at most 10,000 tools in the catalog; at least one tool must be non-deferred (the search tool
 * is, so a request of MCP tools only is still valid); a search returns 3–5 references.
 * Deferred definitions are not input tokens until referenced, and a reference does not break
 * the prompt cache (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching).
 */
import type { ToolSchema } from '../conversation/conversationModel';
import type { Tokenizer } from '../platform/platformPorts';
import { toolSchemaRawTokens } from '../tokens/blockTokens';

/** The most tools the API's tool search catalog holds. */
export const MAX_TOOL_SEARCH_CATALOG = 10_000;

/**
 * Default of the threshold: MCP definitions above this many (raw) tokens are deferred. From
 * `npm run bench -- tools`: single small servers (memory, everything, filesystem: 940–1,748)
 * stay eager, where what deferring saves after the first search (≈ 550–1,400 tokens a request)
 * is of the order of what the bench cannot count (the search tool's unpublished definition,
 * the search's own output and round trip); playwright alone (3,911) and the four servers
 * together (61 tools, 7,763) are deferred, saving ≈ 3,600 and 8,300 tokens a request.
 */
export const DEFAULT_DEFER_THRESHOLD_TOKENS = 2_000;

/** What the plan is given. */
export interface ToolLoadingInput {
  /** Every tool offered to the model: built-ins (no `server`) and MCP tools (`server` set). */
  readonly offered: readonly ToolSchema[];
  /** Tokens of MCP definitions above which they are deferred (a setting; 0 defers any MCP tool). */
  readonly thresholdTokens: number;
  /** Whether the model and endpoint take the API's tool search (modelFacts `toolSearch`). */
  readonly serverToolSearch: boolean;
  /** MCP tools the client-side `find_tools` loaded this session (used without server tool search). */
  readonly loaded: ReadonlySet<string>;
  readonly tokenizer: Tokenizer;
}

/** One tool's line of the figures. */
export interface ToolFigure {
  readonly name: string;
  readonly server?: string;
  /** Raw tokens of its definition. */
  readonly tokens: number;
  readonly deferred: boolean;
}

/** One server's line of the figures (built-ins under the server name ''). */
export interface ServerFigure {
  readonly server: string;
  readonly eagerTokens: number;
  readonly deferredTokens: number;
  readonly tools: number;
}

/** The plan: the tools to send, the search to offer, and the figures. */
export interface ToolLoadingPlan {
  /** In the order to send; deferred MCP tools carry `deferLoading: true` (server search only). */
  readonly tools: readonly ToolSchema[];
  /** `server`: serialize adds the API's tool search tool; `client`: offer `find_tools`; undefined: nothing deferred. */
  readonly search: 'server' | 'client' | undefined;
  /** Tools deferred (sent deferred, or left out for `find_tools`), in order. */
  readonly deferred: readonly ToolSchema[];
  readonly eagerTokens: number;
  readonly deferredTokens: number;
  readonly byServer: readonly ServerFigure[];
  readonly byTool: readonly ToolFigure[];
}

const byName = (a: ToolSchema, b: ToolSchema): number =>
  (a.server ?? '') < (b.server ?? '')
    ? -1
    : (a.server ?? '') > (b.server ?? '')
      ? 1
      : a.name < b.name
        ? -1
        : a.name > b.name
          ? 1
          : 0;

/** The plan for `input`; see the module comment. */
export function planToolLoading(input: ToolLoadingInput): ToolLoadingPlan {
  const builtins = input.offered.filter((t) => t.server === undefined).map(eager);
  const mcp = input.offered.filter((t) => t.server !== undefined).sort(byName);
  const cost = (t: ToolSchema) => toolSchemaRawTokens(t, input.tokenizer);
  const mcpTokens = mcp.reduce((n, t) => n + cost(t), 0);
  const defer = mcp.length > 0 && mcpTokens > input.thresholdTokens && mcp.length <= MAX_TOOL_SEARCH_CATALOG;
  const tools: ToolSchema[] = [...builtins];
  const deferred: ToolSchema[] = [];
  for (const t of mcp) {
    if (!defer) tools.push(eager(t));
    else if (input.serverToolSearch) {
      const d = t.deferLoading === true ? t : { ...t, deferLoading: true };
      tools.push(d);
      deferred.push(d);
    } else if (input.loaded.has(t.name)) tools.push(eager(t));
    else deferred.push(eager(t));
  }
  const isDeferred = new Set(deferred.map((t) => t.name));
  const byTool: ToolFigure[] = [...builtins, ...mcp].map((t) => ({
    name: t.name,
    ...(t.server !== undefined ? { server: t.server } : {}),
    tokens: cost(t),
    deferred: isDeferred.has(t.name),
  }));
  const servers = new Map<string, { eagerTokens: number; deferredTokens: number; tools: number }>();
  for (const f of byTool) {
    const s = servers.get(f.server ?? '') ?? { eagerTokens: 0, deferredTokens: 0, tools: 0 };
    if (f.deferred) s.deferredTokens += f.tokens;
    else s.eagerTokens += f.tokens;
    s.tools++;
    servers.set(f.server ?? '', s);
  }
  const deferredTokens = byTool.reduce((n, f) => n + (f.deferred ? f.tokens : 0), 0);
  return {
    tools,
    search: deferred.length === 0 ? undefined : input.serverToolSearch ? 'server' : 'client',
    deferred,
    eagerTokens: byTool.reduce((n, f) => n + (f.deferred ? 0 : f.tokens), 0),
    deferredTokens,
    byServer: [...servers].map(([server, s]) => ({ server, ...s })),
    byTool,
  };
}

/** `t` without `deferLoading` (a tool is eager unless the plan defers it). */
function eager(t: ToolSchema): ToolSchema {
  if (t.deferLoading === undefined) return t;
  const { deferLoading: _d, ...rest } = t;
  return rest;
}
