/**
 * The API routes `POST /v1/messages` (streaming and not) and `POST /v1/messages/count_tokens`:
 * validate, count, check the window, take the next scripted step, run the prompt cache, and
 * answer — with a message, a stream, or the scripted error or fault.
 */
import type { ServerResponse } from 'node:http';
import { buildAnswer, messageBody, type Answer, type OutBlock, type ServerExtras } from './answer';
import { checkCompaction, defaultCompactionSummary, onDemandBlock } from './compactionRequest';
import { afterLastCompaction, applyClear, checkContextManagement, type AppliedEdit } from './contextManagement';
import { countTokens } from './tokenizer';
import { pause, sendApiError, sendJson } from './http';
import { minCacheableTokens } from './models';
import { layoutPrompt, type PromptLayout } from './promptLayout';
import type { ApiRequest } from './request';
import { RejectionError } from './reject';
import { writeSse, type StreamPlan } from './sse';
import type { FakeState } from './state';
import { streamEvents } from './streamEvents';
import type { ApiErrorType, AnswerStep, FakeUsage, RecordedRequest } from './types';
import { checkWindow, validateRequest, type Endpoint } from './validateRequest';

/** Answers a refused request and marks its record invalid. */
export function refuse(res: ServerResponse, rec: RecordedRequest, e: RejectionError): void {
  rec.valid = false;
  rec.error = e.rejection;
  rec.outcome = 'rejected';
  sendApiError(res, e.rejection.status, rec.requestId, { type: e.rejection.type, message: e.rejection.message });
}

const STATUS_OF: Partial<Record<ApiErrorType, number>> = {
  overloaded_error: 529,
  api_error: 500,
  rate_limit_error: 429,
  timeout_error: 504,
};

/** Handles a parsed body sent to `endpoint`; fills in `rec`. */
export async function handleMessages(
  state: FakeState,
  res: ServerResponse,
  rec: RecordedRequest,
  body: unknown,
  endpoint: Endpoint,
): Promise<void> {
  try {
    const req = validateRequest(body, endpoint);
    const edits = checkContextManagement(body as Record<string, unknown>, rec.headers['anthropic-beta']);
    // count_tokens "accepts this parameter and ignores it" (SDK MessageCountTokensParams.compaction).
    const fields = body as Record<string, unknown>;
    const ask = checkCompaction(
      endpoint === 'messages' ? fields : { ...fields, compaction: undefined },
      rec.headers['anthropic-beta'],
    );
    // What the model sees: before the last compaction block nothing counts; then the clears.
    let seen = afterLastCompaction(req);
    let layout = layoutPrompt(seen);
    const tokensBeforeEdits = layout.totalTokens;
    const appliedEdits: AppliedEdit[] = [];
    for (const e of edits) {
      if (e.type !== 'clear_tool_uses_20250919') continue;
      const r = applyClear(seen, e, layout.totalTokens);
      if (!r.applied) continue;
      seen = r.req;
      layout = layoutPrompt(seen);
      appliedEdits.push(r.applied);
    }
    rec.inputTokens = layout.totalTokens;
    if (endpoint === 'count_tokens') {
      rec.outcome = 'counted';
      sendJson(res, 200, { input_tokens: layout.totalTokens }, { 'request-id': rec.requestId });
      return;
    }
    checkWindow(layout.totalTokens, req.max_tokens, state.window);

    const step = state.script.take(req);
    if (step) rec.step = step;
    await pause(res, step?.delayMs ?? 0, state.sleep);
    if (res.destroyed) {
      rec.outcome = 'client_closed';
      return;
    }
    if (step?.status !== undefined) {
      rec.outcome = 'scripted_error';
      const { status, errorType, message, retryAfter, shouldRetry } = step;
      sendApiError(res, status, rec.requestId, {
        ...(errorType ? { type: errorType } : {}),
        ...(message ? { message } : {}),
        ...(retryAfter !== undefined ? { retryAfter } : {}),
        ...(shouldRetry !== undefined ? { shouldRetry } : {}),
      });
      return;
    }

    if (ask) {
      await answerCompaction(state, res, rec, req, layout, step);
      return;
    }
    const compact = edits.find((e) => e.type === 'compact_20260112');
    const compaction =
      compact && (layout.totalTokens >= compact.trigger || (step && step.status === undefined && step.compaction))
        ? compactionOf(
            layout.totalTokens,
            step?.status === undefined ? step?.compaction?.summary : undefined,
            `enc_${rec.requestId}`,
          )
        : undefined;
    if (compaction)
      layout = layoutPrompt({
        ...seen,
        messages: [{ role: 'user', content: [{ type: 'text', text: compaction.block.content }] }],
      });
    const cacheUsage = state.cache.process(req.model, layout, minCacheableTokens(req.model));
    const built = buildAnswer(step, req, state.ids);
    const answer = compaction ? { ...built, content: [compaction.block, ...built.content] } : built;
    const usage: FakeUsage = { ...cacheUsage, output_tokens: answer.outputTokens, service_tier: 'standard' };
    rec.usage = usage;
    const server: ServerExtras | undefined =
      body !== null && typeof body === 'object' && 'context_management' in body
        ? {
            contextManagement: { applied_edits: appliedEdits },
            ...(compaction
              ? {
                  iterations: [
                    compaction.usage,
                    {
                      type: 'message',
                      input_tokens: usage.input_tokens,
                      output_tokens: usage.output_tokens,
                      cache_read_input_tokens: usage.cache_read_input_tokens,
                      cache_creation_input_tokens: usage.cache_creation_input_tokens,
                    },
                  ],
                }
              : {}),
          }
        : undefined;
    if (server) rec.contextManagement = { appliedEdits, compacted: compaction !== undefined, tokensBeforeEdits };
    const id = state.ids.next('msg_01');
    const diagnostics = state.diagnoser.diagnose(req, layout, id);
    const plan = streamPlan(step);

    if (req.stream) {
      rec.outcome = await writeSse(
        res,
        rec.requestId,
        streamEvents(id, req.model, answer, usage, step?.chunkChars, diagnostics, server),
        plan,
        state.sleep,
      );
      return;
    }
    if (plan.disconnectAfterEvents !== undefined) {
      rec.outcome = 'disconnected';
      res.socket?.destroy();
      return;
    }
    if (plan.errorAfter) {
      rec.outcome = 'scripted_error';
      const { type, message } = plan.errorAfter;
      sendApiError(res, STATUS_OF[type] ?? 400, rec.requestId, { type, ...(message ? { message } : {}) });
      return;
    }
    rec.outcome = 'answered';
    sendJson(res, 200, messageBody(id, req.model, answer, usage, diagnostics, server), { 'request-id': rec.requestId });
  } catch (e) {
    if (e instanceof RejectionError) refuse(res, rec, e);
    else throw e;
  }
}

