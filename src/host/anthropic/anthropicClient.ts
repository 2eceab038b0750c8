import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  BadRequestError,
} from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { BetaMessageStreamParams } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { LlmClient, LlmError, LlmEvent, LlmResult } from '../../core/llm/llmClient';
import { ON_DEMAND_COMPACTION_BETA, type ServerRequestParts } from '../../core/server/serverContext';
import type { ApiModelLimits } from '../../core/pipeline/config';
import type { ListedModel } from '../../core/models/modelChoices';
import { apiKeyCharProblem } from '../../core/security/apiKeyCheck';
import { abortableSleep } from '../abortableSleep';
import { StreamMeter } from './streamMeter';
import { classifyBaseUrl } from '../../core/security/endpoint';
import {
  classifyFailure,
  DEFAULT_RETRY_POLICY,
  retryDelayMs,
  type FailureFacts,
  type RetryPolicy,
} from '../../core/llm/llmErrors';
import { redactSecrets } from '../../core/security/redact';
import { forward, resultOf } from './sdkMessages';
import { newSdkClient } from './sdkClient';
import { answerShapeProblem, isShapeError, MalformedAnswerError } from './answerShape';

/**
 * The key sent to a server on this machine when the user set none (README: the offline test
 * server accepts any key). Not a secret; a real key set by the user always goes instead.
 */
export const LOCAL_PLACEHOLDER_KEY = 'sk-ant-local-placeholder-no-key';

/** The most models {@link AnthropicLlmClient.listModels} collects (the API lists a few dozen). */
export const MAX_LISTED_MODELS = 200;

/** How the client reaches the API. The key is read per request and never stored or logged here. */
export interface AnthropicClientOptions {
  readonly apiKey: () => Promise<string | undefined>;
  readonly baseUrl?: string;
  readonly retry?: RetryPolicy;
  /** Waits (injected so tests can skip real time); must reject promptly when the signal aborts. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly random?: () => number;
  readonly now?: () => number;
  /** Per-attempt timeout in ms (default 10 minutes). */
  readonly timeoutMs?: number;
}

/**
 * LlmClient over the official SDK: `messages.stream` with deltas forwarded as events, our own
 * retry loop (SDK retries off) so the UI can show a countdown, honouring retry-after, for
 * 429, 529 / overloaded_error (also mid-stream), 5xx and dropped connections. Never throws.
 * Never sends a key with characters a header cannot hold, nor to an unusable base URL; the
 * key is redacted from every error it returns or reports while retrying.
 */
export class AnthropicLlmClient implements LlmClient {
  private readonly policy: RetryPolicy;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(private readonly options: AnthropicClientOptions) {
    this.policy = options.retry ?? DEFAULT_RETRY_POLICY;
    this.sleep = options.sleep ?? abortableSleep;
  }

