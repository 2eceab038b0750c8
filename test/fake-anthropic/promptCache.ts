/**
 * The prompt cache. Prefixes are hashed block by block in prompt order (tools → system →
 * messages), seeded with the model. For each `cache_control` breakpoint the cache looks for an
 * entry at the breakpoint's block and up to 20 blocks before it (the API's lookback); the
 * longest hit over all breakpoints is read. Every breakpoint whose prefix reaches the model's
 * minimum cacheable length is then written (or refreshed). Entries live 5 minutes, or 1 hour
 * for `ttl: "1h"`, on the injected clock, and a read refreshes them for their own lifetime: an
 * entry is not made longer-lived by a later breakpoint with another `ttl` at the same place
 * (the docs do not say it is; assuming it would flatter a 1-hour mark on a 5-minute entry).
 *
 * Usage: cache_read = tokens up to the hit; cache_creation = tokens from there to the last
 * written breakpoint; input_tokens = the rest (after the last breakpoint, or not cacheable).
 */
import { createHash } from 'node:crypto';
import type { CacheTtl } from './cacheControl';
import type { PromptLayout } from './promptLayout';
import type { CacheStats } from './types';

/** How many blocks before a breakpoint the cache looks for a hit. */
export const LOOKBACK_BLOCKS = 20;

const TTL_MS: Record<CacheTtl, number> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };

/** The cache's share of a request's input tokens. */
export interface CacheUsage {
  readonly input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_creation: { readonly ephemeral_5m_input_tokens: number; readonly ephemeral_1h_input_tokens: number };
}

interface Entry {
  expiresAt: number;
  ttl: CacheTtl;
}

/** A prompt cache on an injectable clock. */
export class PromptCache {
  private readonly entries = new Map<string, Entry>();
  private counters = { lookups: 0, hits: 0, misses: 0, writes: 0, readTokens: 0, creationTokens: 0 };

  constructor(private readonly now: () => number) {}

  /** Looks the request's prefixes up, writes its breakpoints, and splits its input tokens. */
  process(model: string, layout: PromptLayout, minCacheable: number): CacheUsage {
    const { blocks, totalTokens } = layout;
    const now = this.now();
    this.evict(now);
    const prefix: number[] = [];
    const hashes: string[] = [];
    let sum = 0;
    let hash = createHash('sha256').update(`model:${model}`).digest('hex');
    for (const b of blocks) {
      sum += b.tokens;
      prefix.push(sum);
      hash = createHash('sha256').update(hash).update('\u0000').update(b.key).digest('hex');
      hashes.push(hash);
    }
    const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [{ at: i, ttl: b.breakpoint }] : []));
    if (breakpoints.length === 0) return plain(totalTokens);
    this.counters.lookups++;

    let hit = -1;
    for (const bp of breakpoints) {
      for (let i = bp.at; i >= Math.max(0, bp.at - LOOKBACK_BLOCKS, hit + 1); i--) {
        if (this.entries.has(hashes[i] as string)) {
          hit = i;
          break;
        }
      }
    }
    const read = hit >= 0 ? (prefix[hit] as number) : 0;
    if (hit >= 0) {
      const entry = this.entries.get(hashes[hit] as string) as Entry;
      entry.expiresAt = now + TTL_MS[entry.ttl];
      this.counters.hits++;
    } else this.counters.misses++;

    const created = { '5m': 0, '1h': 0 };
    let covered = read;
    for (const bp of breakpoints) {
      const tokens = prefix[bp.at] as number;
      if (tokens < minCacheable) continue;
      const key = hashes[bp.at] as string;
      const existing = this.entries.get(key);
      const ttl: CacheTtl = existing ? existing.ttl : bp.ttl;
      this.entries.set(key, { ttl, expiresAt: now + TTL_MS[ttl] });
      this.counters.writes++;
      if (tokens > covered) {
        created[bp.ttl] += tokens - covered;
        covered = tokens;
      }
    }
    const creation = created['5m'] + created['1h'];
    this.counters.readTokens += read;
    this.counters.creationTokens += creation;
    return {
      input_tokens: totalTokens - read - creation,
      cache_read_input_tokens: read,
      cache_creation_input_tokens: creation,
      cache_creation: { ephemeral_5m_input_tokens: created['5m'], ephemeral_1h_input_tokens: created['1h'] },
    };
  }

  /**
   * Marks the prefix of the first `count` blocks as just read, with no counter moved: a prefix
   * other sessions keep warm (a client's system prompt shared by all its users). No entry is
   * made when `count` is 0.
   */
  keepWarm(model: string, layout: PromptLayout, count: number, ttl: CacheTtl): void {
    if (count <= 0) return;
    let hash = createHash('sha256').update(`model:${model}`).digest('hex');
    for (const b of layout.blocks.slice(0, count))
      hash = createHash('sha256').update(hash).update('\u0000').update(b.key).digest('hex');
    this.entries.set(hash, { ttl, expiresAt: this.now() + TTL_MS[ttl] });
  }

  /** Counters since the last clear, and the number of live entries. */
  stats(): CacheStats {
    this.evict(this.now());
    return { entries: this.entries.size, ...this.counters };
  }

  /** Forgets every entry and counter. */
  clear(): void {
    this.entries.clear();
    this.counters = { lookups: 0, hits: 0, misses: 0, writes: 0, readTokens: 0, creationTokens: 0 };
  }

  private evict(now: number): void {
    for (const [key, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(key);
  }
}

function plain(total: number): CacheUsage {
  return {
    input_tokens: total,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
  };
}
