/**
 * Reading the API's server tool blocks (`ServerToolBlock`, kept verbatim): which call a block
 * belongs to, what a tool search asked and found, and one line for transcripts and summaries.
 * Pure.
 *
 * Shapes (SDK `@anthropic-ai/sdk` 1.12, resources/messages/messages.d.ts):
 * - `ServerToolUseBlock`: `{type: 'server_tool_use', id, name, input, caller}`, name one of
 *   `web_search`, `web_fetch`, `code_execution`, `bash_code_execution`,
 *   `text_editor_code_execution`, `tool_search_tool_regex`, `tool_search_tool_bm25`;
 * - `ToolSearchToolResultBlock`: `{type: 'tool_search_tool_result', tool_use_id, content}`,
 *   content `{type: 'tool_search_tool_search_result', tool_references: [{type:
 *   'tool_reference', tool_name}]}` or `{type: 'tool_search_tool_result_error', error_code,
 *   error_message}`;
 * - the other server tools' results (`web_search_tool_result`…) carry `tool_use_id` too.
 * Tool search: https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool
 */
import type { ServerToolBlock, ServerToolRaw } from './conversationModel';

/** The names of the API's tool search tools (SDK `ToolSearchToolRegex20251119`, `ToolSearchToolBm25_20251119`). */
export const TOOL_SEARCH_NAMES: readonly string[] = ['tool_search_tool_regex', 'tool_search_tool_bm25'];

/** Whether `raw` is a server tool call (`server_tool_use`); otherwise it is a result. */
export function isServerCall(raw: ServerToolRaw): boolean {
  return raw.type === 'server_tool_use';
}

/** The call id a server tool block belongs to: `id` of a call, `tool_use_id` of a result ('' when missing). */
export function serverCallId(raw: ServerToolRaw): string {
  const id = isServerCall(raw) ? raw.id : raw.tool_use_id;
  return typeof id === 'string' ? id : '';
}

/** Whether `raw` is an API block a ServerToolBlock may hold: a `server_tool_use`, or a `*_tool_result` with a `tool_use_id`. */
export function isServerToolRaw(raw: unknown): raw is ServerToolRaw {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
  const o = raw as Record<string, unknown>;
  if (o.type === 'server_tool_use') return typeof o.id === 'string' && typeof o.name === 'string';
  return typeof o.type === 'string' && o.type.endsWith('_tool_result') && typeof o.tool_use_id === 'string';
}

/** The tool names a tool search result references (empty for an error or another server tool). */
export function toolReferences(raw: ServerToolRaw): readonly string[] {
  if (raw.type !== 'tool_search_tool_result') return [];
  const content = raw.content as { type?: unknown; tool_references?: unknown } | undefined;
  if (!content || content.type !== 'tool_search_tool_search_result' || !Array.isArray(content.tool_references))
    return [];
  return content.tool_references.flatMap((r: unknown) => {
    const ref = r as { type?: unknown; tool_name?: unknown } | null;
    return ref && ref.type === 'tool_reference' && typeof ref.tool_name === 'string' ? [ref.tool_name] : [];
  });
}

/** `raw` (a tool search result) with only the references `keep` accepts; the same object when all are kept. */
export function keepReferences(raw: ServerToolRaw, keep: (name: string) => boolean): ServerToolRaw {
  const names = toolReferences(raw);
  if (names.every(keep)) return raw;
  const content = raw.content as Record<string, unknown>;
  return {
    ...raw,
    content: {
      ...content,
      tool_references: names.filter(keep).map((tool_name) => ({ type: 'tool_reference', tool_name })),
    },
  };
}

/** The query of a tool search call (`pattern` for regex, `query` for BM25), when it is one. */
export function searchQuery(raw: ServerToolRaw): string | undefined {
  if (!isServerCall(raw) || typeof raw.name !== 'string' || !TOOL_SEARCH_NAMES.includes(raw.name)) return undefined;
  const input = raw.input as { pattern?: unknown; query?: unknown } | undefined;
  const q = input?.pattern ?? input?.query;
  return typeof q === 'string' ? q : JSON.stringify(input ?? {});
}

/**
 * One line for a server tool block: `searched tools for "x"` for a tool search call, `found
 * a, b` (or `found no tools`, or the error code) for its result, else the tool's name and input
 * or the result's type.
 */
export function describeServerBlock(b: ServerToolBlock): string {
  const raw = b.raw;
  const query = searchQuery(raw);
  if (query !== undefined) return `searched tools for ${JSON.stringify(query)}`;
  if (isServerCall(raw)) return `server tool ${String(raw.name)} with input ${JSON.stringify(raw.input ?? {})}`;
  if (raw.type === 'tool_search_tool_result') {
    const content = raw.content as { type?: unknown; error_code?: unknown } | undefined;
    if (content?.type === 'tool_search_tool_result_error') return `tool search failed (${String(content.error_code)})`;
    const names = toolReferences(raw);
    return names.length > 0 ? `found ${names.join(', ')}` : 'found no tools';
  }
  return `server tool result (${raw.type})`;
}

/**
 * Lines for a message's server tool blocks, each call joined with its result in the same
 * message: `searched tools for "x": found a, b`.
 */
export function describeServerBlocks(blocks: readonly ServerToolBlock[]): string[] {
  const lines: string[] = [];
  const done = new Set<ServerToolBlock>();
  for (const b of blocks) {
    if (done.has(b)) continue;
    const id = serverCallId(b.raw);
    const result = isServerCall(b.raw)
      ? blocks.find((r) => r !== b && !isServerCall(r.raw) && serverCallId(r.raw) === id)
      : undefined;
    if (result) done.add(result);
    lines.push(result ? `${describeServerBlock(b)}: ${describeServerBlock(result)}` : describeServerBlock(b));
  }
  return lines;
}

/** The tools every tool search result in `blocks` found, in order, without repeats. */
export function toolsFound(blocks: Iterable<{ readonly type: string; readonly raw?: ServerToolRaw }>): string[] {
  const found = new Set<string>();
  for (const b of blocks) if (b.type === 'server_tool' && b.raw) for (const n of toolReferences(b.raw)) found.add(n);
  return [...found];
}
