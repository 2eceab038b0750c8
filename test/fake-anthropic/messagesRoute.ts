/**
 * The API routes `POST /v1/messages` (streaming and not) and `POST /v1/messages/count_tokens`:
 * validate, count, check the window, take the next scripted step, run the prompt cache, and
 * answer — with a message, a stream, or the scripted error or fault.
 */
import type { ServerResponse } from 'node:http';
import { buildAnswer, messageBody } from './answer';
import { pause, sendApiError, sendJson } from './http';
import { minCacheableTokens } from './models';
import { layoutPrompt } from './promptLayout';
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

const STATUS_OF: Partial<Record<ApiErrorType, number>> = { overloaded_error: 529, api_error: 500, rate_limit_error: 429, timeout_error: 504 };

/** Handles a parsed body sent to `endpoint`; fills in `rec`. */
export async function handleMessages(state: FakeState, res: ServerResponse, rec: RecordedRequest, body: unknown, endpoint: Endpoint): Promise<void> {
  try {
    const req = validateRequest(body, endpoint);
    const layout = layoutPrompt(req);
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
      sendApiError(res, status, rec.requestId, { ...(errorType ? { type: errorType } : {}), ...(message ? { message } : {}), ...(retryAfter !== undefined ? { retryAfter } : {}), ...(shouldRetry !== undefined ? { shouldRetry } : {}) });
      return;
    }

    const cacheUsage = state.cache.process(req.model, layout, minCacheableTokens(req.model));
    const answer = buildAnswer(step, req, state.ids);
    const usage: FakeUsage = { ...cacheUsage, output_tokens: answer.outputTokens, service_tier: 'standard' };
    rec.usage = usage;
    const id = state.ids.next('msg_01');
    const diagnostics = state.diagnoser.diagnose(req, layout, id);
    const plan = streamPlan(step);

    if (req.stream) {
      rec.outcome = await writeSse(res, rec.requestId, streamEvents(id, req.model, answer, usage, step?.chunkChars, diagnostics), plan, state.sleep);
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
    sendJson(res, 200, messageBody(id, req.model, answer, usage, diagnostics), { 'request-id': rec.requestId });
  } catch (e) {
    if (e instanceof RejectionError) refuse(res, rec, e);
    else throw e;
  }
}

function streamPlan(step: AnswerStep | undefined): StreamPlan {
  if (!step) return {};
  const mid = step.errorMidStream ?? (step.overloadedMidStream ? { afterEvents: step.overloadedMidStream.afterEvents } : undefined);
  return {
    ...(step.deltaDelayMs !== undefined ? { deltaDelayMs: step.deltaDelayMs } : {}),
    ...(step.disconnectAfterEvents !== undefined ? { disconnectAfterEvents: step.disconnectAfterEvents } : {}),
    ...(mid ? { errorAfter: { afterEvents: mid.afterEvents, type: mid.type ?? 'overloaded_error', ...(mid.message ? { message: mid.message } : {}) } } : {}),
  };
}
