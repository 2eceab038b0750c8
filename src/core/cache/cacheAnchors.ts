import type { CacheTtl } from '../conversation/conversationModel';

/** The API accepts at most this many cache_control breakpoints per request. */
export const MAX_BREAKPOINTS = 4;
/** How many blocks before a breakpoint the API checks for an earlier cache entry. */
export const CACHE_LOOKBACK_BLOCKS = 20;

/** Where a prompt-cache breakpoint goes. */
export type BreakpointTarget =
  { readonly at: 'tools' } | { readonly at: 'system' } | { readonly at: 'message'; readonly messageIndex: number };

/** Time-to-live of a cache entry, in milliseconds. */
export function ttlMs(ttl: CacheTtl): number {
  return ttl === '1h' ? 3_600_000 : 300_000;
}

/**
 * The newest message breakpoint written for an hour (a checkpoint): what a pause of more than
 * 5 minutes leaves cached of the conversation when the later, 5-minute breakpoints expire.
 */
export interface HourCheckpoint {
  readonly messageId: string;
  /** Its message's index, and the first message's id, when it was written (else the prefix changed). */
  readonly index: number;
  readonly firstId: string;
  readonly sentAt: number;
  readonly prefixTokens: number;
}

/** Where the previous request placed its last message breakpoint, when, for how long, and over how many tokens. */
export interface PreviousBreakpoint {
  readonly messageId: string;
  readonly sentAt: number;
  /** The lifetime it was written with. */
  readonly ttl: CacheTtl;
  /** Tokens of the prefix it cached. */
  readonly prefixTokens: number;
  /** The newest 1-hour checkpoint so far, while it lives. */
  readonly checkpoint?: HourCheckpoint;
  /** The stable prefix (tools and system) it left cached: its tokens and the lifetime its entry was written with. */
  readonly stable?: { readonly tokens: number; readonly ttl: CacheTtl };
  /** The newest settled-prefix breakpoint (settledPrefix.ts), while it lives: what a compaction's request reads. */
  readonly settled?: SettledMark;
}

/**
 * A breakpoint at the end of the settled prefix (settledPrefix.ts), as the last request that
 * placed it left it: read back by every request, it lives as long as they keep coming.
 */
export interface SettledMark extends HourCheckpoint {
  /** The lifetime its entry was written with. */
  readonly ttl: CacheTtl;
}

/**
 * Whether a prefix recorded at `recorded` tokens is, at `now` tokens, still the same prefix: a
 * compaction that kept the message ids (a mask, a snip) changes its size; the estimate itself
 * moves by well under 1 % between requests.
 */
export function samePrefix(recorded: number, now: number): boolean {
  return Math.abs(recorded - now) <= 0.01 * Math.max(recorded, now) + 64;
}

/**
 * Whether a message breakpoint `mark`, written with lifetime `ttl`, is still a cached prefix of
 * `messageIds` at `now`: same place, same first message, within its lifetime, and the same size
 * as the prefix now ends there (`prefixAt(index)`, calibrated tokens; a compaction before it
 * changes that).
 */
export function markAlive<M extends HourCheckpoint>(
  mark: M | undefined,
  ttl: CacheTtl,
  messageIds: readonly string[],
  now: number,
  prefixAt: (index: number) => number,
): mark is M {
  return (
    mark !== undefined &&
    now - mark.sentAt < ttlMs(ttl) &&
    messageIds[mark.index] === mark.messageId &&
    messageIds[0] === mark.firstId &&
    samePrefix(mark.prefixTokens, prefixAt(mark.index))
  );
}

/** What the planner needs to know about the request being built (all token counts calibrated). */
export interface AnchorPlanInput {
  readonly toolsTokens: number;
  readonly systemTokens: number;
  /** One entry per message, in order. */
  readonly messages: ReadonlyArray<{ readonly id: string; readonly tokens: number; readonly blocks: number }>;
  readonly minCacheableTokens: number;
  readonly now: number;
  readonly previous?: PreviousBreakpoint;
  /** The index of the settled prefix's last message (settledPrefix.ts); absent or -1: none. */
  readonly settledIndex?: number;
}

/** A chosen breakpoint, with the reasoning a person can read in the ledger. */
export interface CacheAnchor {
  readonly target: BreakpointTarget;
  /** Tokens of the prefix this breakpoint caches (tools → system → messages up to it). */
  readonly prefixTokens: number;
  /** Estimated chance that this prefix is read from cache (now or on the next request). */
  readonly hitProbability: number;
  /** prefixTokens × hitProbability: what the ranking sorts by. */
  readonly score: number;
  readonly reason: string;
}

/** Probability that a stable prefix (tools, system) is still cached next time. */
const P_STABLE_TOOLS = 0.98;
const P_STABLE_SYSTEM = 0.95;
/** Probability that the next request comes within the TTL and reads what this one writes. */
const P_NEXT_REQUEST = 0.8;
/** Probability that the entry the previous request wrote is still there (warm / cold). */
const P_PREVIOUS_WARM = 0.9;
const P_PREVIOUS_COLD = 0.02;
/** Probability that a 1-hour checkpoint is what this request reads: after a pause (the later entries expired) or not. */
const P_CHECKPOINT_AFTER_PAUSE = 0.9;
const P_CHECKPOINT_BEHIND_WARM = 0.05;
/**
 * Probability that the settled prefix is what a request reads: the next compaction's (it edits
 * after it), some requests on. Below EXPECTED_HIT (requestOutlook.ts): not counted on now.
 */
