import type {
  AssistantMessageParam,
  CacheControlEphemeral,
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
  ToolSearchToolBm25_20251119,
  ToolSearchToolRegex20251119,
  ToolUnion,
  UserMessageParam,
} from '@anthropic-ai/sdk/resources/messages';
import type {
  Block,
  CacheTtl,
  ConversationState,
  Message,
  ServerSummaryFields,
  TextBlock,
  ToolSchema,
} from '../conversation/conversationModel';
import { COMPACT_BETA, ON_DEMAND_COMPACTION_BETA } from '../server/serverContext';
import { thinkingParams } from '../models/thinking';
import { usualWriteTtl } from '../cache/usualWriteTtl';
import type { BreakpointTarget } from '../cache/cacheAnchors';

/**
 * Turns core state into the SDK's request types. Message params are memoised per Message
 * object (messages are immutable), so a turn only serialises what is new; breakpoints are
 * applied on shallow copies and never leak into the memo.
 */

/** A user or assistant message as the API takes it (the pipeline never sends system-role messages). */
export type ChatMessageParam = UserMessageParam | AssistantMessageParam;

const memo = new WeakMap<Message, ChatMessageParam>();

/** A breakpoint with the lifetime to write it with (absent: the setting's, 5 minutes under `auto`). */
export type TimedBreakpoint = BreakpointTarget & { readonly ttl?: CacheTtl };

/**
 * The content blocks a Message becomes (unsigned thinking cannot be sent and is left out; a
 * redacted thinking block goes back as `{type: 'redacted_thinking', data}`, unchanged).
 */
export function serializeMessage(message: Message): ChatMessageParam {
  const hit = memo.get(message);
  if (hit) return hit;
  const content: ContentBlockParam[] = [];
  for (const b of message.blocks) {
    const param = serializeBlock(b);
    if (param) content.push(param);
  }
  if (content.length === 0) content.push({ type: 'text', text: '(no content)' });
  const param: ChatMessageParam = { role: message.role, content };
  memo.set(message, param);
  return param;
}

function serializeBlock(b: Block): ContentBlockParam | undefined {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'summary':
      if (b.server) return compactionParam(b.text, b.server);
      return {
        type: 'text',
        text: `<conversation_summary turns="${b.turnRange[0]}-${b.turnRange[1]}">\n${b.text}\n</conversation_summary>`,
      };
    case 'tool_use':
      return { type: 'tool_use', id: b.id, name: b.name, input: b.input as Record<string, unknown> };
    case 'tool_result': {
      const content: ToolResultBlockParam['content'] =
        typeof b.content === 'string'
          ? b.content
          : b.content.map((p) =>
              p.type === 'text'
                ? { type: 'text' as const, text: p.text }
                : {
                    type: 'image' as const,
                    source: { type: 'base64' as const, media_type: p.mediaType, data: p.data },
                  },
            );
      return { type: 'tool_result', tool_use_id: b.toolUseId, content, ...(b.isError ? { is_error: true } : {}) };
    }
    case 'thinking':
      // SDK RedactedThinkingBlockParam: "The `data` value … exactly as returned by the API".
      if (b.redactedData !== undefined) return { type: 'redacted_thinking', data: b.redactedData };
      return b.signature ? { type: 'thinking', thinking: b.thinking, signature: b.signature } : undefined;
    case 'image':
      return { type: 'image', source: { type: 'base64', media_type: b.mediaType, data: b.data } };
    case 'server_tool':
      // Sent back exactly as the API returned it (SDK ServerToolUseBlockParam /
      // ToolSearchToolResultBlockParam take the response block's fields); normalize left out
      // unpaired halves and references the request cannot resolve (serverBlocks.ts).
      return b.raw as unknown as ContentBlockParam;
  }
}

/**
 * A server compaction block as the API takes it back (SDK `BetaCompactionBlockParam`:
 * type, content, encrypted_content "to be round-tripped verbatim", the signature "to be sent
 * back verbatim", tool_changes "send them back unchanged"). The request type here is the
 * non-beta one, which does not list this block: the cast is the one place the beta shape
 * enters, and the client sends such a request through `beta.messages` with the compaction
 * beta header (see serverContext.ts, anthropicClient.ts).
 */
function compactionParam(content: string, server: ServerSummaryFields): ContentBlockParam {
  const block = {
    type: 'compaction' as const,
    content,
    ...(server.encryptedContent !== undefined ? { encrypted_content: server.encryptedContent } : {}),
    ...(server.signature !== undefined ? { signature: server.signature } : {}),
    ...(server.toolChanges !== undefined ? { tool_changes: server.toolChanges } : {}),
  };
  return block as unknown as ContentBlockParam;
}

/** Whether a state's history holds a server compaction block (its request needs the compaction beta). */
export function hasServerCompaction(state: ConversationState): boolean {
  return state.messages.some((m) => m.blocks.some((b) => b.type === 'summary' && b.server !== undefined));
}

