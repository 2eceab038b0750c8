/**
 * What the pipeline knows about each Claude model: window, default output reserve,
 * minimum cacheable prompt length and prices. Unknown models get conservative defaults.
 */

/** Prices in US dollars per million tokens. */
export interface ModelPrices {
  readonly input: number;
  readonly output: number;
  /** Cache write multipliers of the input price are applied by the cost code: 1.25× (5m), 2× (1h); reads 0.1×. */
}

/** Facts about one model. */
export interface ModelInfo {
  readonly id: string;
  readonly contextWindow: number;
  /** Default max_tokens the pipeline reserves for the answer. */
  readonly outputReserve: number;
  readonly minCacheableTokens: number;
  readonly prices: ModelPrices;
}

// Opus 4.6: $5 / $25 per MTok (5m cache write $6.25, 1h $10, cache read $0.50), per Anthropic's
// pricing page https://platform.claude.com/docs/en/about-claude/pricing and the model overview
// https://platform.claude.com/docs/en/models/opus-4-6/overview (checked 2026-11). The overview
// lists a 1M-token window (128K max output); 200k is the window without the long-context option.
const TABLE: readonly ModelInfo[] = [
  { id: 'claude-opus-4-6', contextWindow: 200_000, outputReserve: 32_000, minCacheableTokens: 4096, prices: { input: 5, output: 25 } },
  { id: 'claude-opus-4-5', contextWindow: 200_000, outputReserve: 32_000, minCacheableTokens: 4096, prices: { input: 5, output: 25 } },
  { id: 'claude-opus-4-1', contextWindow: 200_000, outputReserve: 32_000, minCacheableTokens: 1024, prices: { input: 15, output: 75 } },
  { id: 'claude-opus-4', contextWindow: 200_000, outputReserve: 32_000, minCacheableTokens: 1024, prices: { input: 15, output: 75 } },
  { id: 'claude-sonnet-4-6', contextWindow: 200_000, outputReserve: 32_000, minCacheableTokens: 1024, prices: { input: 3, output: 15 } },
  { id: 'claude-sonnet-4-5', contextWindow: 200_000, outputReserve: 32_000, minCacheableTokens: 1024, prices: { input: 3, output: 15 } },
  { id: 'claude-sonnet-4', contextWindow: 200_000, outputReserve: 32_000, minCacheableTokens: 1024, prices: { input: 3, output: 15 } },
  { id: 'claude-3-7-sonnet', contextWindow: 200_000, outputReserve: 32_000, minCacheableTokens: 1024, prices: { input: 3, output: 15 } },
  { id: 'claude-haiku-4-5', contextWindow: 200_000, outputReserve: 32_000, minCacheableTokens: 4096, prices: { input: 1, output: 5 } },
  { id: 'claude-3-5-haiku', contextWindow: 200_000, outputReserve: 8_192, minCacheableTokens: 2048, prices: { input: 0.8, output: 4 } },
];

/** Defaults for a model id the table does not know (e.g. a proxy's alias). */
export const UNKNOWN_MODEL: Omit<ModelInfo, 'id'> = {
  contextWindow: 200_000,
  outputReserve: 16_000,
  minCacheableTokens: 4096,
  prices: { input: 3, output: 15 },
};

/**
 * Looks a model up by id. Dated ids (`claude-sonnet-4-5-20250929`) and `-latest` aliases
 * match their family; the longest matching family wins. Never throws.
 */
export function modelInfo(id: string): ModelInfo & { readonly known: boolean } {
  const normalized = id.trim().toLowerCase();
  let best: ModelInfo | undefined;
  for (const m of TABLE) {
    if (normalized === m.id || normalized.startsWith(`${m.id}-`) || normalized.startsWith(`${m.id}@`)) {
      if (!best || m.id.length > best.id.length) best = m;
    }
  }
  return best ? { ...best, known: true } : { id, ...UNKNOWN_MODEL, known: false };
}