const P_SETTLED = 0.45;

/**
 * Chooses at most 4 prompt-cache breakpoints over tools → system → messages. Candidates:
 * the end of the tools, the end of the system prompt, the end of the last message (written
 * now, read next turn), and — when more than 20 blocks were added since the previous
 * request's last breakpoint, which the API's lookback would no longer find — that previous
 * position again, so this request reads it; the end of the settled prefix (settledPrefix.ts),
 * which the next compaction leaves cached, and the previous request's settled breakpoint while
 * it lives, which this request reads when a compaction changed what came after it. Candidates
 * whose prefix is shorter than the model's minimum cacheable length are dropped; the rest are
 * ranked by tokens covered × expected hit probability, one a place, and the best four returned
 * in prefix order. Pure and O(messages).
 */
export function planCacheAnchors(input: AnchorPlanInput): CacheAnchor[] {
  const candidates: CacheAnchor[] = [];
  const add = (target: BreakpointTarget, prefixTokens: number, p: number, reason: string) => {
    if (prefixTokens < input.minCacheableTokens) return;
    candidates.push({ target, prefixTokens, hitProbability: p, score: prefixTokens * p, reason });
  };
  const base = input.toolsTokens + input.systemTokens;
  if (input.toolsTokens > 0) add({ at: 'tools' }, input.toolsTokens, P_STABLE_TOOLS, 'tool definitions rarely change');
  if (input.systemTokens > 0)
    add({ at: 'system' }, base, P_STABLE_SYSTEM, 'tools and system prompt form a stable prefix');

  const n = input.messages.length;
  if (n > 0) {
    let cumulative = base;
    const prefix: number[] = [];
    for (const m of input.messages) {
      cumulative += m.tokens;
      prefix.push(cumulative);
    }
    const lastIndex = n - 1;
    add(
      { at: 'message', messageIndex: lastIndex },
      prefix[lastIndex] ?? 0,
      P_NEXT_REQUEST,
      'the whole prompt, read back by the next request',
    );

    const prev = input.previous;
    const prevIndex = prev ? input.messages.findIndex((m) => m.id === prev.messageId) : -1;
    if (prev && prevIndex >= 0 && prevIndex < lastIndex) {
      let blocksSince = 0;
      for (let i = prevIndex + 1; i <= lastIndex; i++) blocksSince += input.messages[i]?.blocks ?? 0;
      if (blocksSince >= CACHE_LOOKBACK_BLOCKS) {
        const warm = input.now - prev.sentAt < ttlMs(prev.ttl) && samePrefix(prev.prefixTokens, prefix[prevIndex] ?? 0);
        add(
          { at: 'message', messageIndex: prevIndex },
          prefix[prevIndex] ?? 0,
          warm ? P_PREVIOUS_WARM : P_PREVIOUS_COLD,
          `${blocksSince} blocks were added since the previous breakpoint, beyond the API's ${CACHE_LOOKBACK_BLOCKS}-block lookback`,
        );
      }
    }
    const ids = input.messages.map((m) => m.id);
    // The tail the previous request wrote is no longer a prefix: a compaction edited before it.
    const tailGone = prev !== undefined && (prevIndex < 0 || !samePrefix(prev.prefixTokens, prefix[prevIndex] ?? 0));
    const settled = input.settledIndex ?? -1;
    const old = prev?.settled;
    const prefixAt = (i: number) => prefix[i] ?? 0;
    const oldLive = markAlive(old, old?.ttl ?? '5m', ids, input.now, prefixAt);
    if (oldLive && old.index !== settled && old.index < lastIndex)
      add(
        { at: 'message', messageIndex: old.index },
        prefix[old.index] ?? 0,
        tailGone ? P_PREVIOUS_WARM : P_SETTLED,
        'the previous end of the settled prefix, still cached: what is read when a compaction changed what follows',
      );
    if (settled >= 0 && settled < lastIndex)
      add(
        { at: 'message', messageIndex: settled },
        prefix[settled] ?? 0,
        tailGone && oldLive && old.index === settled ? P_PREVIOUS_WARM : P_SETTLED,
        'the end of the settled prefix (what compactions have changed): the next compaction rewrites only what follows it',
      );
    const cp = prev?.checkpoint;
    if (prev && markAlive(cp, '1h', ids, input.now, prefixAt) && cp.index < lastIndex && cp.index !== prevIndex) {
      let blocksSince = 0;
      for (let i = cp.index + 1; i <= lastIndex; i++) blocksSince += input.messages[i]?.blocks ?? 0;
      if (blocksSince >= CACHE_LOOKBACK_BLOCKS) {
        const paused = input.now - prev.sentAt >= ttlMs(prev.ttl);
        add(
          { at: 'message', messageIndex: cp.index },
          prefix[cp.index] ?? 0,
          paused ? P_CHECKPOINT_AFTER_PAUSE : P_CHECKPOINT_BEHIND_WARM,
          `the 1-hour checkpoint ${blocksSince} blocks back, what a pause leaves cached`,
        );
      }
    }
  }
  // One breakpoint a place (the likelier reason wins), at most four.
  const seen = new Set<number>();
  return candidates
    .sort((a, b) => b.score - a.score)
    .filter((a) => !seen.has(order(a.target)) && seen.add(order(a.target)))
    .slice(0, MAX_BREAKPOINTS)
    .sort((a, b) => order(a.target) - order(b.target));
}

function order(t: BreakpointTarget): number {
  return t.at === 'tools' ? -2 : t.at === 'system' ? -1 : t.messageIndex;
}
