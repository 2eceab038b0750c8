/**
 * The agent's view of the prompt cache across requests: asks the API for cache diagnostics
 * (the previous response's id), remembers the previous request's fingerprint and usage, and
 * explains each miss (see `cacheMiss.ts`). Pure state, no I/O.
 */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { LlmResult } from '../llm/llmClient';
import {
  cacheMissWarning,
  explainCacheMiss,
  fingerprintOf,
  type CacheMiss,
  type RequestFingerprint,
} from '../pipeline/cacheMiss';
import type { PreparedRequest } from '../pipeline/pipeline';

/** How many recent explanations are kept for the streak warning. */
const KEPT = 8;

/** Tracks the cache between the requests of one session. */
export class CacheWatch {
  private previous: { fingerprint: RequestFingerprint; usage: LlmResult['usage']; messageId?: string } | undefined;
  private changes: string[] = [];
  private recent: (CacheMiss | undefined)[] = [];

  /**
   * `params` with `diagnostics.previous_message_id` set (null before the first answer, which
   * opts in): the API then explains a prefix divergence from the previous request.
   */
  withDiagnostics(params: MessageCreateParamsNonStreaming): MessageCreateParamsNonStreaming {
    return { ...params, diagnostics: { previous_message_id: this.previous?.messageId ?? null } };
  }

  /** Notes something that changed the history (compaction, restore, pin) before the next request. */
  note(change: string): void {
    this.changes.push(change);
  }

  /**
   * Records a completed request sent at `at` and returns the explanation of its miss, if it
   * missed. `hitExpected` (the health rule) decides whether the miss counts toward the streak.
   */
  observe(
    prepared: Pick<PreparedRequest, 'sent' | 'params' | 'anchors' | 'lastBreakpoint'>,
    result: LlmResult,
    at: number,
    hitExpected: boolean,
  ): CacheMiss | undefined {
    const current = fingerprintOf(prepared, at);
    const api = result.cacheMissReason ?? undefined;
    const miss = explainCacheMiss({
      ...(this.previous ? { previous: this.previous } : {}),
      current,
      usage: result.usage,
      ...(api ? { api } : {}),
      changes: this.changes,
    });
    this.previous = {
      fingerprint: current,
      usage: result.usage,
      ...(result.messageId ? { messageId: result.messageId } : {}),
    };
    this.changes = [];
    if (hitExpected && result.usage.cache_read_input_tokens === 0) this.recent = [...this.recent, miss].slice(-KEPT);
    else if (result.usage.cache_read_input_tokens > 0) this.recent = [];
    return miss;
  }

  /** The warning naming the causes of the last `streak` misses. */
  warning(streak: number): string {
    return cacheMissWarning(this.recent.slice(-streak));
  }
}