  async stream(
    params: MessageCreateParamsNonStreaming,
    opts: {
      readonly signal: AbortSignal;
      readonly onEvent: (event: LlmEvent) => void;
      readonly server?: ServerRequestParts;
    },
  ): Promise<{ readonly ok: true; readonly result: LlmResult } | { readonly ok: false; readonly error: LlmError }> {
    const endpoint = this.options.baseUrl ? classifyBaseUrl(this.options.baseUrl) : undefined;
    const apiKey = await this.keyFor(endpoint);
    if (!apiKey) {
      return {
        ok: false,
        error: {
          kind: 'authentication',
          retryable: false,
          message:
            'No Anthropic API key is set. Run "Context Pipeline: Set API Key", or set ANTHROPIC_API_KEY before starting VS Code.',
        },
      };
    }
    // Checked before the key goes into a header: a NUL makes the HTTP library quote the whole key in its error.
    const keyProblem = apiKeyCharProblem(apiKey);
    if (keyProblem) {
      return {
        ok: false,
        error: {
          kind: 'authentication',
          retryable: false,
          message: `The API key cannot be used: ${keyProblem} Set it again with "Context Pipeline: Set API Key" (or fix ANTHROPIC_API_KEY); your message is kept.`,
        },
      };
    }
    if (endpoint?.kind === 'invalid') {
      return {
        ok: false,
        error: {
          kind: 'invalid_request',
          retryable: false,
          message: `Nothing was sent: contextPipeline.baseUrl is not usable (${endpoint.reason}). Fix it in your user settings; your message is kept.`,
        },
      };
    }
    let client: Anthropic;
    try {
      client = newSdkClient({ apiKey, baseUrl: this.options.baseUrl, timeoutMs: this.options.timeoutMs ?? 600_000 });
    } catch (err) {
      return {
        ok: false,
        error: redactError(classifyFailure({ message: err instanceof Error ? err.message : String(err) }), apiKey),
      };
    }
    for (let attempt = 1; ; attempt++) {
      opts.onEvent({ type: 'request_started', attempt });
      const raw = await this.attempt(client, params, opts);
      // Whatever the SDK put in its message (a header value, a URL), the key never reaches the chat or the log.
      const outcome = raw.ok ? raw : { ...raw, error: redactError(raw.error, apiKey) };
      if (outcome.ok) return outcome;
      const { error, retryAfter } = outcome;
      // Stopped: the attempt's usage so far (when its answer had begun) stays with the error, to be billed.
      if (opts.signal.aborted)
        return {
          ok: false,
          error: {
            ...classifyFailure({ message: 'aborted', aborted: true }),
            ...(error.cut ? { cut: error.cut } : {}),
          },
        };
      if (!error.retryable || attempt > this.policy.maxRetries) return { ok: false, error };
      const waitMs = retryDelayMs(
        attempt,
        this.policy,
        retryAfter,
        (this.options.now ?? Date.now)(),
        this.options.random ?? Math.random,
      );
      opts.onEvent({ type: 'retrying', attempt, waitMs, error });
      try {
        await this.sleep(waitMs, opts.signal);
      } catch {
        return { ok: false, error: classifyFailure({ message: 'aborted', aborted: true }) };
      }
    }
  }

  private attemptBeta(
    client: Anthropic,
    params: MessageCreateParamsNonStreaming,
    server: ServerRequestParts,
    opts: StreamOptions,
  ): Promise<{ ok: true; result: LlmResult }> {
    return betaAttempt(client, params, server, opts);
  }

  /**
   * `GET /v1/models/{id}` (SDK `beta.models.retrieve` with the `compact-2026-09-04` beta, else
   * `models.retrieve`: ModelInfo's `max_input_tokens` / `max_tokens`, the compaction capabilities),
   * one attempt, no retry: off the send path, so a failure only means the table is used.
   * Never throws; `timeoutMs` (default 5 s) bounds it.
   */
  async retrieveModel(
    id: string,
    opts: { readonly signal?: AbortSignal; readonly timeoutMs?: number } = {},
  ): Promise<
    { readonly ok: true; readonly limits: ApiModelLimits } | { readonly ok: false; readonly error: LlmError }
  > {
    return this.once(opts, async (client, signal) => {
      // With the compaction-on-demand beta the answer says whether the model takes `compaction`
      // (BetaModelCapabilities.compaction); an endpoint that refuses the beta is asked without it.
      const m = await client.beta.models
        .retrieve(id, { betas: [ON_DEMAND_COMPACTION_BETA] }, { signal })
        .catch((e: unknown) =>
          e instanceof BadRequestError ? client.models.retrieve(id, {}, { signal }) : Promise.reject(e),
        );
      const compact = m.capabilities?.context_management?.compact_20260112?.supported;
      const caps = m.capabilities as { compaction?: { summarize?: { supported?: unknown } } | null } | null;
      const onDemand = caps?.compaction?.summarize?.supported;
      return {
        id: m.id === id ? id : m.id,
        ...(typeof m.max_input_tokens === 'number' ? { maxInputTokens: m.max_input_tokens } : {}),
        ...(typeof m.max_tokens === 'number' ? { maxTokens: m.max_tokens } : {}),
        ...(typeof compact === 'boolean' ? { serverCompaction: compact } : {}),
        ...(typeof onDemand === 'boolean' ? { onDemandCompaction: onDemand } : {}),
      };
    }).then((r) => (r.ok ? { ok: true, limits: { ...r.value, id } } : r));
  }

