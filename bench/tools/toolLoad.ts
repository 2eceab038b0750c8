/**
 * The bench's own model of what a tool set costs a request, sent eagerly or deferred. The
 * deferred-loading pipeline itself lands in `src/core/tools/toolLoading.ts` (another branch):
 * once it does, this module should call that plan instead of modelling it here.
 *
 * What the API does with a deferred tool, from Anthropic:
 * - `defer_loading: true` — "If true, tool will not be included in initial system prompt. Only
 *   loaded when returned via tool_reference from tool search." (`@anthropic-ai/sdk` 1.12,
 *   `ToolSearchToolRegex20251119.defer_loading` and every tool param's `defer_loading`).
 * - "Deferred tools are not included in the system-prompt prefix. When the model discovers a
 *   deferred tool through tool search, the definition is appended inline as a tool_reference
 *   block in the conversation history. The prefix is untouched, so prompt caching is
 *   preserved." ({@link PROMPT_CACHING_DOC}).
 * - Tool search loads "only the 3–5 tools Claude needs for a given request" ({@link TOOL_SEARCH_DOC}).
 * - The size of the tool search tool's own definition (the server-side text the API expands
 *   its declaration into) is not published: only its declaration is counted here, and the
 *   bench says so.
 *
 * Counting: each definition as the estimator counts a tool schema (`toolSchemaRawTokens`,
 * calibrated and rounded per tool as the ledger does). The tool-use system prompt the API adds
 * when a request has tools is the same both ways (the request has tools either way) and is
 * already in each transcript's measured overhead, so it is not added.
 */
import type { ToolUnion } from '@anthropic-ai/sdk/resources/messages';
import type { Message, TextBlock, ToolSchema } from '../../src/core/conversation/conversationModel';
import type { Tokenizer } from '../../src/core/platform/platformPorts';
import { serializeTools } from '../../src/core/pipeline/serialize';
import { calibratedBlockTokens } from '../../src/core/tokens/calibratedTokens';
import { applyCalibration, type Calibration } from '../../src/core/tokens/calibration';
import { TOOL_SCHEMA_FRAMING, toolSchemaRawTokens } from '../../src/core/tokens/blockTokens';
import type { ToolSet } from './toolSets';

/** Anthropic's page on the tool search tool. */
export const TOOL_SEARCH_DOC = 'https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool';
/** Anthropic's page on deferred tools and the prompt cache. */
export const PROMPT_CACHING_DOC =
  'https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching';

