import type { LlmError, LlmErrorKind } from './llmClient';

/** What the transport knows about a failed request (filled by the host from the SDK's error). */
export interface FailureFacts {
  /** HTTP status, absent for connection failures and for errors inside a stream. */
  readonly status?: number;
  /** The API's `error.type`, e.g. `overloaded_error`, also for errors sent inside an SSE stream. */
  readonly type?: string;
  /** The API's `error.message`, or the transport's message. */
  readonly message: string;
  readonly requestId?: string;
  /** Set when the connection failed or dropped (no HTTP answer, or the stream was cut). */
  readonly connection?: boolean;
  /** The connection failed after the answer had begun to arrive (it was reached, then cut). */
  readonly midStream?: boolean;
  readonly timeout?: boolean;
  readonly aborted?: boolean;
  /** The server answered, but not in the Messages API's shape (`message` says which field). */
  readonly malformed?: boolean;
}

/** "prompt is too long: 210000 tokens > 200000 maximum" (figures with or without thousands separators, or none). */
const PROMPT_TOO_LONG = /prompt is too long(?::\s*([\d,]+)\s*tokens\s*>\s*([\d,]+)\s*maximum)?/i;
const CONTEXT_EXCEEDED =
  /input length and `?max_tokens`? exceed context limit:\s*([\d,]+)\s*\+\s*([\d,]+)\s*>\s*([\d,]+)/i;
/** The API's 413 `request_too_large`: the request body is over its size limit (32 MB), whatever its tokens. */
const REQUEST_TOO_LARGE = /request_too_large|request exceeds the maximum (allowed )?(number of bytes|size)/i;

/** A figure the API quoted ("1,050,000" or "1050000"). */
function figure(text: string): number {
  return Number(text.replace(/,/g, ''));
}

/** How a message names the API's request id (for support): ` (request req_…)`. */
export function requestIdNote(requestId: string | undefined): string {
  return requestId ? ` (request ${requestId})` : '';
}

/**
 * An error's message without its request id, for the chat, which keeps the id in a
 * disclosure of its own (the log keeps the whole message).
 */
export function messageWithoutRequestId(error: Pick<LlmError, 'message' | 'requestId'>): string {
  const note = requestIdNote(error.requestId);
  return note ? error.message.replace(note, '') : error.message;
}

/**
 * Classifies a failure exactly. Only the API messages that mean "the prompt does not fit"
 * become overflow kinds (with the figures they quote, when they quote them), and so does a
 * 413 (the body is over the API's size limit, which shrinking the history cures too); every
 * other 400 is an invalid request. Messages are written for a person and name the request id
 * when there is one.
 */