  /**
   * `GET /v1/models` (SDK `models.list`, auto-paginated; ModelInfo's `id`, `display_name`,
   * `max_input_tokens`, `lifecycle`): the models the key can use, newest first, at most
   * {@link MAX_LISTED_MODELS}. One attempt, no retry, `timeoutMs` (default 5 s). Never throws.
   */
  async listModels(
    opts: { readonly signal?: AbortSignal; readonly timeoutMs?: number } = {},
  ): Promise<{ readonly ok: true; readonly models: ListedModel[] } | { readonly ok: false; readonly error: LlmError }> {
    const r = await this.once(opts, async (client, signal) => {
      const models: ListedModel[] = [];
      for await (const m of client.models.list({ limit: 100 }, { signal })) {
        models.push({
          id: m.id,
          displayName: m.display_name,
          ...(typeof m.max_input_tokens === 'number' ? { maxInputTokens: m.max_input_tokens } : {}),
          ...(m.lifecycle ? { lifecycle: m.lifecycle } : {}),
        });
        if (models.length >= MAX_LISTED_MODELS) break;
      }
      return models;
    });
    return r.ok ? { ok: true, models: r.value } : r;
  }

  /**
   * `POST /v1/messages/count_tokens` (SDK `messages.countTokens`, free) for the prompt of
   * `params`: its exact size. One attempt, no retry, `timeoutMs` (default 5 s). Never throws.
   */
  async countTokens(
    params: MessageCreateParamsNonStreaming,
    opts: { readonly signal?: AbortSignal; readonly timeoutMs?: number } = {},
  ): Promise<{ readonly ok: true; readonly inputTokens: number } | { readonly ok: false; readonly error: LlmError }> {
    const { model, messages, system, tools, tool_choice, thinking } = params;
    const r = await this.once(opts, (client, signal) =>
      client.messages.countTokens(
        {
          model,
          messages,
          ...(system !== undefined ? { system } : {}),
          ...(tools !== undefined ? { tools } : {}),
          ...(tool_choice !== undefined ? { tool_choice } : {}),
          ...(thinking !== undefined ? { thinking } : {}),
        },
        { signal },
      ),
    );
    return r.ok ? { ok: true, inputTokens: r.value.input_tokens } : r;
  }

  /** The user's key; with none, the placeholder for a server on this machine (the offline test server needs no real key). */
  private async keyFor(endpoint: ReturnType<typeof classifyBaseUrl> | undefined): Promise<string | undefined> {
    return (await this.options.apiKey()) || (endpoint?.kind === 'local' ? LOCAL_PLACEHOLDER_KEY : undefined);
  }

  /** One request with the key, endpoint and timeout checks of `stream`, no retry; the error is redacted. */
  private async once<T>(
    opts: { readonly signal?: AbortSignal; readonly timeoutMs?: number },
    call: (client: Anthropic, signal: AbortSignal) => Promise<T>,
  ): Promise<{ ok: true; value: T } | { ok: false; error: LlmError }> {
    const endpoint = this.options.baseUrl ? classifyBaseUrl(this.options.baseUrl) : undefined;
    const apiKey = await this.keyFor(endpoint);
    if (!apiKey || apiKeyCharProblem(apiKey))
      return { ok: false, error: { kind: 'authentication', retryable: false, message: 'No usable API key.' } };
    if (endpoint?.kind === 'invalid')
      return {
        ok: false,
        error: {
          kind: 'invalid_request',
          retryable: false,
          message: `contextPipeline.baseUrl is not usable (${endpoint.reason}).`,
        },
      };
    const timeout = AbortSignal.timeout(opts.timeoutMs ?? 5_000);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    try {
      const client = newSdkClient({ apiKey, baseUrl: this.options.baseUrl, timeoutMs: opts.timeoutMs ?? 5_000 });
      return { ok: true, value: await call(client, signal) };
    } catch (err) {
      return { ok: false, error: redactError(classifyFailure(factsOf(err, signal)), apiKey) };
    }
  }

  private async attempt(
    client: Anthropic,
    params: MessageCreateParamsNonStreaming,
    opts: {
      readonly signal: AbortSignal;
      readonly onEvent: (event: LlmEvent) => void;
      readonly server?: ServerRequestParts;
    },
  ): Promise<{ ok: true; result: LlmResult } | { ok: false; error: LlmError; retryAfter: string | null }> {
    // Whether the answer had begun (any stream event): a connection lost after that was reached, and cut.
    let begun = false;
    const meter = new StreamMeter();
    const watched = { ...opts, meter, onStreamEvent: () => (begun = true) };
    try {
      if (opts.server) return await this.attemptBeta(client, params, opts.server, watched);
      return await consume(client.messages.stream(params, { signal: opts.signal }), watched);
    } catch (err) {
      const facts = factsOf(err, opts.signal);
      const cut = meter.cut();
      return {
        ok: false,
        error: {
          ...classifyFailure(begun && facts.connection ? { ...facts, midStream: true } : facts),
          ...(cut ? { cut } : {}),
        },
        retryAfter: err instanceof APIError ? (err.headers?.get('retry-after') ?? null) : null,
      };
    }
  }
}

