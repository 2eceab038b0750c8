/**
 * Chooses each cache breakpoint's lifetime. Anthropic's cache keeps an entry 5 minutes, or
 * 1 hour for `cache_control: {type: "ephemeral", ttl: "1h"}`; a read refreshes it. A 1-hour
 * write costs 2× the input price instead of 1.25×, a read 0.1× either way; the tokens between
 * the longest hit and the last 1-hour breakpoint are billed as 1-hour writes, the rest up to
 * the last breakpoint as 5-minute writes; and 1-hour breakpoints must come before 5-minute
 * ones (tools → system → messages), or the request is refused.
 * Source: https://platform.claude.com/docs/en/build-with-claude/prompt-caching — "1-hour cache
 * duration", "Mixing different TTLs" and the pricing table; the SDK's `CacheControlEphemeral.ttl`
 * ('5m' | '1h') and `Usage.cache_creation.ephemeral_{5m,1h}_input_tokens`.
 *
 * Under the `auto` lifetime each choice is priced with what this session has shown
 * (replyGaps.ts: how often a turn ends, how often the reply comes after 5 minutes but within
 * the hour, or after more than an hour; the compactor's measured full-miss rate):
 * - The stable prefix (tools, system prompt, instructions) is given its lifetime when it is
 *   written — a live entry keeps the lifetime it was written with (the docs do not say a later
 *   mark lengthens it), so while it is cached its mark says that lifetime. When written, it is
 *   kept for an hour when the pauses over 5 minutes it is expected to bridge in the rest of the
 *   session, before it is lost anyway (to a full miss, or a pause of over an hour), each save
 *   what rewriting it costs (1.25× − 0.1×) by more than the one dearer write (0.75× more). The
 *   rest of the session is taken to be as long again as it has run so far (the Lindy estimate
 *   of a length nothing else is known about): a session's first request writes it for 5
 *   minutes, and a session whose replies come back late writes it for an hour when its first
 *   long pause has it written again — at most one rewrite more than knowing from the start,
 *   and no surcharge at all on a session that never pauses.
 * - The end of the prompt is kept for an hour when the chance that this request ends the turn
 *   (the session's rate, but at most 1/n for the n-th request of a turn: replyGaps.ts
 *   `turnEndChance`) × the chance of a reply after 5 minutes × what that reply would otherwise write again is
 *   more than the surcharge on what this request writes (its growth; the whole prompt when the
 *   cache misses anyway). What the reply would write again is what lies after the newest live
 *   1-hour checkpoint (breakpointMemory.ts: a tail written for an hour stays cached after the
 *   5-minute entries behind it expire, and is a breakpoint again after a pause), so inside a
 *   long tool loop a tail is kept for an hour about once every so many thousand tokens of
 *   growth — a checkpoint — and a pause anywhere in the turn rewrites only what came since.
 * - Nothing is kept for an hour before the session has shown a reply after 5 minutes, whatever
 *   the priors say: a session that never pauses pays no surcharge at all (the tails bought on
 *   the priors alone were all the default paid over 5-minute breakpoints on the replayed
 *   sessions that never paused), and one that does pays for its first long pause one rewrite
 *   more than knowing from the start; from then on its own rate decides.
 * Pure.
 */
import type { CacheLifetime, CacheTtl } from '../conversation/conversationModel';
import type { RateCard } from '../models/modelFacts';
import type { CacheAnchor } from './cacheAnchors';
import { turnEndChance, type GapStats } from './replyGaps';

/** A breakpoint with its lifetime and why. */
export interface TimedAnchor extends CacheAnchor {
  readonly ttl: CacheTtl;
  readonly ttlReason: string;
}

/** What the choice needs besides the anchors (in prefix order, as planCacheAnchors returns them). */
export interface TtlChoiceInput {
  readonly lifetime: CacheLifetime;
  readonly gaps: GapStats;
  /** Prices per million tokens of the model (planningPrices). */
  readonly prices: RateCard;
  /** The prefix this request should read from the cache (the previous request's, while it lives), in tokens. */
  readonly readTokens: number;
  /** The prefix the newest 1-hour checkpoint keeps cached through a pause (breakpointMemory.ts); 0: none. */
  readonly checkpointTokens?: number;
  /**
   * The session's share of requests that should have read the cache and found nothing (a
   * full miss: everything is written again, at the tail's lifetime); 0 when not measured.
   */
  readonly missRate: number;
  /** Which request of its turn this one is (1: it carries the user's message); absent: 1 (see turnEndChance). */
  readonly turnDepth?: number;
  /** The lifetime of the stable prefix's live cache entry (breakpointMemory.ts); absent: this request writes it. */
  readonly stableCached?: CacheTtl;
}

/** Why nothing is kept for an hour before the session's first long pause (see the module comment). */
const NOT_PAUSED = 'no reply in this session has come after 5 minutes yet (from the first, its own rate decides)';

/** A lifetime decision in words. */
interface Verdict {
  readonly pays: boolean;
  readonly reason: string;
}

