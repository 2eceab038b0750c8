/**
 * The API's tool search, faked: the rules of a request with deferred tools, the search itself
 * (a regex, or words for BM25, over the deferred tools' names and descriptions, 5 results at
 * most, as `tool_reference` blocks), and what a reference costs in the prompt. Rules and
 * messages from https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool
 * ("Error handling"; "at least one tool must be non-deferred"; the search tool itself is never
 * deferred; at most 10,000 tools); shapes from the SDK (`ToolSearchToolRegex20251119`,
 * `ServerToolUseBlock`, `ToolSearchToolResultBlock`, `ToolReferenceBlock`).
 */
import type { ToolUnion } from '@anthropic-ai/sdk/resources/messages';
import { invalid, isObject, noExtraKeys, requireString } from './reject';
import { blocksOf, type ApiRequest } from './request';

/** The tool search tools' types and the name each must have. */
export const TOOL_SEARCH_TYPES: Readonly<Record<string, string>> = {
  tool_search_tool_regex_20251119: 'tool_search_tool_regex',
  tool_search_tool_regex: 'tool_search_tool_regex',
  tool_search_tool_bm25_20251119: 'tool_search_tool_bm25',
  tool_search_tool_bm25: 'tool_search_tool_bm25',
};
/** Server tool types the fake takes besides tool search (versioned names of the API's server and client tools). */
const OTHER_TYPED_TOOL = /^(web_search|web_fetch|code_execution|bash|text_editor|memory|computer)_\d{8}$/;
const MAX_RESULTS = 5;
const MAX_TOOLS = 10_000;
const MAX_PATTERN = 200;

type Tool = Record<string, unknown>;

/** Whether `type` is a typed tool the fake knows. */
export function isKnownToolType(type: string): boolean {
  return type in TOOL_SEARCH_TYPES || OTHER_TYPED_TOOL.test(type);
}

function toolsOf(req: ApiRequest): Tool[] {
  return (req.tools ?? []) as unknown as Tool[];
}

/** The deferred custom tools of a request. */
export function deferredTools(req: ApiRequest): Tool[] {
  return toolsOf(req).filter((t) => t.defer_loading === true);
}

/** The tool search tool of a request, if any. */
export function searchToolOf(req: ApiRequest): Tool | undefined {
  return toolsOf(req).find((t) => typeof t.type === 'string' && t.type in TOOL_SEARCH_TYPES);
}

/** The rules of deferred tools and tool search on `tools` and the messages; throws the API's error. */
export function checkToolSearch(req: ApiRequest): void {
  const tools = toolsOf(req);
  for (const [i, t] of tools.entries()) {
    if (typeof t.type === 'string' && t.type in TOOL_SEARCH_TYPES) {
      noExtraKeys(
        t,
        new Set(['type', 'name', 'cache_control', 'defer_loading', 'allowed_callers', 'strict']),
        `tools.${i}`,
      );
      if (t.name !== TOOL_SEARCH_TYPES[t.type])
        invalid('tools', `tools.${i}.name: Input should be '${TOOL_SEARCH_TYPES[t.type]}'`);
      if (t.defer_loading === true) invalid('tool_search', 'The tool search tool cannot have defer_loading set.');
    }
  }
  if (tools.length > MAX_TOOLS) invalid('tools', `tools: at most ${MAX_TOOLS} tools`);
  if (tools.length > 0 && tools.every((t) => t.defer_loading === true))
    invalid('tool_search', 'All tools have defer_loading set. At least one tool must be non-deferred.');
  const deferred = new Set(deferredTools(req).map((t) => t.name));
  req.messages.forEach((m, i) => {
    const blocks = blocksOf(m) as unknown as Record<string, unknown>[];
    const calls = new Map<string, number>();
    blocks.forEach((b, j) => {
      const loc = `messages.${i}.content.${j}`;
      if (b.type === 'server_tool_use') {
        const id = requireString(b.id, `${loc}.server_tool_use.id`, 'server_tool_use');
        const name = requireString(b.name, `${loc}.server_tool_use.name`, 'server_tool_use');
        if (name in { tool_search_tool_regex: 1, tool_search_tool_bm25: 1 } && searchToolOf(req)?.name !== name)
          invalid('tool_search', `${loc}: server tool '${name}' is not defined in \`tools\``);
        calls.set(id, j);
      } else if (b.type === 'tool_search_tool_result') {
        const id = requireString(b.tool_use_id, `${loc}.tool_search_tool_result.tool_use_id`, 'tool_search');
        if (!calls.has(id))
          invalid(
            'tool_search',
            `${loc}: tool_search_tool_result block(s) provided when previous message does not have a matching server_tool_use block: ${id}`,
          );
        calls.delete(id);
        for (const name of referencesOf(b, loc))
          if (!deferred.has(name))
            invalid('tool_reference_unresolved', `Tool reference '${name}' has no corresponding tool definition`);
      } else if (b.type === 'tool_result' && Array.isArray(b.content)) {
        for (const inner of b.content as unknown[])
          if (isObject(inner) && inner.type === 'tool_reference' && !deferred.has(inner.tool_name as string))
            invalid(
              'tool_reference_unresolved',
              `Tool reference '${String(inner.tool_name)}' has no corresponding tool definition`,
            );
      }
    });
    for (const id of calls.keys())
      invalid(
        'tool_search',
        `messages.${i}: server_tool_use ids were found without tool_search_tool_result blocks immediately after: ${id}`,
      );
  });
}

