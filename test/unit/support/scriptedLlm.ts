import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { CutUsage, LlmClient, LlmError, LlmEvent, LlmResult, Usage } from '../../../src/core/llm/llmClient';
import type { ToolCall, ToolOutcome, ToolRunner } from '../../../src/core/tools/toolRunner';
import type { AssistantContent } from '../../../src/core/conversation/assistant';
import { Counter } from './gate';

/** One scripted answer: content, a failure, or a wait for the abort signal. */
export type Step =
  | {
      readonly content: readonly AssistantContent[];
      readonly stopReason?: string | null;
      readonly usage?: Partial<Usage>;
      /** An attempt cut mid-answer first (a `retrying` event whose error carries it), then this answer. */
      readonly cutBefore?: CutUsage;
    }
  | { readonly error: LlmError; readonly retries?: number }
  /** Streams `partialText`, waits for Stop, then fails as stopped (with `cut`: what the cut attempt had used). */
  | { readonly hangUntilAbort: true; readonly partialText?: string; readonly cut?: CutUsage };

/** Resolves when `signal` aborts (at once if it already has). */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * An LlmClient that plays a script and records every request it got. `hanging` counts the
 * `hangUntilAbort` steps that are waiting for the abort: a test awaits `hanging.reached(n)`
 * instead of sleeping before it presses Stop.
 */
export class ScriptedLlm implements LlmClient {
  readonly requests: MessageCreateParamsNonStreaming[] = [];
  readonly hanging = new Counter();
  constructor(private readonly steps: Step[]) {}

  async stream(
    params: MessageCreateParamsNonStreaming,
    opts: { signal: AbortSignal; onEvent: (e: LlmEvent) => void },
  ): Promise<{ ok: true; result: LlmResult } | { ok: false; error: LlmError }> {
    this.requests.push(structuredClone(params));
    const step = this.steps.shift();
    if (!step) throw new Error('script exhausted');
    opts.onEvent({ type: 'request_started', attempt: 1 });
    if ('error' in step) {
      for (let i = 0; i < (step.retries ?? 0); i++)
        opts.onEvent({ type: 'retrying', attempt: i + 1, waitMs: 10, error: step.error });
      return { ok: false, error: step.error };
    }
    if ('hangUntilAbort' in step) {
      if (step.partialText) opts.onEvent({ type: 'text_delta', index: 0, text: step.partialText });
      const stopped = aborted(opts.signal);
      this.hanging.bump();
      await stopped;
      return {
        ok: false,
        error: { kind: 'aborted', message: 'Stopped.', retryable: false, ...(step.cut ? { cut: step.cut } : {}) },
      };
    }
    if (step.cutBefore)
      opts.onEvent({
        type: 'retrying',
        attempt: 1,
        waitMs: 10,
        error: { kind: 'network', message: 'The connection closed mid-answer.', retryable: true, cut: step.cutBefore },
      });
    for (const [i, c] of step.content.entries()) {
      if (c.type === 'text') opts.onEvent({ type: 'text_delta', index: i, text: c.text });
      if (c.type === 'tool_use') opts.onEvent({ type: 'tool_use_started', index: i, id: c.id, name: c.name });
    }
    const promptChars = JSON.stringify(params).length;
    return {
      ok: true,
      result: {
        content: step.content,
        stopReason:
          step.stopReason === undefined
            ? step.content.some((c) => c.type === 'tool_use')
              ? 'tool_use'
              : 'end_turn'
            : step.stopReason,
        model: params.model,
        requestId: `req_${this.requests.length}`,
        usage: {
          input_tokens: Math.ceil(promptChars / 4),
          output_tokens: 20,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
          ...step.usage,
        },
      },
    };
  }
}

/**
 * A ToolRunner whose tools answer from a table; `slow` tools wait for the abort signal, and
 * `waiting` counts the slow calls that are waiting (a test awaits it before pressing Stop).
 */
export class FakeTools implements ToolRunner {
  readonly calls: ToolCall[] = [];
  readonly waiting = new Counter();
  constructor(
    private readonly answers: Record<string, string>,
    private readonly slow: ReadonlySet<string> = new Set(),
  ) {}
  async run(call: ToolCall, signal: AbortSignal): Promise<ToolOutcome> {
    this.calls.push(call);
    if (this.slow.has(call.name)) {
      const stopped = aborted(signal);
      this.waiting.bump();
      await stopped;
      return { content: 'killed', isError: true };
    }
    const answer = this.answers[call.name];
    return answer === undefined
      ? { content: `unknown tool ${call.name}`, isError: true }
      : { content: answer, isError: false };
  }
}
