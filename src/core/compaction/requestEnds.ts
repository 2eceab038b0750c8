/**
 * Where the session's recent requests ended their prompts, and when: each wrote a cache entry
 * on its last message (the pipeline's last breakpoint, cacheAnchors.ts), which a later request
 * sending the very same prefix reads. A compaction request (compaction on demand, serverRoute.ts)
 * sends the history only up to a region's end: it reads the cache only where an earlier
 * request's prompt ended at or before that end, with nothing before it changed since (the same
 * message objects: messages are immutable, and every edit makes new ones) and its entry still
 * alive. Pure state, no I/O.
 */
import { ttlMs } from '../cache/cacheAnchors';
import type { CacheTtl, Message } from '../conversation/conversationModel';

/** How many of the newest requests are remembered (a 1-hour entry rarely outlives more). */
export const REMEMBERED_REQUESTS = 64;

/** Where a compaction request can read the cache to: the message an earlier request's prompt ended with. */
export interface ServerAnchor {
  /** Index in the state's messages of that message. */
  readonly index: number;
  /** Whether the entry that request wrote there is expected alive now. */
  readonly alive: boolean;
}

interface End {
  readonly messages: readonly Message[];
  readonly at: number;
  /** The lifetime its last breakpoint was written with, once the next request said. */
  ttl?: CacheTtl;
}

/** The newest requests' prompt ends (see the module comment). */
export class RequestEnds {
  private readonly ends: End[] = [];

  /** The previous request's last breakpoint was written with `ttl` (the next request learns it). */
  lastTtl(ttl: CacheTtl | undefined): void {
    const last = this.ends.at(-1);
    if (last && ttl) last.ttl = ttl;
  }

  /** A request goes out at `at` with the history `messages` (as the state holds it, before normalize). */
  sent(messages: readonly Message[], at: number): void {
    if (messages.length === 0) return;
    this.ends.push({ messages, at });
    if (this.ends.length > REMEMBERED_REQUESTS) this.ends.shift();
  }

  /** When the newest request went out (undefined before any). */
  get lastSentAt(): number | undefined {
    return this.ends.at(-1)?.at;
  }

  /**
   * The anchor of a request sending `messages[0..end]` at `now`: the newest remembered request
   * whose whole history is `messages[0..k]` for some k ≤ end (the same objects), alive when
   * its entry's lifetime (`fallbackTtl` until the next request said) has not run out.
   * Undefined when no remembered request ended inside that stretch.
   */
  anchor(messages: readonly Message[], end: number, now: number, fallbackTtl: CacheTtl): ServerAnchor | undefined {
    for (let r = this.ends.length - 1; r >= 0; r--) {
      const e = this.ends[r] as End;
      const k = e.messages.length - 1;
      if (k > end || k >= messages.length) continue;
      let same = true;
      for (let i = k; i >= 0 && same; i--) same = e.messages[i] === messages[i];
      if (same) return { index: k, alive: now - e.at < ttlMs(e.ttl ?? fallbackTtl) };
    }
    return undefined;
  }
}
