/**
 * What one request tells the next about the prompt cache: where its last message breakpoint
 * went, when, for how long and over how many tokens, and the newest 1-hour checkpoint (a tail
 * written for an hour: what a pause leaves cached once the 5-minute entries after it expire).
 * And, for the request being built, what of its prompt should still be cached: the previous
 * request's prefix while it lives, else the checkpoint's. Pure.
 */
import type { CacheTtl, Message } from '../conversation/conversationModel';
import type { RequestTokens } from '../tokens/requestTokens';
import {
  markAlive,
  samePrefix,
  ttlMs,
  type HourCheckpoint,
  type PreviousBreakpoint,
  type SettledMark,
} from './cacheAnchors';
import type { TimedAnchor } from './ttlChoice';

/** The cached prefixes a request can count on, in tokens (0: none). */
export interface CachedPrefixes {
  /** The longest prefix it should read: the previous request's while it lives, else the settled prefix's or the checkpoint's. */
  readonly readTokens: number;
  /** The prefix a pause would leave: the live checkpoint's (0 when none). */
  readonly checkpointTokens: number;
  /** The lifetime of the stable prefix's live entry (tools and system as they are now); absent: it must be written. */
  readonly stableCached?: CacheTtl;
}

/** What `messages` (counted as `tokens`) should find cached at `now` after `previous` (see the module comment). */
export function cachedPrefixes(
  messages: readonly Message[],
  tokens: RequestTokens,
  now: number,
  previous: PreviousBreakpoint | undefined,
): CachedPrefixes {
  if (!previous) return { readTokens: 0, checkpointTokens: 0 };
  const through = prefixThrough(tokens);
  const ids = messages.map((m) => m.id);
  const cp = previous.checkpoint;
  const alive = liveMark(cp, ids, tokens, now, '1h');
  const checkpointTokens = alive ? through(alive.index) : 0;
  const at = ids.indexOf(previous.messageId);
  // A compaction may keep the message ids and change what comes before them: then nothing is warm.
  const warm = at >= 0 && now - previous.sentAt < ttlMs(previous.ttl) && samePrefix(previous.prefixTokens, through(at));
  const stable = previous.stable;
  const stableWarm =
    stable !== undefined &&
    now - previous.sentAt < ttlMs(stable.ttl) &&
    samePrefix(stable.tokens, tokens.tools + tokens.system);
  const settled = liveMark(previous.settled, ids, tokens, now);
  return {
    readTokens: Math.max(warm ? through(at) : 0, checkpointTokens, settled ? through(settled.index) : 0),
    checkpointTokens,
    ...(stableWarm ? { stableCached: stable.ttl } : {}),
  };
}

/**
 * The breakpoint record this request leaves for the next (undefined when it placed none on its
 * last message): its tail, the checkpoint — this tail when it was written for an hour, else
 * the previous checkpoint while it lives — and the stable prefix's entry: the lifetime it was
 * cached with when this request found it warm (`stableCached`), else the one its mark wrote.
 */
export function nextBreakpoint(
  messages: readonly Message[],
  tokens: RequestTokens,
  anchors: readonly TimedAnchor[],
  now: number,
  previous: PreviousBreakpoint | undefined,
  stableCached?: CacheTtl,
  settledIndex?: number,
): PreviousBreakpoint | undefined {
  const lastIndex = messages.length - 1;
  const last = anchors.find((a) => a.target.at === 'message' && a.target.messageIndex === lastIndex);
  const lastMessage = messages[lastIndex];
  const first = messages[0];
  if (!last || !lastMessage || !first) return undefined;
  const ids = messages.map((m) => m.id);
  const checkpoint: HourCheckpoint | undefined =
    last.ttl === '1h'
      ? { messageId: lastMessage.id, index: lastIndex, firstId: first.id, sentAt: now, prefixTokens: last.prefixTokens }
      : liveMark(previous?.checkpoint, ids, tokens, now, '1h');
  const stableMark = anchors.filter((a) => a.target.at !== 'message').at(-1);
  const stableTtl = stableCached ?? stableMark?.ttl;
  // The settled prefix's breakpoint: this request's when it placed one (it refreshed the entry), else the previous while it lives.
  const settledAt = settledIndex ?? -1;
  const mark = anchors.find((a) => a.target.at === 'message' && a.target.messageIndex === settledAt);
  const settledMessage = messages[settledAt];
  const settled: SettledMark | undefined =
    mark && settledMessage && settledAt < lastIndex
      ? {
          messageId: settledMessage.id,
          index: settledAt,
          firstId: first.id,
          sentAt: now,
          ttl: mark.ttl,
          prefixTokens: mark.prefixTokens,
        }
      : liveMark(previous?.settled, ids, tokens, now);
  return {
    messageId: lastMessage.id,
    sentAt: now,
    ttl: last.ttl,
    prefixTokens: last.prefixTokens,
    ...(checkpoint ? { checkpoint } : {}),
    ...(settled ? { settled } : {}),
    ...(stableTtl ? { stable: { tokens: tokens.tools + tokens.system, ttl: stableTtl } } : {}),
  };
}

/** Tokens through each message index: tools, system and the messages up to it. */
function prefixThrough(tokens: RequestTokens): (index: number) => number {
  const sums: number[] = [];
  let sum = tokens.tools + tokens.system;
  for (const t of tokens.messages) sums.push((sum += t));
  return (index) => sums[index] ?? sum;
}

/**
 * `mark` while it is still a cached prefix of these messages (place, first message, the
 * lifetime it was written with — `ttl`, or its own — and size), else undefined.
 */
function liveMark<M extends HourCheckpoint & { readonly ttl?: CacheTtl }>(
  mark: M | undefined,
  ids: readonly string[],
  tokens: RequestTokens,
  now: number,
  ttl?: CacheTtl,
): M | undefined {
  return markAlive(mark, ttl ?? mark?.ttl ?? '5m', ids, now, prefixThrough(tokens)) ? mark : undefined;
}