/**
 * The request through `beta.messages.stream` with `context_management` (or a compaction
 * request's `compaction`) and the `betas` (the SDK sends them as the `anthropic-beta` header).
 * The answer's compaction block (first
 * in its content, SDK `BetaCompactionBlock`; null content means a failed compaction the
 * server treats as a no-op, so it is left out) and the `context_management` /
 * `usage.iterations` report are carried into the result.
 */
async function betaAttempt(
  client: Anthropic,
  params: MessageCreateParamsNonStreaming,
  server: ServerRequestParts,
  opts: StreamOptions,
): Promise<{ ok: true; result: LlmResult }> {
  // The non-beta body is a valid beta body (the beta types are a superset); the cast names that.
  const body = {
    ...params,
    ...(server.contextManagement ? { context_management: server.contextManagement } : {}),
    // A compaction request (compaction on demand; SDK `BetaCompactionConfig`): never with context_management.
    ...(server.compaction && !server.contextManagement ? { compaction: server.compaction } : {}),
    betas: [...server.betas],
  } as unknown as BetaMessageStreamParams;
  return consume(client.beta.messages.stream(body, { signal: opts.signal }), opts);
}

/** Reads a message stream to its end: each event forwarded (and told to `onStreamEvent`), then the result. */
async function consume(
  stream: ReturnType<Anthropic['messages']['stream']> | ReturnType<Anthropic['beta']['messages']['stream']>,
  opts: StreamOptions,
): Promise<{ ok: true; result: LlmResult }> {
  let final: unknown;
  try {
    for await (const event of stream) {
      opts.onStreamEvent?.();
      opts.meter?.see(event);
      forward(event, opts.onEvent);
    }
    final = await stream.finalMessage();
  } catch (err) {
    // The SDK's parser tripping on a malformed event is the answer's fault, not the connection's.
    throw isShapeError(err) ? new MalformedAnswerError((err as Error).message) : err;
  }
  const problem = answerShapeProblem(final);
  if (problem) throw new MalformedAnswerError(problem);
  return { ok: true, result: resultOf(final as Parameters<typeof resultOf>[0], stream.request_id) };
}

/** What one streamed attempt reports to: the events, and (optionally) that any stream event arrived. */
interface StreamOptions {
  readonly signal: AbortSignal;
  readonly onEvent: (event: LlmEvent) => void;
  readonly onStreamEvent?: () => void;
  /** Meters the answer, so that a cut attempt can be billed (streamMeter.ts). */
  readonly meter?: StreamMeter;
}

/** `error` with the key (in any form redactSecrets knows) removed from its message. */
export function redactError(error: LlmError, apiKey: string): LlmError {
  const message = redactSecrets(error.message, [apiKey]);
  return message === error.message ? error : { ...error, message };
}

/** Extracts what classification needs from anything the SDK may throw. */
export function factsOf(err: unknown, signal: AbortSignal): FailureFacts {
  if (signal.aborted || err instanceof APIUserAbortError) return { message: 'aborted', aborted: true };
  if (err instanceof APIConnectionTimeoutError) return { message: err.message, timeout: true };
  if (err instanceof APIConnectionError) return { message: err.message || 'connection failed', connection: true };
  if (err instanceof APIError) {
    const requestId = err.requestID ?? undefined;
    return {
      ...(err.status !== undefined ? { status: err.status } : {}),
      ...(err.type ? { type: err.type } : {}),
      message: err.apiMessage ?? err.message,
      ...(requestId ? { requestId } : {}),
      ...(err.status === undefined && !err.type ? { connection: true } : {}),
    };
  }
  if (err instanceof MalformedAnswerError) return { message: err.message, malformed: true };
  // A stream cut by the peer surfaces as a plain Error/TypeError ("terminated", "socket hang up").
  const message = err instanceof Error ? err.message : String(err);
  return { message, connection: true };
}
