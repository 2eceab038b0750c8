/**
 * What a replay takes from the real session's timing and cache, in one place for the replay
 * (replayCore.ts) and the recency bound (recencyBound.ts): the clock over its usage records,
 * and where its cache missed entirely.
 */
import type { Usage } from '../src/core/llm/llmClient';
import type { TranscriptEvent } from './transcript';

/** Time between two requests when a usage record has no `at`. */
export const FALLBACK_GAP_MS = 20_000;
/** The replay's clock at a first request without `at`. */
export const REPLAY_START = Date.parse('2026-01-01T09:00:00Z');

/**
 * The transcript's clock: each request at its record's `at`, never backwards; a record without
 * one comes {@link FALLBACK_GAP_MS} after the last ({@link REPLAY_START} stands in until a
 * record has a time).
 */
export class ReplayClock {
  private current = REPLAY_START;
  private started = false;

  /** The time now. */
  get now(): number {
    return this.current;
  }

  /** Moves to the next request, at `at` when the record has it; returns the new time. */
  advance(at: number | undefined): number {
    if (at !== undefined) this.current = this.started ? Math.max(this.current, at) : at;
    else if (this.started) this.current += FALLBACK_GAP_MS;
    this.started = true;
    return this.current;
  }
}

/**
 * Whether the real session's request read nothing from its cache where it should have: not its
 * first request, not the first after its own compaction, and no cache read — a full miss. Only
 * in a session that used the cache at all (`sessionCaches`, see {@link reportsCacheUse}): a
 * session whose client sent no cache breakpoints, or whose log left the cache fields out, reads
 * nothing on every request, which says nothing about the server's cache, so none of its
 * requests is taken for a miss (that would make every policy write its whole prompt each time).
 */
export function isRealFullMiss(
  usage: Pick<Usage, 'cache_read_input_tokens'>,
  requestsBefore: number,
  afterCompaction: boolean,
  sessionCaches: boolean,
): boolean {
  return sessionCaches && requestsBefore > 0 && !afterCompaction && usage.cache_read_input_tokens === 0;
}

/**
 * Whether a session's usage records show any use of the prompt cache: a request that read from
 * it or wrote to it. False when every record reports none (or has no cache fields).
 */
export function reportsCacheUse(events: readonly TranscriptEvent[]): boolean {
  return events.some(
    (e) =>
      e.kind === 'usage' &&
      e.usage !== null &&
      e.usage.cache_read_input_tokens + e.usage.cache_creation_input_tokens > 0,
  );
}