/** Gives each anchor its lifetime (see the module comment); the order rule always holds in the result. */
export function chooseTtls(anchors: readonly CacheAnchor[], input: TtlChoiceInput): TimedAnchor[] {
  if (input.lifetime !== 'auto') {
    const ttl = input.lifetime;
    return anchors.map((a) => ({ ...a, ttl, ttlReason: `the cacheTtl setting is ${ttl}` }));
  }
  const stableTokens = Math.max(0, ...anchors.filter((a) => a.target.at !== 'message').map((a) => a.prefixTokens));
  const tail = anchors.at(-1);
  const stableVerdict = stablePays(input);
  // What a long pause leaves in the cache anyway: the stable prefix when it is kept for the hour, the last checkpoint.
  const survives = Math.max(stableVerdict.pays ? stableTokens : 0, input.checkpointTokens ?? 0);
  const tailVerdict = tail?.target.at === 'message' ? tailPays(tail, survives, input) : undefined;
  return anchors.map((a, i): TimedAnchor => {
    if (i === anchors.length - 1 && tailVerdict)
      return { ...a, ttl: tailVerdict.pays ? '1h' : '5m', ttlReason: tailVerdict.reason };
    if (tailVerdict?.pays)
      return {
        ...a,
        ttl: '1h',
        ttlReason: 'before a 1-hour breakpoint, so 1 hour too (the API wants longer lifetimes first)',
      };
    if (a.target.at !== 'message')
      return { ...a, ttl: stableVerdict.pays ? '1h' : '5m', ttlReason: stableVerdict.reason };
    return { ...a, ttl: '5m', ttlReason: 'read back within minutes by the next request of the turn' };
  });
}

/** The input price multiples of a 5-minute write, a 1-hour write's surcharge over it, and what a rewrite costs over a read. */
function multiples(p: RateCard): { readonly surcharge: number; readonly rewrite: number } {
  return { surcharge: (p.cacheWrite1h - p.cacheWrite5m) / p.input, rewrite: (p.cacheWrite5m - p.cacheRead) / p.input };
}

/**
 * Whether an hour pays for the stable prefix: kept as it is while cached; when written, the long
 * pauses it bridges in the rest of the session before it is lost anyway × the rewrite each
 * saves, against one dearer write (see the module comment).
 */
function stablePays(input: TtlChoiceInput): Verdict {
  if (input.stableCached)
    return {
      pays: input.stableCached === '1h',
      reason: `the stable prefix is cached for ${input.stableCached === '1h' ? 'an hour' : '5 minutes'} already (a live entry keeps the lifetime it was written with)`,
    };
  if (input.gaps.longReplies === 0)
    return {
      pays: false,
      reason: `the stable prefix is kept for 5 minutes: ${NOT_PAUSED}`,
    };
  const { surcharge, rewrite } = multiples(input.prices);
  const g = input.gaps;
  const bridged = g.turnEnd * g.longReply;
  const lost = Math.min(1, Math.max(1e-6, clamp01(input.missRate) + g.turnEnd * g.overHour));
  // Each request ends in a bridged pause with chance `bridged` and loses the entry with chance `lost`,
  // over a rest of the session as long as what has run.
  const pauses = (bridged * (1 - (1 - lost) ** g.requests)) / lost;
  const figures = `~${pauses.toFixed(1)} pauses over 5 minutes expected in the next ${g.requests} requests before it is lost anyway, each saving ${rewrite.toFixed(2)}× its size against ${surcharge.toFixed(2)}× once`;
  return pauses * rewrite > surcharge
    ? { pays: true, reason: `the stable prefix is kept for an hour: ${figures}` }
    : { pays: false, reason: `the stable prefix is kept for 5 minutes: ${figures}` };
}

/** Whether a 1-hour tail is expected to pay, with the figures in words. */
function tailPays(tail: CacheAnchor, survives: number, input: TtlChoiceInput): Verdict {
  if (input.gaps.longReplies === 0) return { pays: false, reason: `kept for 5 minutes: ${NOT_PAUSED}` };
  const { surcharge, rewrite } = multiples(input.prices);
  const miss = clamp01(input.missRate);
  // What this request writes at the tail: its growth, or the whole prompt after a full miss.
  const written = (1 - miss) * Math.max(0, tail.prefixTokens - input.readTokens) + miss * tail.prefixTokens;
  const cost = surcharge * written;
  // The saving needs the turn to end here, a reply after 5 minutes, and that reply's request not to miss anyway.
  const endsHere = turnEndChance(input.gaps.turnEnd, input.turnDepth ?? 1);
  const chance = endsHere * input.gaps.longReply * (1 - miss);
  const saving = chance * rewrite * Math.max(0, tail.prefixTokens - survives);
  const pct = (x: number) => `${Math.round(x * 100)} %`;
  const figures = `a ${pct(endsHere)} chance the turn ends here × ${pct(input.gaps.longReply)} that the reply comes after 5 min saves ~${fmt(saving)} tokens' worth; an hour costs ~${fmt(cost)} more`;
  return saving > cost
    ? { pays: true, reason: `kept for an hour: ${figures}` }
    : { pays: false, reason: `kept for 5 minutes: ${figures}` };
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