export function classifyFailure(f: FailureFacts): LlmError {
  const id = requestIdNote(f.requestId);
  const base = {
    ...(f.requestId ? { requestId: f.requestId } : {}),
    ...(f.status !== undefined ? { status: f.status } : {}),
  };
  const make = (kind: LlmErrorKind, message: string, retryable: boolean, extra: Partial<LlmError> = {}): LlmError => ({
    kind,
    message,
    retryable,
    ...base,
    ...extra,
  });
  if (f.aborted) return make('aborted', 'Stopped.', false);
  if (f.malformed)
    return make(
      'protocol',
      `The server's answer is not a valid Messages API response${id} (${f.message}). If contextPipeline.baseUrl points at a proxy, check it; your message is kept.`,
      true,
    );
  if (f.type === 'overloaded_error' || f.status === 529)
    return make(
      'overloaded',
      `Anthropic's API is overloaded right now${id}. Your message is kept; try again in a moment.`,
      true,
    );
  if (f.type === 'rate_limit_error' || f.status === 429)
    return make('rate_limit', `Rate limited by the Anthropic API${id}. Your message is kept.`, true);
  if (f.timeout) return make('timeout', `The request timed out${id}. Your message is kept; try again.`, true);
  if (f.connection && f.midStream)
    return make(
      'network',
      `The connection closed before the answer was complete${id}: ${f.message}. Your message is kept.`,
      true,
    );
  if (f.connection || (f.status === undefined && !f.type))
    return make(
      'network',
      `Could not reach the Anthropic API: ${f.message}. Check your connection or the contextPipeline.baseUrl setting; your message is kept.`,
      true,
    );
  const tooLong = PROMPT_TOO_LONG.exec(f.message);
  if (tooLong) {
    const [, prompt, limit] = tooLong;
    return prompt !== undefined && limit !== undefined
      ? make(
          'prompt_too_long',
          `The conversation is too long for the model: ${prompt} tokens > ${limit} maximum${id}.`,
          false,
          { promptTokens: figure(prompt), limitTokens: figure(limit) },
        )
      : make('prompt_too_long', `The conversation is too long for the model${id}.`, false);
  }
  const exceeded = CONTEXT_EXCEEDED.exec(f.message);
  if (exceeded) {
    return make(
      'context_exceeded',
      `The conversation plus the answer's reserve exceed the context window: ${exceeded[1]} + ${exceeded[2]} > ${exceeded[3]}${id}.`,
      false,
      { promptTokens: figure(exceeded[1] ?? ''), limitTokens: figure(exceeded[3] ?? '') },
    );
  }
  // Too many bytes (long before too many tokens: images, huge results): shrinking the history is the way out too.
  if (f.status === 413 || f.type === 'request_too_large' || REQUEST_TOO_LARGE.test(f.message))
    return make('prompt_too_long', `The request is larger than the API takes (32 MB)${id}: ${f.message}`, false);
  switch (f.status) {
    case 401:
      return make(
        'authentication',
        `The API key was rejected${id}. Run "Context Pipeline: Set API Key" with a valid key.`,
        false,
      );
    case 402:
      return make(
        'billing',
        `The Anthropic account has no credit left${id}. Add credit in the Anthropic Console, then retry.`,
        false,
      );
    case 403:
      return make('permission', `This API key may not use this model or feature${id}: ${f.message}`, false);
    case 404:
      return make(
        'not_found',
        `The API does not know this model or endpoint${id}: ${f.message}. Check contextPipeline.model.`,
        false,
      );
    case 400:
    case 422:
      if (/credit balance/i.test(f.message))
        return make(
          'billing',
          `The Anthropic account has no credit left${id}. Add credit in the Anthropic Console, then retry.`,
          false,
        );
      // An endpoint without 1-hour cache entries (some proxies and older models) names the ttl.
      if (/\bttl\b|cache_control/i.test(f.message))
        return make(
          'invalid_request',
          `The API refused the request${id}: ${f.message}. If this endpoint does not take 1-hour cache entries, set contextPipeline.cacheTtl to 5m.`,
          false,
        );
      return make('invalid_request', `The API refused the request${id}: ${f.message}`, false);
  }
  if (f.type === 'api_error' || (f.status !== undefined && f.status >= 500))
    return make('server', `The Anthropic API had an internal error${id}. Your message is kept; try again.`, true);
  return make('unknown', `The request failed${id}: ${f.message}`, false);
}

/** Retry policy for retryable failures. */
export interface RetryPolicy {
  readonly maxRetries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/** Defaults: 4 retries, 1 s doubling up to 30 s (a retry-after header wins, up to 60 s). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 4, baseDelayMs: 1_000, maxDelayMs: 30_000 };

/**
 * How long to wait before retry number `attempt` (1-based): the server's retry-after when
 * given (seconds or an HTTP date, capped at 60 s), otherwise exponential backoff with
 * ±25 % jitter from `random` (injected for determinism).
 */
export function retryDelayMs(
  attempt: number,
  policy: RetryPolicy,
  retryAfter: string | null | undefined,
  nowMs: number,
  random: () => number,
): number {
  if (retryAfter) {
    const secs = Number(retryAfter);
    if (Number.isFinite(secs) && secs >= 0) return Math.min(60_000, Math.round(secs * 1000));
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.min(60_000, Math.max(0, date - nowMs));
  }
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exp * (0.75 + random() * 0.5));
}
