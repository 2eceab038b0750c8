/**
 * What one request tells the next about the prompt cache: where its last message breakpoint
 * went, when, for how long and over how many tokens, and the newest 1-hour checkpoint (a tail
 * written for an hour: what a pause leaves cached once the 5-minute entries after it expire).
 * And, for the request being built, what of its prompt should still be cached: the previous
 * request's prefix while it lives, else the checkpoint's. Pure.
 */
import type { Message } from '../conversation/conversationModel';
import type { RequestTokens } from '../pipeline/pipeline';
import { checkpointAlive, ttlMs, type HourCheckpoint, type PreviousBreakpoint } from './cacheAnchors';
import type { TimedAnchor } from './ttlChoice';

/** The cached prefixes a request can count on, in tokens (0: none). */
export interface CachedPrefixes {
  /** The longest prefix it should read: the previous request's while it lives, else the checkpoint's. */
  readonly readTokens: number;
  /** The prefix a pause would leave: the live checkpoint's (0 when none). */
  readonly checkpointTokens: number;
}

/** What `messages` (counted as `tokens`) should find cached at `now` after `previous` (see the module comment). */
export function cachedPrefixes(
  messages: readonly Message[],
  tokens: RequestTokens,
  now: number,
  previous: PreviousBreakpoint | undefined,
): CachedPrefixes {
  if (!previous) return { readTokens: 0, checkpointTokens: 0 };
  const through = (index: number) => {
    let sum = tokens.tools + tokens.system;
    for (let i = 0; i <= index; i++) sum += tokens.messages[i] ?? 0;
    return sum;
  };
  const ids = messages.map((m) => m.id);
  const cp = previous.checkpoint;
  const checkpointTokens = checkpointAlive(cp, ids, now) ? through(cp.index) : 0;
  const at = ids.indexOf(previous.messageId);
  const warm = at >= 0 && now - previous.sentAt < ttlMs(previous.ttl);
  return { readTokens: Math.max(warm ? through(at) : 0, checkpointTokens), checkpointTokens };
}

/**
 * The breakpoint record this request leaves for the next (undefined when it placed none on its
 * last message): its tail, and the checkpoint — this tail when it was written for an hour, else
 * the previous checkpoint while it lives.
 */
export function nextBreakpoint(
  messages: readonly Message[],
  anchors: readonly TimedAnchor[],
  now: number,
  previous: PreviousBreakpoint | undefined,
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
      : checkpointAlive(previous?.checkpoint, ids, now)
        ? previous?.checkpoint
        : undefined;
  return {
    messageId: lastMessage.id,
    sentAt: now,
    ttl: last.ttl,
    prefixTokens: last.prefixTokens,
    ...(checkpoint ? { checkpoint } : {}),
  };
}
