/**
 * The maintained table of Claude models: window, output limit, minimum cacheable prompt,
 * prices and tokenizer family. Data only; `modelFacts.ts` looks it up. The Models API
 * (`GET /v1/models/{id}`: `max_input_tokens`, `max_tokens`, `capabilities`) overrides the
 * window and output limit when the host can reach it (see `modelLimits.ts`).
 *
 * Sources (Anthropic documentation, read 2026-11 through the docs index):
 * - Pricing page https://platform.claude.com/docs/en/about-claude/pricing ("Model pricing": base
 *   input, 5m cache writes, 1h cache writes, cache hits, output for Fable 5.1 / Mythos 5.1,
 *   Fable 5 / Mythos 5, Opus 5, Opus 4.8, 4.7, 4.6, 4.5, 4.1, 4, Sonnet 4.6, 4.5, 4, 3.7,
 *   Haiku 4.5, 3.5, 3 and Opus 3).
 * - Model overview pages https://platform.claude.com/docs/en/models/<model>/overview, e.g.
 *   opus-5-5 ($4/$20, 5m $5, 1h $8, read $0.20, 1M window, 128K output), sonnet-5-5 and sonnet-5
 *   ($2/$10, 5m $2.50, 1h $4, read $0.20, 1M, 128K), opus-5, opus-4-8 and opus-4-6 (1M, 128K),
 *   opus-4-5 (200K, 64K), haiku-5-5 (1M, 128K, from $0.10/$0.50: prompts over 100,000 tokens
 *   are billed $0.50/$2.50 for the whole request), and the lineup tables on those pages.
 * - Token counting https://platform.claude.com/docs/en/build-with-claude/token-counting: "Claude
 *   Opus 4.7 and later Opus models, Claude Fable 5, Claude Mythos 5, Claude Mythos Preview, and
 *   Claude Sonnet 5 use a newer tokenizer. The same input text produces approximately 30 percent
 *   more tokens than on earlier models"; the Haiku 5.5 overview says the same of Haiku 5.5.
 * - Minimum cacheable prompt lengths of the older models: the prompt caching page
 *   https://platform.claude.com/docs/en/build-with-claude/prompt-caching (4096 Opus 4.6 / 4.5 and
 *   Haiku 4.5; 1024 Sonnet 4.6 / 4.5 / 4 / 3.7, Opus 4.1 / 4; 2048 Haiku 3.5 / 3).
 *
 * Where sources disagree or are silent (said again at the row):
 * - Sonnet 4.6 / Opus 4.6 windows: their overview pages now list 1M; earlier versions of the
 *   docs gave 200K with 1M behind the `context-1m-2025-08-07` beta. The table follows the
 *   current pages; the Models API's `max_input_tokens` decides when reachable.
 * - Opus 4.7's window and output (1M / 128K) come from the AWS Bedrock model card, not an
 *   Anthropic page found in the index.
 * - Minimum cacheable lengths of the 2026 models (Opus 4.7+, Sonnet 5.x, Fable, Mythos,
 *   Haiku 5.5) were not found on an Anthropic page; third-party posts quote 512–2048. The table
 *   assumes 4096 (a breakpoint below the real floor only wastes a breakpoint slot, never money).
 * - Sonnet 5.5's cache read: its overview says $0.20; release notes of third-party price
 *   trackers report a cut to $0.10 from 2026-10-07 that no Anthropic page in the index confirms.
 *   The table keeps $0.20 (the documented figure).
 * - Haiku 5.5's 1h write and cache read ($0.20 / $0.01, long prompts $1.00 / $0.05) are the
 *   standard multipliers (2× and 0.1× input) of its documented input price; the overview's
 *   excerpt confirmed only the 5m write ($0.125).
 * - Long-context pricing: the current pages bill the 1M-window models at flat rates (no premium
 *   above 200K); only Haiku 5.5 has a prompt-length tier. Sonnet 4 / 4.5's historical 1M beta
 *   premium is not modelled (those rows keep the 200K window).
 */

/** Which tokenizer a model counts with: the one of Claude ≤ 4.6, or the newer one (~1.3× the tokens). */
export type TokenizerFamily = 'claude' | 'claude-2026';

/** Prices in US dollars per million tokens. */
export interface RateCard {
  readonly input: number;
  readonly output: number;
  readonly cacheWrite5m: number;
  readonly cacheWrite1h: number;
  readonly cacheRead: number;
}

/** A model's prices: one card, or a second card for requests whose prompt exceeds a size. */
export interface ModelPrices extends RateCard {
  /** Whole-request rates when the prompt (input + cache reads + writes) exceeds `promptTokens`. */
  readonly longPrompt?: RateCard & { readonly promptTokens: number };
}

/** One row of the table. */
export interface ModelRow {
  readonly id: string;
  readonly contextWindow: number;
  /** Largest `max_tokens` the model accepts. */
  readonly maxOutput: number;
  readonly minCacheableTokens: number;
  readonly prices: ModelPrices;
  readonly tokenizer: TokenizerFamily;
}