/**
 * The beta headers the history's compaction blocks need: `compact-2026-09-04` for a block a
 * compaction request returned (https://platform.claude.com/docs/en/build-with-claude/compaction-on-demand:
 * the header goes on every later request that carries it), `compact-2026-01-12` for one an
 * answer carried (`compact_20260112`). Empty without such a block.
 */
export function compactionBlockBetas(state: ConversationState): string[] {
  const betas = new Set<string>();
  for (const m of state.messages)
    for (const b of m.blocks)
      if (b.type === 'summary' && b.server) betas.add(b.server.onDemand ? ON_DEMAND_COMPACTION_BETA : COMPACT_BETA);
  return [...betas];
}

/** System blocks as the API's text blocks. */
export function serializeSystem(system: readonly TextBlock[]): TextBlockParam[] {
  return system.map((b) => ({ type: 'text', text: b.text }));
}

/**
 * Tool schemas as the API's tool definitions, in their order; a deferred tool with
 * `defer_loading: true` (SDK `Tool.defer_loading`: "If true, tool will not be included in
 * initial system prompt. Only loaded when returned via tool_reference from tool search"). When
 * any tool is deferred, the API's tool search tool `search` (default regex) goes last: never
 * deferred itself ("The tool search tool itself must never have defer_loading: true", and at
 * least one tool must be non-deferred, https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool),
 * so the `tools` cache breakpoint, on the last tool, never sits on a deferred tool, whose
 * definition is not in the cached prefix
 * (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching).
 */
export function serializeTools(tools: readonly ToolSchema[], search: ToolSearchVariant = 'regex'): ToolUnion[] {
  const out: ToolUnion[] = tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.inputSchema as Tool['input_schema'],
    ...(t.deferLoading === true ? { defer_loading: true } : {}),
  }));
  if (tools.some((t) => t.deferLoading === true)) out.push(toolSearchTool(search));
  return out;
}

/** Which of the API's tool search tools a request with deferred tools carries. */
export type ToolSearchVariant = 'regex' | 'bm25';

/** The API's tool search tool (SDK `ToolSearchToolRegex20251119` / `ToolSearchToolBm25_20251119`). */
export function toolSearchTool(variant: ToolSearchVariant): ToolSearchToolRegex20251119 | ToolSearchToolBm25_20251119 {
  return variant === 'bm25'
    ? { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' }
    : { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' };
}

/** The cache_control value for a TTL (5m is the API's default and is left implicit). */
export function cacheControl(ttl: CacheTtl): CacheControlEphemeral {
  return ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

/**
 * Builds the request body for `messages.create` / `messages.stream`: model, max_tokens
 * (the output reserve), system, tools, messages and thinking (`thinking.ts`), with a `cache_control` breakpoint on
 * each target (the last cacheable block of a target message). Never mutates memoised params.
 */
export function serializeRequest(
  state: ConversationState,
  breakpoints: readonly TimedBreakpoint[] = [],
): MessageCreateParamsNonStreaming {
  const fallback = usualWriteTtl(state.config.cacheTtl);
  const system = serializeSystem(state.system);
  const tools = serializeTools(state.tools, state.config.toolSearch);
  const messages = state.messages.map(serializeMessage);
  for (const bp of breakpoints) {
    const ttl = bp.ttl ?? fallback;
    if (bp.at === 'tools' && tools.length > 0) {
      const i = tools.length - 1;
      tools[i] = { ...(tools[i] as ToolUnion), cache_control: cacheControl(ttl) };
    } else if (bp.at === 'system' && system.length > 0) {
      const i = system.length - 1;
      system[i] = { ...(system[i] as TextBlockParam), cache_control: cacheControl(ttl) };
    } else if (bp.at === 'message') {
      const m = messages[bp.messageIndex];
      if (m) messages[bp.messageIndex] = withBreakpoint(m, ttl);
    }
  }
  return {
    model: state.config.model,
    max_tokens: state.config.outputReserve,
    ...(system.length > 0 ? { system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    messages,
    ...thinkingParams(state.config.model, state.config.thinking, state.config.outputReserve, state.messages),
  };
}

function withBreakpoint(m: ChatMessageParam, ttl: CacheTtl): ChatMessageParam {
  const content = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : [...m.content];
  for (let i = content.length - 1; i >= 0; i--) {
    const b = content[i];
    if (b && b.type !== 'thinking' && b.type !== 'redacted_thinking') {
      content[i] = { ...b, cache_control: cacheControl(ttl) } as ContentBlockParam;
      return { ...m, content };
    }
  }
  return m;
}

/** Number of content blocks a message sends (what the API's 20-block cache lookback counts). */
export function sentBlockCount(message: Message): number {
  const c = serializeMessage(message).content;
  return typeof c === 'string' ? 1 : c.length;
}
