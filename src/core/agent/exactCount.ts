/**
 * The exact first anchor: before the first request of a session, and the first after a model
 * switch, the agent asks `count_tokens` (free) for the exact size of the prompt it is sending,
 * beside the stream — never before it, never failing it. A count that answers before the
 * request's usage anchors the estimator (so a failed or stopped first request still leaves an
 * exact anchor, and the budget shows an exact figure while the answer streams); one that
 * answers after the usage, or after the next request left, is only reported.
 */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { CountTokensPort } from '../llm/llmClient';
import type { PromptRequest, TokenEstimator } from '../tokens/estimator';
import type { AgentEvent } from './events';

/** The request a count is started for. */
export interface CountedRequest {
  readonly model: string;
  /** The params about to be streamed. */
  readonly params: MessageCreateParamsNonStreaming;
  /** The normalized request the estimator anchors on (`prepared.sent`). */
  readonly sent: PromptRequest;
  /** The estimate the request was sent with. */
  readonly estimated: number;
}

/** Starts a count on the first request for each model and decides whether its answer may anchor. */
export class ExactFirstCount {
  private countedModel: string | undefined;
  /** Identity of the request whose count may still anchor; any other request's count is only reported. */
  private open: object | undefined;
  /** The count that anchored the open request, until its usage arrives. */
  private anchoredTokens: number | undefined;

  constructor(
    private readonly count: CountTokensPort | undefined,
    private readonly estimator: TokenEstimator,
    private readonly emit: (event: AgentEvent) => void,
  ) {}

  /**
   * Called just before a request is streamed: closes any count still pending for an earlier
   * request, and starts one for this request when it is the first for its model. Returns at
   * once; the count's promise is never awaited by the send. Returns the count's completion
   * (for tests and callers that want to wait for it; it never rejects).
   */
  beforeSend(request: CountedRequest, signal: AbortSignal): Promise<void> | undefined {
    this.open = undefined;
    this.anchoredTokens = undefined;
    if (!this.count || request.model === this.countedModel) return undefined;
    this.countedModel = request.model;
    const token = {};
    this.open = token;
    let pending: Promise<{ readonly ok: true; readonly inputTokens: number } | { readonly ok: false }>;
    try {
      pending = this.count(request.params, signal);
    } catch {
      return undefined;
    }
    return pending.then(
      (r) => {
        if (!r.ok || !Number.isFinite(r.inputTokens) || r.inputTokens <= 0) return;
        const anchored = this.open === token;
        if (anchored) {
          this.open = undefined;
          this.anchoredTokens = r.inputTokens;
          this.estimator.anchorExact(request.sent, r.inputTokens);
        }
        this.emit({ type: 'exact_count', tokens: r.inputTokens, estimated: request.estimated, anchored });
      },
      () => undefined,
    );
  }

  /**
   * The usage of the request arrived: it wins, a count still pending is only reported.
   * Returns the exact count that anchored this request before its usage, if one did (it is
   * saved with the usage, so the request's row shows it live and after a reload alike).
   */
  usageArrived(): number | undefined {
    this.open = undefined;
    const counted = this.anchoredTokens;
    this.anchoredTokens = undefined;
    return counted;
  }
}
