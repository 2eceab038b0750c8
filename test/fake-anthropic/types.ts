/**
 * Shared types of the fake Anthropic Messages API server: the script a test queues, the
 * record of every request it received, usage and cache statistics.
 */

/** Why the scripted model stopped, as the Messages API reports it. */
export type StopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded'
  /** The answer to a compaction request (compactionRequest.ts): the block alone. */
  | 'compaction';

/** The `error.type` values of the API's error bodies. */
export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'timeout_error'
  | 'api_error'
  | 'overloaded_error';

/** One tool call the scripted model makes. Without `id`, a deterministic `toolu_…` id is generated. */
export interface ScriptedToolUse {
  readonly name: string;
  readonly input: unknown;
  readonly id?: string;
}

/** Restricts a step to requests it fits; the first queued step that matches a request answers it. */
export interface StepMatch {
  /** The request's `model` must equal this. */
  readonly model?: string;
  /** The text of the request's last user message must contain this. */
  readonly lastUserTextIncludes?: string;
  /** The text of the request's first user message contains this (a subagent's task prompt). */
  readonly firstUserTextIncludes?: string;
}

/** What every step may carry. */
interface StepCommon {
  /** Milliseconds to wait before the first byte of the response (status line and headers). */
  readonly delayMs?: number;
  readonly match?: StepMatch;
}

/**
 * A scripted answer: thinking (optional), then text, then tool calls. With no text and no
 * tool calls the default echo answer is used, so `{ delayMs: 50 }` or `{ stopReason: 'refusal' }`
 * alone are valid steps. Stream faults apply to streaming requests; a non-streaming request
 * with `disconnectAfterEvents` gets its socket destroyed before any byte, and one with a
 * mid-stream error gets that error as an HTTP error (529 for `overloaded_error`).
 */
export interface AnswerStep extends StepCommon {
  readonly status?: undefined;
  readonly text?: string;
  /** A thinking block before the answer (a signature is generated). */
  readonly thinking?: string;
  /**
   * A `redacted_thinking` block (after `thinking`, before the text) with this opaque `data`,
   * as the API returns when a safety system encrypted the reasoning.
   */
  readonly redactedThinking?: string;
  readonly toolUses?: readonly ScriptedToolUse[];
  /**
   * A tool search before the text and tool calls (toolSearch.ts): a `server_tool_use` of the
   * request's tool search tool with this pattern (or query, for BM25), and its
   * `tool_search_tool_result` referencing the deferred tools found. Needs a tool search tool in
   * the request; the step's `toolUses` may then call a tool found.
   */
  readonly toolSearch?: { readonly pattern: string };
  /** Default: `tool_use` when there are tool calls, else `end_turn` (or `max_tokens` when the answer is cut). */
  readonly stopReason?: StopReason;
  /** Reported output tokens; default: the answer counted with the server's tokenizer. */
  readonly outputTokens?: number;
  /**
   * Under `compact_20260112`: compact before answering even below the trigger, with this
   * summary (default: a generated one). A compaction request (`compaction: {type: 'summarize'}`)
   * answers with this summary. Otherwise it is ignored.
   */
  readonly compaction?: { readonly summary?: string };
  /** Milliseconds between SSE events. */
  readonly deltaDelayMs?: number;
  /** Characters per `text_delta` / `thinking_delta` and per `input_json_delta` (default 24). */
  readonly chunkChars?: number;
  /** Destroy the socket after this many SSE events were written (pings included). */
  readonly disconnectAfterEvents?: number;
  /** Send an SSE `error` event with `overloaded_error` after this many events, then end the stream. */
  readonly overloadedMidStream?: { readonly afterEvents: number };
  /** Send an SSE `error` event of any type after this many events, then end the stream. */
  readonly errorMidStream?: { readonly afterEvents: number; readonly type?: ApiErrorType; readonly message?: string };
}

/** A scripted HTTP error instead of an answer (e.g. `{ status: 429, retryAfter: 1 }`). */
export interface ErrorStep extends StepCommon {
  readonly status: number;
  /** Default from the status: 429 rate_limit_error, 529 overloaded_error, 500 api_error, … */
  readonly errorType?: ApiErrorType;
  readonly message?: string;
  /** Seconds, sent as the `retry-after` header. */
  readonly retryAfter?: number;
  /** Sent as `x-should-retry`; default true for 408/409/429/5xx, false otherwise. */
  readonly shouldRetry?: boolean;
}

/** One scripted response; each API request to `/v1/messages` that passes validation consumes one. */
export type ScriptStep = AnswerStep | ErrorStep;

/** Token usage as the Messages API reports it. */
export interface FakeUsage {
  readonly input_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation: { readonly ephemeral_5m_input_tokens: number; readonly ephemeral_1h_input_tokens: number };
  readonly output_tokens: number;
  readonly service_tier: 'standard';
}

/** Why the server refused a request (an API error it answered instead of a message). */
export interface Rejection {
  readonly status: number;
  readonly type: ApiErrorType;
  readonly message: string;
  /** Short name of the rule the request broke, e.g. `roles_alternate`, `prompt_too_long`. */
  readonly rule: string;
}

/** What the server did with a request. */
export type Outcome =
  'answered' | 'counted' | 'rejected' | 'scripted_error' | 'stream_error' | 'disconnected' | 'client_closed';

/** One request the server received on an API route. */
export interface RecordedRequest {
  readonly seq: number;
  /** Time on the server's clock (ms since epoch). */
  readonly at: number;
  readonly method: string;
  readonly path: string;
  readonly requestId: string;
  /** `anthropic-version`, `anthropic-beta` and the SDK's retry count, when sent (never the key). */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body (the raw text when it was not JSON). */
  readonly body: unknown;
  readonly stream: boolean;
  /** False when the server rejected the request for its own fault (400, 401, 404). */
  valid: boolean;
  error?: Rejection;
  /** Input tokens of the whole prompt as the server counted them. */
  inputTokens?: number;
  usage?: FakeUsage;
  outcome?: Outcome;
  /** Server context management the request asked for and what it did (absent without `context_management`). */
  contextManagement?: { appliedEdits: readonly unknown[]; compacted: boolean; tokensBeforeEdits: number };
  /** The scripted step that answered, if any (undefined: the default echo answer). */
  step?: ScriptStep;
}

/** Prompt-cache counters since the last reset. */
export interface CacheStats {
  /** Live entries now. */
  readonly entries: number;
  /** Requests with at least one breakpoint. */
  readonly lookups: number;
  /** Lookups that read a cached prefix. */
  readonly hits: number;
  readonly misses: number;
  /** Entries written or rewritten. */
  readonly writes: number;
  readonly readTokens: number;
  readonly creationTokens: number;
}
