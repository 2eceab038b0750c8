import type { Usage } from '../agentPorts';
import type { CacheTtl } from '../model';
import { modelInfo } from '../models';
import { billedUsages, type ServerReport } from '../serverReport';

/** Price of one request in US dollars: input, cache writes (1.25× for 5m, 2× for 1h), cache reads (0.1×), output. */
export function requestCostUsd(model: string, usage: Usage, ttl: CacheTtl = '5m'): number {
  const p = modelInfo(model).prices;
  const writeFactor = ttl === '1h' ? 2 : 1.25;
  const dollars =
    usage.input_tokens * p.input +
    usage.cache_creation_input_tokens * p.input * writeFactor +
    usage.cache_read_input_tokens * p.input * 0.1 +
    usage.output_tokens * p.output;
  return dollars / 1_000_000;
}

/** Prompt size the API counted: input + cache reads + cache writes. */
export function promptTokensOf(usage: Usage): number {
  return usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
}

/**
 * Price of a request with what the server reported: its top-level usage plus each server
 * compaction iteration, which the top-level figures leave out (see serverReport.ts).
 */
export function requestCostWithServerUsd(model: string, usage: Usage, report: ServerReport | undefined, ttl: CacheTtl = '5m'): number {
  return billedUsages(usage, report).reduce((n, u) => n + requestCostUsd(model, u, ttl), 0);
}
