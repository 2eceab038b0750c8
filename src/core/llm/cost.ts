import type { Usage } from './llmClient';
import type { CacheTtl } from '../conversation/conversationModel';
import { modelInfo, rateCardFor } from '../models/modelFacts';
import { billedUsages, type ServerReport } from './serverReport';
import { reportedPromptTokens } from '../tokens/promptTokens';

/**
 * Price of one request in US dollars — input, cache writes (each lifetime at its write price
 * when the usage splits them, `usage.cache_creation`; else all at `ttl`'s), cache reads and
 * output, at the rate card its prompt size selects — or `undefined` when the model's prices
 * are unknown (a model the table does not know). Callers show an unknown cost as unknown
 * ("—"), never as a guess.
 */
export function requestCostUsd(model: string, usage: Usage, ttl: CacheTtl = '5m'): number | undefined {
  const prices = modelInfo(model).prices;
  if (!prices) return undefined;
  const p = rateCardFor(prices, reportedPromptTokens(usage));
  const split = usage.cache_creation;
  const hour = split ? Math.min(split.ephemeral_1h_input_tokens, usage.cache_creation_input_tokens) : 0;
  const five = split ? Math.min(split.ephemeral_5m_input_tokens, usage.cache_creation_input_tokens - hour) : 0;
  // Writes the split does not account for (none, or a server that reports only the total) at `ttl`'s price.
  const rest = usage.cache_creation_input_tokens - hour - five;
  const dollars =
    usage.input_tokens * p.input +
    hour * p.cacheWrite1h +
    five * p.cacheWrite5m +
    rest * (ttl === '1h' ? p.cacheWrite1h : p.cacheWrite5m) +
    usage.cache_read_input_tokens * p.cacheRead +
    usage.output_tokens * p.output;
  return dollars / 1_000_000;
}

/** Sum of costs, or `undefined` as soon as one of them is unknown (a total with a hole in it is not a total). */
export function addCosts(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined ? undefined : a + b;
}

/** A cost for people: `$0.0123`, or `—` when it is unknown. */
export function formatUsd(usd: number | null | undefined): string {
  return usd === undefined || usd === null ? '—' : `$${usd.toFixed(4)}`;
}

/**
 * Price of a request with what the server reported: its top-level usage plus each server
 * compaction iteration, which the top-level figures leave out (see serverReport.ts);
 * `undefined` when the model's prices are unknown.
 */
export function requestCostWithServerUsd(
  model: string,
  usage: Usage,
  report: ServerReport | undefined,
  ttl: CacheTtl = '5m',
): number | undefined {
  return billedUsages(usage, report).reduce<number | undefined>(
    (n, u) => addCosts(n, requestCostUsd(model, u, ttl)),
    0,
  );
}
