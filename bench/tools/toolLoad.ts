/**
 * What a tool set costs a request, sent eagerly or deferred, in the core's own figures: the
 * tool loading plan (`planToolLoading`, src/core/tools/toolLoading.ts) decides what is
 * deferred, and `toolBudget` (src/core/pipeline/toolBudget.ts) counts the planned tools
 * exactly as the budget panel does (each definition `toolSchemaRawTokens`, calibrated and
 * rounded per tool; the tool search tool `toolSearchRawTokens`). Only what a search loads into
 * the history is modelled here (the sessions replayed call none of these tools).
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
 *   its declaration into) is not published: the core counts it as a short schema
 *   (`toolSearchRawTokens`), and the bench says so.
 *
 * The tool-use system prompt the API adds when a request has tools is the same both ways (the
 * request has tools either way) and is already in each transcript's measured overhead, so it
 * is not added.
 */
import type { ToolUnion } from '@anthropic-ai/sdk/resources/messages';
import type { Message, TextBlock, ToolSchema } from '../../src/core/conversation/conversationModel';
import type { Tokenizer } from '../../src/core/platform/platformPorts';
import { serializeTools, toolSearchTool } from '../../src/core/pipeline/serialize';
import { toolBudget, type ToolBudget } from '../../src/core/pipeline/toolBudget';
import { calibratedBlockTokens } from '../../src/core/tokens/calibratedTokens';
import type { Calibration } from '../../src/core/tokens/calibration';
import { planToolLoading, type ToolLoadingPlan } from '../../src/core/tools/toolLoading';
import type { ToolSet } from './toolSets';

/** Anthropic's page on the tool search tool. */
export const TOOL_SEARCH_DOC = 'https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool';
/** Anthropic's page on deferred tools and the prompt cache. */
export const PROMPT_CACHING_DOC =
  'https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching';

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
  /** The plan with nothing deferred (a threshold no set reaches). */
  readonly eagerPlan: ToolLoadingPlan;
  /** The plan with every MCP tool deferred behind the API's tool search (threshold 0). */
  readonly deferredPlan: ToolLoadingPlan;
  /** The `tools` array sent eagerly: every definition. */
  readonly eagerTools: readonly ToolUnion[];
  /** The `tools` array sent deferred: every definition with `defer_loading: true`, then the search tool. */
  readonly deferredTools: readonly ToolUnion[];
  /** The budget panel's figures of the eager request's tools. */
  readonly eagerBudget: ToolBudget;
  /** The budget panel's figures of the deferred request's tools (the search tool's in `searchTokens`). */
  readonly deferredBudget: ToolBudget;
  /** What each request carries eagerly: `eagerBudget.tokens`. */
  readonly eagerTokens: number;
  /** What each request carries deferred before any search: `deferredBudget.tokens` (the search tool). */
  readonly searchToolTokens: number;
  /** The tools the model is assumed to load: the set's K largest (the fixtures call none of them). */
  readonly loaded: readonly ToolSchema[];
  /** The search call, its result and the K expanded definitions, as one history text. */
  readonly loadedText: string;
  /** Calibrated tokens of that text as the replay counts it. */
  readonly loadedTokens: number;
  /** A request after the first search: the deferred request's tools plus the loaded definitions. */
  readonly deferredTokens: number;
}

/** A threshold no tool set reaches: the plan then defers nothing. */
const NEVER = Number.POSITIVE_INFINITY;

/** The core's plan for `set` at `thresholdTokens`, on a model with the API's tool search, nothing loaded yet. */
export function planFor(set: ToolSet, thresholdTokens: number, tokenizer: Tokenizer): ToolLoadingPlan {
  return planToolLoading({ offered: set.tools, thresholdTokens, serverToolSearch: true, loaded: new Set(), tokenizer });
}

/** Whether the core defers `set` at `thresholdTokens` (what `contextPipeline.toolSearch.deferThreshold` decides). */
export function deferredAt(set: ToolSet, thresholdTokens: number, tokenizer: Tokenizer): boolean {
  return planFor(set, thresholdTokens, tokenizer).search !== undefined;
}

/**
 * The K tools a search is assumed to load: the largest definitions by the panel's figures
 * (which tools a session would use is unknown; the largest are the pessimistic choice for
 * deferred loading), ties in the plan's order.
 */
export function loadedTools(budget: ToolBudget, tools: readonly ToolSchema[], k: number): ToolSchema[] {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return budget.groups
    .flatMap((g) => g.tools)
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.tokens - a.c.tokens || a.i - b.i)
    .slice(0, Math.max(0, k))
    .flatMap(({ c }) => {
      const t = byName.get(c.name);
      return t ? [t] : [];
    });
}

/** The text standing in the history for one search: the call, its tool_reference result and the expanded definitions. */
export function loadedToolsText(loaded: readonly ToolSchema[]): string {
  const pattern = loaded.map((t) => t.name).join('|');
  return [
    `${toolSearchTool('regex').name}\npattern\n${pattern}`,
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
  const eagerPlan = planFor(set, NEVER, tokenizer);
  const deferredPlan = planFor(set, 0, tokenizer);
  const eagerBudget = toolBudget(eagerPlan.tools, tokenizer, calibration);
  const deferredBudget = toolBudget(deferredPlan.tools, tokenizer, calibration);
  const loaded = loadedTools(eagerBudget, eagerPlan.tools, k);
  const loadedText = loaded.length > 0 ? loadedToolsText(loaded) : '';
  const loadedTokens =
    loadedText === '' ? 0 : Math.round(calibratedBlockTokens(loadedBlock(loadedText, 'x', 0), tokenizer, calibration));
  return {
    eagerPlan,
    deferredPlan,
    eagerTools: serializeTools(eagerPlan.tools),
    deferredTools: serializeTools(deferredPlan.tools),
    eagerBudget,
    deferredBudget,
    eagerTokens: eagerBudget.tokens,
    searchToolTokens: deferredBudget.tokens,
    loaded,
    loadedText,
    loadedTokens,
    deferredTokens: deferredBudget.tokens + loadedTokens,
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
