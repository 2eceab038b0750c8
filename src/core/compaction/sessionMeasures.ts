/**
 * What the compactor measures on a session to price its plans: how fast the prompt grows per
 * request, how many output tokens the main model spends per answer beyond what it shows (its
 * thinking), and how often a request that should have read the prompt cache found nothing
 * there (a full miss no edit of ours explains: the entry was evicted, or the server missed).
 * Moving averages and counts, and where the recent requests ended (requestEnds.ts); pure
 * state, no I/O.
 */
import type { CacheTtl, Message } from '../conversation/conversationModel';
import { RequestEnds } from './requestEnds';

/** Weight of the newest growth sample in its moving average. */
const GROWTH_WEIGHT = 0.2;
/** Weight of the newest thinking sample in its moving average. */
const THINKING_WEIGHT = 0.3;
/**
 * Requests the miss rate is shrunk by: it is misses ÷ (requests that expected a read + this),
 * so one early miss reads as a small rate, and the rate approaches the true one as requests add up.
 */
export const MISS_RATE_PRIOR_REQUESTS = 10;

/** What an answer's usage tells the measures. */
export interface AnswerUsage {
  readonly output_tokens: number;
  readonly cache_read_input_tokens: number;
}

/** The session's measures (see the module comment). */
export class SessionMeasures {
  private lastTokens: number | undefined;
  private growth: number | undefined;
  private thinking: number | undefined;
  private expectRead = false;
  private expectedReads = 0;
  private fullMisses = 0;

  /** Where the session's recent requests ended their prompts, and when (the server route's cache read). */
  readonly ends = new RequestEnds();

  /**
   * The prompt's size before a request's compaction (the growth is measured between these), and
   * the lifetime the previous request wrote its last breakpoint with (when known).
   */
  observePrompt(tokens: number, previousTtl?: CacheTtl): void {
    this.ends.lastTtl(previousTtl);
    if (this.lastTokens !== undefined) {
      const g = tokens - this.lastTokens;
      if (g >= 0) this.growth = this.growth === undefined ? g : (1 - GROWTH_WEIGHT) * this.growth + GROWTH_WEIGHT * g;
    }
    this.lastTokens = tokens;
  }

  /**
   * The prompt's size as sent, after that request's compaction: the next request's growth is
   * measured from it (from the size before the compaction, a request that compacted and then
   * grew back would read as no growth at all).
   */
  observeSent(tokens: number): void {
    if (this.lastTokens !== undefined) this.lastTokens = Math.min(this.lastTokens, tokens);
  }

  /**
   * The request about to go out should read the cache (the last one was within the TTL, nothing
   * before it was edited, the prompt is over the model's minimum cacheable length) or not; `sent`:
   * its history and when it goes out (RequestEnds).
   */
  sending(expectRead: boolean, sent?: { readonly messages: readonly Message[]; readonly at: number }): void {
    this.expectRead = expectRead;
    if (sent) this.ends.sent(sent.messages, sent.at);
  }

  /**
   * Its answer: `usage` as the API billed it and `shownTokens`, the tokens of the answer's text
   * and tool calls. Output beyond those is thinking; no cache read where one was expected is a
   * full miss.
   */
  observeAnswer(usage: AnswerUsage, shownTokens: number): void {
    const extra = Math.max(0, usage.output_tokens - shownTokens);
    if (Number.isFinite(extra))
      this.thinking =
        this.thinking === undefined ? extra : (1 - THINKING_WEIGHT) * this.thinking + THINKING_WEIGHT * extra;
    if (this.expectRead) {
      this.expectedReads++;
      if (usage.cache_read_input_tokens === 0) this.fullMisses++;
    }
    this.expectRead = false;
  }

  /** Tokens the prompt grows by per request, or undefined before two requests. */
  get growthPerRequest(): number | undefined {
    return this.growth;
  }

  /** Output tokens per answer beyond what it shows (rounded), or undefined before the first answer. */
  get thinkingTokens(): number | undefined {
    return this.thinking === undefined ? undefined : Math.round(this.thinking);
  }

  /** Share of requests that expected a cache read and found none, shrunk toward 0 early (0 before any). */
  get cacheMissRate(): number {
    return this.fullMisses / (this.expectedReads + MISS_RATE_PRIOR_REQUESTS);
  }
}