/** The tool search tool's declaration as a request carries it (`ToolSearchToolRegex20251119`). */
export const SEARCH_TOOL = { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' } as const;

/**
 * Tools one search loads, by default: the low end of the docs' "3–5 tools", loaded after the
 * session's first tool call and kept for the rest of it (loaded again after a compaction
 * removed them).
 */
export const DEFAULT_LOADED = 3;

/** Prefix of the id of the block that stands for a search's result in the replayed history. */
export const LOADED_BLOCK_ID = 'tool-search-loaded-';

/** What a set costs a request, both ways. */
export interface ToolRequestModel {
  /** The `tools` array sent eagerly: every definition. */
  readonly eagerTools: readonly ToolUnion[];
  /** The `tools` array sent deferred: the search tool, then every definition with `defer_loading: true`. */
  readonly deferredTools: readonly unknown[];
  /** Calibrated tokens of every definition: what each request carries eagerly. */
  readonly eagerTokens: number;
  /** Calibrated tokens of the search tool's declaration (its server-side definition is not published). */
  readonly searchToolTokens: number;
  /** The tools the model is assumed to load: the set's K largest (the fixtures call none of them). */
  readonly loaded: readonly ToolSchema[];
  /** The search call, its result and the K expanded definitions, as one history text. */
  readonly loadedText: string;
  /** Calibrated tokens of that text as the replay counts it. */
  readonly loadedTokens: number;
  /** A request after the first search: the search tool plus the loaded definitions. */
  readonly deferredTokens: number;
}

/** Calibrated tokens of one schema, rounded as the ledger rounds each row. */
export function schemaTokens(tool: ToolSchema, tokenizer: Tokenizer, calibration: Calibration): number {
  return Math.round(applyCalibration(calibration, { text: toolSchemaRawTokens(tool, tokenizer), fixed: 0 }));
}

/**
 * The K tools a search is assumed to load: the largest definitions (which tools a session
 * would use is unknown; the largest are the pessimistic choice for deferred loading).
 */
export function loadedTools(
  tools: readonly ToolSchema[],
  k: number,
  tokenizer: Tokenizer,
  calibration: Calibration,
): ToolSchema[] {
  return [...tools]
    .map((t, i) => ({ t, i, n: schemaTokens(t, tokenizer, calibration) }))
    .sort((a, b) => b.n - a.n || a.i - b.i)
    .slice(0, Math.max(0, k))
    .map((x) => x.t);
}

/** The text standing in the history for one search: the call, its tool_reference result and the expanded definitions. */
export function loadedToolsText(loaded: readonly ToolSchema[]): string {
  const pattern = loaded.map((t) => t.name).join('|');
  return [
    `${SEARCH_TOOL.name}\npattern\n${pattern}`,
    `tool_search_tool_result\n${loaded.map((t) => `tool_reference ${t.name}`).join('\n')}`,
    ...loaded.map((t) => `${t.name}\n${t.description}\n${JSON.stringify(t.inputSchema)}`),
  ].join('\n\n');
}

/** The history block for `text`, as the replay adds it. */
export function loadedBlock(text: string, id: string, createdAt: number): TextBlock {
  return { type: 'text', text, meta: { id, source: 'tool', tier: 3, createdAt, pinned: false, compactable: true } };
}

/** Models a set both ways with one transcript's tokenizer and calibration; `k`: tools one search loads. */
export function toolRequestModel(
  set: ToolSet,
  tokenizer: Tokenizer,
  calibration: Calibration,
  k: number = DEFAULT_LOADED,
): ToolRequestModel {
  const eagerTools = serializeTools(set.tools);
  const eagerTokens = set.tools.reduce((n, t) => n + schemaTokens(t, tokenizer, calibration), 0);
  const searchRaw = TOOL_SCHEMA_FRAMING + tokenizer.count(JSON.stringify(SEARCH_TOOL));
  const searchToolTokens = Math.round(applyCalibration(calibration, { text: searchRaw, fixed: 0 }));
  const loaded = loadedTools(set.tools, k, tokenizer, calibration);
  const loadedText = loaded.length > 0 ? loadedToolsText(loaded) : '';
  const loadedTokens =
    loadedText === '' ? 0 : Math.round(calibratedBlockTokens(loadedBlock(loadedText, 'x', 0), tokenizer, calibration));
  return {
    eagerTools,
    deferredTools: [SEARCH_TOOL, ...eagerTools.map((t) => ({ ...t, defer_loading: true }))],
    eagerTokens,
    searchToolTokens,
    loaded,
    loadedText,
    loadedTokens,
    deferredTokens: searchToolTokens + loadedTokens,
  };
}

/**
 * `message` with the search's result put before its first tool call, when it is the model's
 * answer calling a tool and `history` holds no search result any more (none yet, or a
 * compaction took it: the model would search again). Otherwise `message` itself.
 */
export function withLoadedTools(message: Message, history: readonly Message[], text: string): Message {
  if (message.role !== 'assistant' || text === '') return message;
  const at = message.blocks.findIndex((b) => b.type === 'tool_use');
  if (at < 0) return message;
  if (history.some((m) => m.blocks.some((b) => b.meta.id.startsWith(LOADED_BLOCK_ID)))) return message;
  const first = message.blocks[at];
  const block = loadedBlock(text, `${LOADED_BLOCK_ID}${message.id}`, first?.meta.createdAt ?? 0);
  return { ...message, blocks: [...message.blocks.slice(0, at), block, ...message.blocks.slice(at)] };
}
