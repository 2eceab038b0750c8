import type { Usage } from '../llm/llmClient';
import type { CompactionRecord } from './types';
import { reportedPromptTokens } from '../tokens/promptTokens';

/** Health figures of one session's context handling. */
export interface ContextHealth {
  readonly compactions: number;
  readonly tokensSaved: number;
  readonly summariserCostUsd: number;
  readonly promptTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  /** cache reads / prompt tokens, 0..1. */
  readonly cacheHitRate: number;
  /** Requests in a row that read nothing from the cache although a stable prefix should have hit. */
  readonly missStreak: number;
}

/** No compactions, no requests. */
export const EMPTY_HEALTH: ContextHealth = {
  compactions: 0,
  tokensSaved: 0,
  summariserCostUsd: 0,
  promptTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  cacheHitRate: 0,
  missStreak: 0,
};

/** Requests in a row with nothing read (while a hit was expected) before the user is warned. */
export const CACHE_MISS_WARNING_STREAK = 3;

/**
 * What the compaction summariser cost over `records` (every one made, restored or not: the
 * money was spent); undefined when a record's cost is unknown (`costUnknown`: a model without a
 * known price), never a guess. Compactions without an LLM cost 0; a server compaction is billed
 * in its request's usage instead.
 */
export function summariesCost(
  records: readonly Pick<CompactionRecord, 'costUsd' | 'costUnknown'>[],
): number | undefined {
  if (records.some((r) => r.costUnknown)) return undefined;
  return records.reduce((n, r) => n + (Number.isFinite(r.costUsd) && r.costUsd > 0 ? r.costUsd : 0), 0);
}

/** Adds a compaction to the figures. */
export function withCompaction(h: ContextHealth, r: CompactionRecord): ContextHealth {
  return {
    ...h,
    compactions: h.compactions + 1,
    tokensSaved: h.tokensSaved + Math.max(0, r.tokensBefore - r.tokensAfter),
    summariserCostUsd: h.summariserCostUsd + r.costUsd,
  };
}

/**
 * Adds a request's usage. `hitExpected`: the previous request was within the cache TTL and
 * the prompt shares a cacheable prefix with it, so something should have been read.
 */
export function withRequest(h: ContextHealth, usage: Usage, hitExpected: boolean): ContextHealth {
  const prompt = reportedPromptTokens(usage);
  const promptTokens = h.promptTokens + prompt;
  const cacheReadTokens = h.cacheReadTokens + usage.cache_read_input_tokens;
  const missStreak = usage.cache_read_input_tokens === 0 && hitExpected ? h.missStreak + 1 : 0;
  return {
    ...h,
    promptTokens,
    cacheReadTokens,
    cacheWriteTokens: h.cacheWriteTokens + usage.cache_creation_input_tokens,
    cacheHitRate: promptTokens ? cacheReadTokens / promptTokens : 0,
    missStreak,
  };
}
