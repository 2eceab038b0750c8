/**
 * The port to Claude: how the pure core sends a request and what comes back (the answer, its
 * usage, a classified error), and the exact count of a prompt. The host implements it over the
 * SDK; tests implement it with fakes.
 */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { AssistantContent } from '../conversation/assistant';
import type { ServerRequestParts } from '../server/serverContext';
import type { ServerReport } from './serverReport';

/** Token usage as the Messages API reports it. */
export interface Usage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation_input_tokens: number;
  /**
   * The writes split by lifetime, as the API reports them (SDK `Usage.cache_creation`); absent
   * when the server gave no split (then all writes are priced at the request's usual lifetime).
   */
  readonly cache_creation?: { readonly ephemeral_5m_input_tokens: number; readonly ephemeral_1h_input_tokens: number };
}

/** Why a request to Claude failed, classified so the loop and the UI can act on it. */
export type LlmErrorKind =
  | 'authentication' // 401: invalid key
  | 'permission' // 403
  | 'billing' // no credit
  | 'rate_limit' // 429 (after retries)
  | 'overloaded' // 529 / overloaded_error (after retries)
  | 'server' // 5xx (after retries)
  | 'network' // connection refused, reset, dropped mid-stream
  | 'protocol' // the server answered, but not in the Messages API's shape
  | 'timeout'
  | 'aborted' // the user pressed Stop
  | 'prompt_too_long' // 400 "prompt is too long: N tokens > M maximum"
  | 'context_exceeded' // 400 "input length and `max_tokens` exceed context limit: …"
  | 'invalid_request' // any other 400
  | 'not_found' // 404 (model unknown)
  | 'session_file' // the session file (or a file in the session folder) could not be written: not the API's
  | 'unknown';

/** A failed request, in words a person understands. */
export interface LlmError {
  readonly kind: LlmErrorKind;
  /** One or two sentences for the user, with what to do. */
  readonly message: string;
  /** The API's request id, when it gave one (for support). */
  readonly requestId?: string;
  /** Whether trying the same request again may succeed. */
  readonly retryable: boolean;
  /** For prompt_too_long / context_exceeded: the prompt size and the window the API quoted. */
  readonly promptTokens?: number;
  readonly limitTokens?: number;
  /** HTTP status, when there was one. */
  readonly status?: number;
  /** The request was cut after its answer began (Stop, a dropped connection): what it had used (see CutUsage). */
  readonly cut?: CutUsage;
}

/**
 * What a request whose answer was cut off had used: the usage the API reported as the answer
 * began (the stream's `message_start`: its input and cache figures are final; its output count
 * is a placeholder, as the real one only comes with the answer's end), the model that answered,
 * and how many characters of answer (text, thinking, tool input) arrived before the cut. The
 * API bills such a request for its prompt and the output generated so far; the core prices it
 * (cutRequest.ts).
 */
export interface CutUsage {
  readonly usage: Usage;
  readonly model: string;
  readonly streamedChars: number;
}

/** What the client reports while a request streams. */
export type LlmEvent =
  | { readonly type: 'request_started'; readonly attempt: number }
  | { readonly type: 'text_delta'; readonly index: number; readonly text: string }
  | { readonly type: 'thinking_delta'; readonly index: number; readonly thinking: string }
  | { readonly type: 'tool_use_started'; readonly index: number; readonly id: string; readonly name: string }
  | { readonly type: 'tool_input_delta'; readonly index: number; readonly partialJson: string }
  /** A 429/529/5xx/network failure that will be retried after `waitMs`. */
  | { readonly type: 'retrying'; readonly attempt: number; readonly waitMs: number; readonly error: LlmError };

/**
 * The API's `diagnostics.cache_miss_reason`, as the client parses it (only the fields we use);
 * what each reason means, and how the core attributes a miss, is in `pipeline/cacheMiss.ts`.
 */
export type ApiCacheMissReason =
  | {
      readonly type: 'model_changed' | 'system_changed' | 'tools_changed' | 'messages_changed';
      readonly cache_missed_input_tokens: number;
    }
  | { readonly type: 'previous_message_not_found' | 'unavailable' };

/** A complete answer. */
export interface LlmResult {
  readonly content: readonly AssistantContent[];
  /** end_turn, tool_use, max_tokens, stop_sequence, refusal, pause_turn, or anything newer. */
  readonly stopReason: string | null;
  readonly usage: Usage;
  readonly model: string;
  readonly requestId?: string;
  /** The response's `id` (`msg_…`), for the next request's `diagnostics.previous_message_id`. */
  readonly messageId?: string;
  /**
   * The API's `diagnostics.cache_miss_reason` (see `cacheMiss.ts`): absent when the response had
   * no diagnostics (not asked, nothing diverged), null while the API's comparison was pending.
   */
  readonly cacheMissReason?: ApiCacheMissReason | null;
  /** What the API reported about server-side context management (applied edits, iterations); absent when nothing. */
  readonly server?: ServerReport;
}

/** Talks to Claude. Never throws: every failure is an LlmError value. */
export interface LlmClient {
  stream(
    params: MessageCreateParamsNonStreaming,
    opts: {
      readonly signal: AbortSignal;
      readonly onEvent: (event: LlmEvent) => void;
      /** Server context management: `context_management` and beta headers (sent through the beta endpoint when present). */
      readonly server?: ServerRequestParts;
    },
  ): Promise<{ readonly ok: true; readonly result: LlmResult } | { readonly ok: false; readonly error: LlmError }>;
}

/** What `count_tokens` said about a prompt: its exact size, or nothing (failed, timed out, stopped). */
export type ExactCountResult = { readonly ok: true; readonly inputTokens: number } | { readonly ok: false };

/**
 * Asks the API for the exact prompt size of `params` (`count_tokens`, free). Never throws and
 * ends on its own (the host gives it a short timeout); `signal` stops it with the turn.
 */
export type CountTokensPort = (
  params: MessageCreateParamsNonStreaming,
  signal: AbortSignal,
) => Promise<ExactCountResult>;