/** Standard cache multipliers of the pricing page: 5m write 1.25×, 1h write 2×, read 0.1× of input. */
function standard(input: number, output: number): RateCard {
  return { input, output, cacheWrite5m: input * 1.25, cacheWrite1h: input * 2, cacheRead: input * 0.1 };
}

const K = 1_000;
const M = 1_000_000;
const NEW: TokenizerFamily = 'claude-2026';
const OLD: TokenizerFamily = 'claude';
/** Assumed where no Anthropic page gives the floor (see the module comment). */
const UNDOCUMENTED_MIN_CACHE = 4096;

/** Every current and legacy model the docs list, newest families first. */
export const MODEL_TABLE: readonly ModelRow[] = [
  // Fable / Mythos 5.2 (released 2026-11-09): 1M window, 128K output and always-on adaptive
  // thinking per https://platform.claude.com/docs/en/models/fable-5-2/whats-new-fable-5-2. The
  // pricing page in the index predates it: $8 / $40, 5m $10, 1h $16, hits $0.20 are the list
  // prices as resellers quote them (docs.laozhang.ai "Claude Fable 5.2 API", rightsize v0.10.2);
  // Mythos 5.2 is assumed priced as Fable 5.2, as Mythos 5.1 is as Fable 5.1.
  {
    id: 'claude-fable-5-2',
    contextWindow: M,
    maxOutput: 128 * K,
    minCacheableTokens: UNDOCUMENTED_MIN_CACHE,
    prices: { ...standard(8, 40), cacheRead: 0.2 },
    tokenizer: NEW,
  },
  {
    id: 'claude-mythos-5-2',
    contextWindow: M,
    maxOutput: 128 * K,
    minCacheableTokens: UNDOCUMENTED_MIN_CACHE,
    prices: { ...standard(8, 40), cacheRead: 0.2 },
    tokenizer: NEW,
  },
  // Fable / Mythos 5.1: cache hits $0.25 (0.025×), per the pricing page.
  {
    id: 'claude-fable-5-1',
    contextWindow: M,
    maxOutput: 128 * K,
    minCacheableTokens: UNDOCUMENTED_MIN_CACHE,
    prices: { ...standard(10, 50), cacheRead: 0.25 },
    tokenizer: NEW,
  },
  {
    id: 'claude-mythos-5-1',
    contextWindow: M,
    maxOutput: 128 * K,
    minCacheableTokens: UNDOCUMENTED_MIN_CACHE,
    prices: { ...standard(10, 50), cacheRead: 0.25 },
    tokenizer: NEW,
  },
  {
    id: 'claude-fable-5',
    contextWindow: M,
    maxOutput: 128 * K,
    minCacheableTokens: UNDOCUMENTED_MIN_CACHE,
    prices: standard(10, 50),
    tokenizer: NEW,
  },
  {
    id: 'claude-mythos-5',
    contextWindow: M,
    maxOutput: 128 * K,
    minCacheableTokens: UNDOCUMENTED_MIN_CACHE,
    prices: standard(10, 50),
    tokenizer: NEW,
  },
  // Opus 5.5: cache hits $0.20 (0.05×), per its overview.
  {
    id: 'claude-opus-5-5',
    contextWindow: M,
    maxOutput: 128 * K,
    minCacheableTokens: UNDOCUMENTED_MIN_CACHE,
    prices: { ...standard(4, 20), cacheRead: 0.2 },
    tokenizer: NEW,
  },
  {
    id: 'claude-opus-5',
    contextWindow: M,
    maxOutput: 128 * K,
    minCacheableTokens: UNDOCUMENTED_MIN_CACHE,
    prices: standard(5, 25),
    tokenizer: NEW,
  },
  {
    id: 'claude-opus-4-8',
    contextWindow: M,
    maxOutput: 128 * K,
    minCacheableTokens: UNDOCUMENTED_MIN_CACHE,
    prices: standard(5, 25),
    tokenizer: NEW,
  },
  // Window / output from the AWS Bedrock model card (see the module comment).
  {
    id: 'claude-opus-4-7',
    contextWindow: M,
    maxOutput: 128 * K,
    minCacheableTokens: UNDOCUMENTED_MIN_CACHE,
    prices: standard(5, 25),
    tokenizer: NEW,
  },
  // 1M per the current overview (earlier docs: 200K, 1M behind a beta header).
  {
    id: 'claude-opus-4-6',
    contextWindow: M,
    maxOutput: 128 * K,
    minCacheableTokens: 4096,
    prices: standard(5, 25),
    tokenizer: OLD,
  },
  {
    id: 'claude-opus-4-5',
    contextWindow: 200 * K,
    maxOutput: 64 * K,
    minCacheableTokens: 4096,
    prices: standard(5, 25),
    tokenizer: OLD,
  },
  {
    id: 'claude-opus-4-1',
    contextWindow: 200 * K,
    maxOutput: 32 * K,
    minCacheableTokens: 1024,
    prices: standard(15, 75),
    tokenizer: OLD,
  },
  {
    id: 'claude-opus-4',
    contextWindow: 200 * K,
    maxOutput: 32 * K,
    minCacheableTokens: 1024,
    prices: standard(15, 75),
    tokenizer: OLD,
  },
  {
    id: 'claude-3-opus',
    contextWindow: 200 * K,
    maxOutput: 4096,
    minCacheableTokens: 1024,
    prices: standard(15, 75),
    tokenizer: OLD,
  },
  {
    id: 'claude-sonnet-5-5',
    contextWindow: M,
    maxOutput: 128 * K,
    minCacheableTokens: UNDOCUMENTED_MIN_CACHE,
    prices: { ...standard(2, 10), cacheRead: 0.2 },
    tokenizer: NEW,
  },
  {
    id: 'claude-sonnet-5',
    contextWindow: M,
    maxOutput: 128 * K,
    minCacheableTokens: UNDOCUMENTED_MIN_CACHE,
    prices: standard(2, 10),
    tokenizer: NEW,
  },
  // 1M per the current overview (earlier docs: 200K, 1M behind a beta header).
  {
    id: 'claude-sonnet-4-6',
    contextWindow: M,
    maxOutput: 128 * K,
    minCacheableTokens: 1024,
    prices: standard(3, 15),
    tokenizer: OLD,
  },
  {
    id: 'claude-sonnet-4-5',
    contextWindow: 200 * K,
    maxOutput: 64 * K,
    minCacheableTokens: 1024,
    prices: standard(3, 15),
    tokenizer: OLD,
  },
  {
    id: 'claude-sonnet-4',
    contextWindow: 200 * K,
    maxOutput: 64 * K,
    minCacheableTokens: 1024,
    prices: standard(3, 15),
    tokenizer: OLD,
  },
  {
    id: 'claude-3-7-sonnet',
    contextWindow: 200 * K,
    maxOutput: 64 * K,
    minCacheableTokens: 1024,
    prices: standard(3, 15),
    tokenizer: OLD,
  },
  // Haiku 5.5: from $0.10 / $0.50; prompts over 100,000 tokens are billed $0.50 / $2.50 (whole request).
  {
    id: 'claude-haiku-5-5',
    contextWindow: M,
    maxOutput: 128 * K,
    minCacheableTokens: UNDOCUMENTED_MIN_CACHE,
    prices: { ...standard(0.1, 0.5), longPrompt: { ...standard(0.5, 2.5), promptTokens: 100_000 } },
    tokenizer: NEW,
  },
  {
    id: 'claude-haiku-4-5',
    contextWindow: 200 * K,
    maxOutput: 64 * K,
    minCacheableTokens: 4096,
    prices: standard(1, 5),
    tokenizer: OLD,
  },
  // Haiku 3.5: 5m $1, 1h $1.6, hits $0.08 (standard multipliers of $0.80).
  {
    id: 'claude-3-5-haiku',
    contextWindow: 200 * K,
    maxOutput: 8192,
    minCacheableTokens: 2048,
    prices: standard(0.8, 4),
    tokenizer: OLD,
  },
  // Haiku 3: 5m $0.30, 1h $0.50, hits $0.03 per the pricing page (not the standard multipliers).
  {
    id: 'claude-3-haiku',
    contextWindow: 200 * K,
    maxOutput: 4096,
    minCacheableTokens: 2048,
    prices: { input: 0.25, output: 1.25, cacheWrite5m: 0.3, cacheWrite1h: 0.5, cacheRead: 0.03 },
    tokenizer: OLD,
  },
];

/**
 * The model families that take the API's tool search tool (`defer_loading`, server tool search):
 * the "supportedModels" of https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool
 * (claude-fable-5-2 … claude-sonnet-4-5-20250929, and claude-haiku-4-5-20251001; not Opus 4.1 /
 * 4, Sonnet 4, the 3.x models). The feature is stable there (no beta header; SDK 1.12 has its
 * types in the non-beta Messages API); an earlier version of the page, in public beta behind
 * `advanced-tool-use-2025-11-20`, listed only Opus 4.5 and Sonnet 4.5.
 */
export const TOOL_SEARCH_FAMILIES: ReadonlySet<string> = new Set([
  'claude-fable-5-2',
  'claude-mythos-5-2',
  'claude-fable-5-1',
  'claude-mythos-5-1',
  'claude-fable-5',
  'claude-mythos-5',
  'claude-opus-5-5',
  'claude-opus-5',
  'claude-sonnet-5-5',
  'claude-sonnet-5',
  'claude-haiku-5-5',
  'claude-haiku-4-5',
  'claude-opus-4-8',
  'claude-opus-4-7',
  'claude-opus-4-6',
  'claude-sonnet-4-6',
  'claude-opus-4-5',
  'claude-sonnet-4-5',
]);
