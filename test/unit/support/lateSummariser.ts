import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { CutUsage, LlmClient, LlmError, LlmEvent, LlmResult, Usage } from '../../../src/core/llm/llmClient';
import { Counter, Gate } from './gate';

/**
 * A summariser that, per call, may report a retried attempt cut mid-answer, then waits until
 * `settle` opens, however the Stop went (a client slow to notice the abort, or one ignoring it), then answers
 * `late` — as a whole answer or as the cut attempt it was.
 */
export class LateSummariser implements LlmClient {
  readonly waiting = new Counter();
  readonly settle = new Gate();
  constructor(
    private readonly late:
      { readonly ok: true; readonly usage: Usage } | { readonly ok: false; readonly cut?: CutUsage },
    private readonly retriedCut?: CutUsage,
  ) {}

  async stream(
    params: MessageCreateParamsNonStreaming,
    opts: { signal: AbortSignal; onEvent: (e: LlmEvent) => void },
  ): Promise<{ ok: true; result: LlmResult } | { ok: false; error: LlmError }> {
    if (this.retriedCut)
      opts.onEvent({
        type: 'retrying',
        attempt: 1,
        waitMs: 1,
        error: { kind: 'network', message: 'closed', retryable: true, cut: this.retriedCut },
      });
    this.waiting.bump();
    await this.settle.wait();
    if (this.late.ok)
      return {
        ok: true,
        result: {
          content: [{ type: 'text', text: 'A summary.' }],
          stopReason: 'end_turn',
          usage: this.late.usage,
          model: params.model,
        },
      };
    const cut = this.late.cut;
    return { ok: false, error: { kind: 'aborted', message: 'Stopped.', retryable: false, ...(cut ? { cut } : {}) } };
  }
}
