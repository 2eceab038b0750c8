/**
 * Writes a streamed answer as server-sent events, with the scripted faults: a delay between
 * events, the socket destroyed after N events, or an SSE `error` event after N events (the
 * way the API reports `overloaded_error` once a stream has started).
 */
import type { ServerResponse } from 'node:http';
import { defaultErrorMessage, errorBody, pause } from './http';
import type { SseEvent } from './streamEvents';
import type { ApiErrorType, Outcome } from './types';

/** Faults and pacing of one stream. */
export interface StreamPlan {
  readonly deltaDelayMs?: number;
  readonly disconnectAfterEvents?: number;
  readonly errorAfter?: { readonly afterEvents: number; readonly type: ApiErrorType; readonly message?: string };
}

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function write(res: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve) => {
    res.write(text, () => resolve());
  });
}

/** Streams `events` (and the plan's faults), pacing them with `sleep`; resolves with what happened. */
export async function writeSse(
  res: ServerResponse,
  requestId: string,
  events: readonly SseEvent[],
  plan: StreamPlan,
  sleep: (ms: number, signal: AbortSignal) => Promise<void>,
): Promise<Outcome> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': requestId,
  });
  res.flushHeaders();
  for (let i = 0; i <= events.length; i++) {
    if (res.destroyed) return 'client_closed';
    if (plan.disconnectAfterEvents === i) {
      res.socket?.destroy();
      return 'disconnected';
    }
    if (plan.errorAfter?.afterEvents === i) {
      const { type, message } = plan.errorAfter;
      await write(res, frame('error', errorBody(type, message ?? defaultErrorMessage(type), requestId)));
      res.end();
      return 'stream_error';
    }
    const e = events[i];
    if (!e) break;
    if (i > 0) await pause(res, plan.deltaDelayMs ?? 0, sleep);
    if (res.destroyed) return 'client_closed';
    await write(res, frame(e.event, e.data));
  }
  res.end();
  return 'answered';
}