/** The names a tool search result block references (checked as the SDK types them). */
function referencesOf(b: Record<string, unknown>, loc: string): string[] {
  const c = b.content;
  if (!isObject(c))
    invalid('tool_search', `${loc}.tool_search_tool_result.content: Input should be a valid dictionary`);
  if (c.type === 'tool_search_tool_result_error') return [];
  if (c.type !== 'tool_search_tool_search_result' || !Array.isArray(c.tool_references))
    invalid('tool_search', `${loc}.tool_search_tool_result.content.tool_references: Field required`);
  return c.tool_references.map((r: unknown, k) => {
    if (!isObject(r) || r.type !== 'tool_reference')
      invalid(
        'tool_search',
        `${loc}.tool_search_tool_result.content.tool_references.${k}: Input should be a tool_reference`,
      );
    return requireString(
      r.tool_name,
      `${loc}.tool_search_tool_result.content.tool_references.${k}.tool_name`,
      'tool_search',
    );
  });
}

/** The deferred tools `query` finds: a case-insensitive regex (Python `re.search` style) or, for BM25, any word. */
export function searchTools(req: ApiRequest, query: string): string[] {
  const bm25 = searchToolOf(req)?.name === 'tool_search_tool_bm25';
  const text = (t: Tool) => `${String(t.name)}\n${String(t.description ?? '')}`;
  let test: (t: Tool) => boolean;
  if (bm25) {
    const words = query.toLowerCase().split(/\W+/).filter(Boolean);
    test = (t) => words.some((w) => text(t).toLowerCase().includes(w));
  } else {
    const re = new RegExp(query.slice(0, MAX_PATTERN), 'i');
    test = (t) => re.test(text(t));
  }
  return deferredTools(req)
    .filter(test)
    .slice(0, MAX_RESULTS)
    .map((t) => String(t.name));
}

/** The tools `req` references in its history (each once), whose definitions the prompt now holds. */
export function referencedTools(req: ApiRequest): ToolUnion[] {
  const names = new Set<string>();
  for (const m of req.messages)
    for (const b of blocksOf(m) as unknown as Record<string, unknown>[])
      if (b.type === 'tool_search_tool_result' && isObject(b.content) && Array.isArray(b.content.tool_references))
        for (const r of b.content.tool_references as { tool_name?: unknown }[])
          if (typeof r.tool_name === 'string') names.add(r.tool_name);
  return deferredTools(req).filter((t) => names.has(String(t.name))) as unknown as ToolUnion[];
}
