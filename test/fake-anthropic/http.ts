/**
 * HTTP plumbing of the fake server: reading a body, answering JSON, and answering an API
 * error the way the API does — body `{"type":"error","error":{type,message},"request_id"}`,
 * a `request-id` header, `x-should-retry`, and `retry-after` when given.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiErrorType } from './types';

/** Reads the whole request body as UTF-8. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Resolves after `sleep(ms)` (skipped when `ms` is not positive) or as soon as the client has
 * gone, whichever is first: a response held back is never held for a client that left, and
 * the sleep's signal tells it to drop its timer (a long delay then keeps no process alive).
 */
export function pause(
  res: ServerResponse,
  ms: number,
  sleep: (ms: number, signal: AbortSignal) => Promise<void>,
): Promise<void> {
  if (ms <= 0 || res.destroyed) return Promise.resolve();
  const gone = new AbortController();
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('close', left);
      resolve();
    };
    const left = () => {
      gone.abort();
      done();
    };
    res.once('close', left);
    sleep(ms, gone.signal).then(done, done);
  });
}

/** Answers `status` with a JSON body and extra headers. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The error type the API uses for an HTTP status. */
export function errorTypeFor(status: number): ApiErrorType {
  const known: Record<number, ApiErrorType> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    402: 'billing_error',
    403: 'permission_error',
    404: 'not_found_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    504: 'timeout_error',
    529: 'overloaded_error',
  };
  return known[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** A generic message for an error type. */
export function defaultErrorMessage(type: ApiErrorType): string {
  const messages: Record<ApiErrorType, string> = {
    invalid_request_error: 'Invalid request',
    authentication_error: 'invalid x-api-key',
    billing_error: 'Your credit balance is too low to access the Anthropic API.',
    permission_error: 'Your API key does not have permission to use the specified resource.',
    not_found_error: 'Not found',
    request_too_large: 'Request exceeds the maximum allowed number of bytes.',
    rate_limit_error:
      'Number of request tokens has exceeded your per-minute rate limit (fake-claude scripted test model)',
    timeout_error: 'Request timeout',
    api_error: 'Internal server error',
    overloaded_error: 'Overloaded',
  };
  return messages[type];
}

/** The JSON body of an API error. */
export function errorBody(type: ApiErrorType, message: string, requestId: string): Record<string, unknown> {
  return { type: 'error', error: { type, message }, request_id: requestId };
}

/** Whether the SDK should retry: the API says yes for 408, 409, 429 and 5xx. */
export function defaultShouldRetry(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Options of `sendApiError`. */
export interface ApiErrorOptions {
  readonly type?: ApiErrorType;
  readonly message?: string;
  readonly retryAfter?: number;
  readonly shouldRetry?: boolean;
}

/** Answers an API error with the API's body and headers. */
export function sendApiError(res: ServerResponse, status: number, requestId: string, opts: ApiErrorOptions = {}): void {
  const type = opts.type ?? errorTypeFor(status);
  const headers: Record<string, string> = {
    'request-id': requestId,
    'x-should-retry': String(opts.shouldRetry ?? defaultShouldRetry(status)),
  };
  if (opts.retryAfter !== undefined) headers['retry-after'] = String(opts.retryAfter);
  sendJson(res, status, errorBody(type, opts.message ?? defaultErrorMessage(type), requestId), headers);
}
