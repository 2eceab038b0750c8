/**
 * Prices a replay's requests, each by its own model (src/core/models.ts, src/core/llm/cost.ts).
 * A model the table does not know is never priced as another: its requests are counted as
 * unpriced, by model, so the bench can say the cost is unknown instead of guessing.
 */
import type { Usage } from '../src/core/llm/llmClient';
import { requestCostUsd } from '../src/core/llm/cost';
import type { CacheTtl } from '../src/core/conversation/conversationModel';

/** The price of one request, or why there is none. */
export type RequestPrice =
  { readonly known: true; readonly usd: number } | { readonly known: false; readonly model: string };

/** Prices one request by `model`; an unknown model (or none) gives `known: false`. */
export function priceRequest(model: string, usage: Usage, ttl: CacheTtl): RequestPrice {
  const usd = model.trim() ? requestCostUsd(model, usage, ttl) : undefined;
  return usd === undefined ? { known: false, model: model.trim() || '(no model)' } : { known: true, usd };
}

/** A running total in dollars plus one request's price; null once either is unknown. */
export function plusPrice(total: number | null, price: RequestPrice): number | null {
  return total === null || !price.known ? null : total + price.usd;
}

/** A running total of priced requests, with the requests that could not be priced, by model. */
export class CostTally {
  /** Dollars of the requests that were priced. */
  usd = 0;
  /** Requests added, priced or not. */
  requests = 0;
  /** Unpriced requests by model id. */
  readonly unknown = new Map<string, number>();

  /** Adds one request, priced by its model; returns its price. */
  add(model: string, usage: Usage, ttl: CacheTtl): RequestPrice {
    const price = priceRequest(model, usage, ttl);
    this.requests++;
    if (price.known) this.usd += price.usd;
    else this.unknown.set(price.model, (this.unknown.get(price.model) ?? 0) + 1);
    return price;
  }

  /** The total in dollars, or `null` when any request was of a model the price table does not know. */
  total(): number | null {
    return this.unknown.size === 0 ? this.usd : null;
  }
}

/** The sum of tallies, `null` when any of them has an unpriced request. */
export function totalOf(...tallies: readonly CostTally[]): number | null {
  let sum = 0;
  for (const t of tallies) {
    const v = t.total();
    if (v === null) return null;
    sum += v;
  }
  return sum;
}

/** Models of the tallies that have no price, with their request counts, e.g. `claude-x-9 (12 requests)`. */
export function unknownModels(...tallies: readonly CostTally[]): string[] {
  const all = new Map<string, number>();
  for (const t of tallies) for (const [m, n] of t.unknown) all.set(m, (all.get(m) ?? 0) + n);
  return [...all].map(([m, n]) => `${m} (${n} request${n === 1 ? '' : 's'})`);
}
