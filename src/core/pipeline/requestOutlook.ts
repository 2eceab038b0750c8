/**
 * What a request about to be sent should cost, from the figures the pipeline already has: its
 * estimated tokens (the estimator), the prefix the prompt cache should serve (the cache
 * anchors, and the previous request's breakpoint while its entry lives), what it writes to the
 * cache (up to its last breakpoint, for an hour up to its last 1-hour one) and the price of
 * that mix (cost.ts, output left out: it is
 * not known before the answer). Pure; the request preview leads with it.
 */
import { requestCostUsd } from '../llm/cost';
import { ttlMs, type CacheAnchor, type PreviousBreakpoint } from '../cache/cacheAnchors';
import type { TimedAnchor } from '../cache/ttlChoice';
import type { RequestTokens } from '../tokens/requestTokens';

/** A prefix is expected from the cache when the anchors give it at least this chance. */
export const EXPECTED_HIT = 0.5;

/** The expected tokens and input price of one request. */
export interface RequestOutlook {
  readonly tokens: number;
  /** Tokens expected to be read from the prompt cache. */
  readonly cachedTokens: number;
  /** Tokens this request writes to the cache (after the cached prefix, up to its last breakpoint). */
  readonly cacheWriteTokens: number;
  /** The input's price in US dollars; undefined when the model's prices are unknown. */
  readonly inputCostUsd: number | undefined;
}

/** What `requestOutlook` reads: a prepared request's figures and the session's cache state. */
export interface OutlookInput {
  readonly model: string;
  readonly tokens: RequestTokens;
  readonly anchors: readonly TimedAnchor[];
  /** The ids of the messages sent, in order (the anchors' and `tokens.messages`' indices). */
  readonly messageIds: readonly string[];
  /** The previous request's last breakpoint, when the session sent one. */
  readonly previous?: PreviousBreakpoint;
  readonly now: number;
}

/**
 * The request's outlook. Expected from the cache: the longest prefix among the anchors this
 * request does not write itself (its last message's) that the anchors expect to hit, and the
 * prefix through the previous request's last breakpoint while that entry is within its TTL.
 */
export function requestOutlook(input: OutlookInput): RequestOutlook {
  const { tokens, anchors } = input;
  const lastIndex = input.messageIds.length - 1;
  const writtenNow = (a: CacheAnchor) => a.target.at === 'message' && a.target.messageIndex === lastIndex;
  let cached = Math.max(
    0,
    ...anchors.filter((a) => !writtenNow(a) && a.hitProbability >= EXPECTED_HIT).map((a) => a.prefixTokens),
  );
  const prev = input.previous;
  const at = prev ? input.messageIds.indexOf(prev.messageId) : -1;
  if (prev && at >= 0 && input.now - prev.sentAt < ttlMs(prev.ttl))
    cached = Math.max(cached, tokens.tools + tokens.system + sum(tokens.messages.slice(0, at + 1)));
  const total = Math.round(tokens.total);
  const cachedTokens = Math.min(total, Math.round(cached));
  const lastBreakpoint = Math.max(0, ...anchors.map((a) => a.prefixTokens));
  const cacheWriteTokens = Math.min(total - cachedTokens, Math.max(0, Math.round(lastBreakpoint) - cachedTokens));
  const lastHour = Math.max(0, ...anchors.filter((a) => a.ttl === '1h').map((a) => a.prefixTokens));
  const hourTokens = Math.min(cacheWriteTokens, Math.max(0, Math.round(lastHour) - cachedTokens));
  const inputCostUsd = requestCostUsd(input.model, {
    input_tokens: total - cachedTokens - cacheWriteTokens,
    cache_read_input_tokens: cachedTokens,
    cache_creation_input_tokens: cacheWriteTokens,
    cache_creation: { ephemeral_5m_input_tokens: cacheWriteTokens - hourTokens, ephemeral_1h_input_tokens: hourTokens },
    output_tokens: 0,
  });
  return { tokens: total, cachedTokens, cacheWriteTokens, inputCostUsd };
}

/** `≈ 12,345 tokens · ≈ $0.0040 to send · 11,800 expected from the prompt cache`: the preview's first line. */
export function outlookLine(o: RequestOutlook): string {
  const cost =
    o.inputCostUsd === undefined
      ? 'cost unknown (no prices for this model)'
      : `≈ $${o.inputCostUsd.toFixed(4)} to send`;
  const cache =
    o.cachedTokens > 0 ? `${fmt(o.cachedTokens)} expected from the prompt cache` : 'no prompt cache hit expected';
  return `≈ ${fmt(o.tokens)} tokens · ${cost} · ${cache}`;
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
