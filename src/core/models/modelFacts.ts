/**
 * What the pipeline knows about each Claude model: window, output limit, default output
 * reserve, minimum cacheable prompt length, prices and tokenizer family, looked up in the
 * maintained table (modelTable.ts, with its sources). A model the table does not know gets
 * conservative limits and NO prices: its cost is unknown, never guessed.
 */
import {
  MODEL_TABLE,
  TOOL_SEARCH_FAMILIES,
  type ModelPrices,
  type ModelRow,
  type RateCard,
  type TokenizerFamily,
} from './modelTable';

export type { ModelPrices, RateCard, TokenizerFamily } from './modelTable';

/** Facts about one model. */
export interface ModelInfo {
  readonly id: string;
  readonly contextWindow: number;
  /** Largest `max_tokens` the model accepts. */
  readonly maxOutput: number;
  /** Default max_tokens the pipeline reserves for the answer (at most 32k, at most the output limit). */
  readonly outputReserve: number;
  readonly minCacheableTokens: number;
  /** Undefined when the model is unknown: its cost cannot be computed. */
  readonly prices: ModelPrices | undefined;
  readonly tokenizer: TokenizerFamily;
  /** Whether the model takes the API's tool search tool (modelTable.ts `TOOL_SEARCH_FAMILIES`); false when unknown. */
  readonly toolSearch: boolean;
}

/** The answer reserve the pipeline takes by default, whatever the model's output limit above it. */
export const DEFAULT_OUTPUT_RESERVE = 32_000;

/** Limits assumed for a model id the table does not know (e.g. a proxy's alias); no prices. */
export const UNKNOWN_MODEL: Omit<ModelInfo, 'id'> = {
  contextWindow: 200_000,
  maxOutput: 16_000,
  outputReserve: 16_000,
  minCacheableTokens: 4096,
  prices: undefined,
  tokenizer: 'claude',
  toolSearch: false,
};

function infoOf(row: ModelRow): ModelInfo {
  return {
    id: row.id,
    contextWindow: row.contextWindow,
    maxOutput: row.maxOutput,
    outputReserve: Math.min(DEFAULT_OUTPUT_RESERVE, row.maxOutput),
    minCacheableTokens: row.minCacheableTokens,
    prices: row.prices,
    tokenizer: row.tokenizer,
    toolSearch: TOOL_SEARCH_FAMILIES.has(row.id),
  };
}

/**
 * Looks a model up by id. Dated ids (`claude-sonnet-4-5-20250929`), `-latest` aliases, Vertex
 * `@date` ids and the `[1m]` suffix match their family; the longest matching family wins
 * (`claude-opus-4-5` before `claude-opus-4`). Never throws.
 */
export function modelInfo(id: string): ModelInfo & { readonly known: boolean } {
  const normalized = id
    .trim()
    .toLowerCase()
    .replace(/\[1m\]$/, '');
  let best: ModelRow | undefined;
  for (const m of MODEL_TABLE) {
    if (normalized === m.id || normalized.startsWith(`${m.id}-`) || normalized.startsWith(`${m.id}@`)) {
      if (!best || m.id.length > best.id.length) best = m;
    }
  }
  return best ? { ...infoOf(best), known: true } : { id, ...UNKNOWN_MODEL, known: false };
}

/**
 * The rate card that applies to one request of `prices` whose prompt (input + cache reads +
 * cache writes) is `promptTokens`: the long-prompt card above its threshold, else the base.
 */
export function rateCardFor(prices: ModelPrices, promptTokens: number): RateCard {
  return prices.longPrompt && promptTokens > prices.longPrompt.promptTokens ? prices.longPrompt : prices;
}

/**
 * Prices used only to WEIGH choices (is a compaction worth its summariser call?), never shown
 * as a cost: the model's own when known, else a mid-range assumption ($3 / $15, standard
 * cache multipliers) so that the weighing still has a scale.
 */
export function planningPrices(model: string): RateCard {
  return modelInfo(model).prices ?? { input: 3, output: 15, cacheWrite5m: 3.75, cacheWrite1h: 6, cacheRead: 0.3 };
}