/**
 * Answers a compaction request: the prompt goes through the cache as any request's does; the
 * answer is the signed block alone (the scripted summary, else the fake's), its tokens the
 * output, stop reason `compaction`.
 */
async function answerCompaction(
  state: FakeState,
  res: ServerResponse,
  rec: RecordedRequest,
  req: ApiRequest,
  layout: PromptLayout,
  step: AnswerStep | undefined,
): Promise<void> {
  const summary =
    (step?.status === undefined ? step?.compaction?.summary : undefined) ??
    defaultCompactionSummary(req.messages, layout.totalTokens);
  const cacheUsage = state.cache.process(req.model, layout, minCacheableTokens(req.model));
  const answer: Answer = {
    content: [onDemandBlock(summary)],
    stopReason: 'compaction',
    outputTokens: countTokens(summary),
  };
  const usage: FakeUsage = { ...cacheUsage, output_tokens: answer.outputTokens, service_tier: 'standard' };
  rec.usage = usage;
  const id = state.ids.next('msg_01');
  if (req.stream) {
    rec.outcome = await writeSse(
      res,
      rec.requestId,
      streamEvents(id, req.model, answer, usage),
      streamPlan(step),
      state.sleep,
    );
    return;
  }
  rec.outcome = 'answered';
  sendJson(res, 200, messageBody(id, req.model, answer, usage), { 'request-id': rec.requestId });
}

/** The compaction block and its iteration usage: the whole prompt read, the summary written. */
function compactionOf(
  promptTokens: number,
  summary: string | undefined,
  enc: string,
): { block: Extract<OutBlock, { type: 'compaction' }>; usage: Record<string, unknown> } {
  const content =
    summary ?? `Summary of the conversation so far (${promptTokens} tokens compacted by the fake server).`;
  return {
    block: { type: 'compaction', content, encrypted_content: enc },
    usage: {
      type: 'compaction',
      input_tokens: promptTokens,
      output_tokens: countTokens(content),
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    },
  };
}

function streamPlan(step: AnswerStep | undefined): StreamPlan {
  if (!step) return {};
  const mid =
    step.errorMidStream ??
    (step.overloadedMidStream ? { afterEvents: step.overloadedMidStream.afterEvents } : undefined);
  return {
    ...(step.deltaDelayMs !== undefined ? { deltaDelayMs: step.deltaDelayMs } : {}),
    ...(step.disconnectAfterEvents !== undefined ? { disconnectAfterEvents: step.disconnectAfterEvents } : {}),
    ...(mid
      ? {
          errorAfter: {
            afterEvents: mid.afterEvents,
            type: mid.type ?? 'overloaded_error',
            ...(mid.message ? { message: mid.message } : {}),
          },
        }
      : {}),
  };
}
