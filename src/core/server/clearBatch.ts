/**
 * Batched server clears. The API's `clear_tool_uses` clears every tool result but the newest
 * `keep` once the prompt passes its trigger, on every request: with a fixed `keep`, each new
 * tool result pushes one more old result out, so the first cleared result moves on every
 * request and the prompt cache is written again from there each time (the kept results and
 * everything after them). Sent with a `keep` that grows between clears instead, the cleared
 * set stays the same for a whole batch of tool uses — the edited prompt is the same prefix,
 * read from the cache — and moves forward by a batch at once.
 *
 * A batch of B tool uses pays back when what it stops reading over the next B requests
 * (B results × B requests × the read price) is at least what moving it writes again (the kept
 * results and the batch, K + B results, × the rewrite price over a read): B² × read ≥
 * (K + B) × (write − read), results taken as alike in size (their size cancels). Source of the
 * prices: the model's rate card (modelFacts.ts; docs: prompt caching, pricing). Pure.
 */
import type { RateCard } from '../models/modelFacts';

/** The smallest batch of tool uses a clear should move by for it to pay back (see the module comment). */
export function clearBatchSize(keep: number, prices: RateCard): number {
  const read = prices.cacheRead;
  const rewrite = prices.cacheWrite5m - prices.cacheRead;
  if (!(read > 0) || !(rewrite > 0)) return 1;
  let b = 1;
  while (b * b * read < (keep + b) * rewrite && b < 1000) b++;
  return b;
}

/**
 * The `keep` to send when the prompt holds `toolResults` tool results: the newest `keep` at
 * least, and the cleared ones a whole number of batches from the oldest, so the cleared set
 * moves only when a batch is complete. `toolResults` at most `keep`: `keep`.
 */
export function batchedKeep(toolResults: number, keep: number, batch: number): number {
  if (toolResults <= keep || batch <= 1) return keep;
  const cleared = Math.floor((toolResults - keep) / batch) * batch;
  return toolResults - cleared;
}
