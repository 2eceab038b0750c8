/**
 * The fake Anthropic Messages API server: real HTTP on 127.0.0.1. Routes `/v1/…` are the API
 * (key and `anthropic-version` checked, every request recorded and logged); `/_fake/…` are the
 * control routes. `startFakeAnthropic` returns the handle tests drive it with in-process.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTROL_PREFIX, handleControl } from './control';
import { readBody, sendApiError } from './http';
import { handleMessages, refuse } from './messagesRoute';
import { handleModels } from './modelsRoute';
import { invalid, isObject, reject, RejectionError } from './reject';
import { FakeState, type FakeAnthropicOptions } from './state';
import type { CacheStats, RecordedRequest, ScriptStep } from './types';

/** `anthropic-version` values the server knows; any later well-formed date is accepted too (newer SDKs). */
export const SUPPORTED_VERSIONS = ['2023-01-01', '2023-06-01', '2026-10-21'];

function isSupportedVersion(v: string): boolean {
  return (
    SUPPORTED_VERSIONS.includes(v) ||
    (/^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)) && v > '2023-06-01')
  );
}

const RECORDED_HEADERS = [
  'anthropic-version',
  'anthropic-beta',
  'x-stainless-retry-count',
  'x-stainless-helper-method',
];

/** A running fake server. */
export interface FakeAnthropic {
  /** Base URL for the SDK's `baseURL`, e.g. `http://127.0.0.1:43121`. */
  readonly url: string;
  readonly port: number;
  /** Queues scripted responses, one per `/v1/messages` request that passes validation. */
  script(...steps: ScriptStep[]): void;
  /** Steps still queued. */
  readonly pendingSteps: number;
  /**
   * The `POST /v1/messages` requests received, oldest first (with body, validity, token
   * count, usage): the conversation as the model saw it.
   */
  readonly requests: readonly RecordedRequest[];
  /** Every API request received (also `count_tokens` and the Models API), oldest first. */
  readonly allRequests: readonly RecordedRequest[];
  /** Any API request the server refused for its own fault (`valid: false`). */
  readonly invalidRequests: readonly RecordedRequest[];
  /** The context window enforced now. */
  readonly window: number;
  setWindow(tokens: number): void;
  /** The server's time (the clock plus any advance). */
  now(): number;
  /** Moves the server's time forward, e.g. past a prompt-cache TTL. */
  advanceClock(ms: number): void;
  cacheStats(): CacheStats;
  /**
   * Resolves once no API request is being handled: every request received so far has its
   * outcome recorded (e.g. `client_closed` after the client gave up). Tests await it instead
   * of sleeping before they read `requests`.
   */
  idle(): Promise<void>;
  /** Back to the start: no script, no records, empty cache, initial window, clock offset 0. */
  reset(): void;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

function recordedHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of RECORDED_HEADERS) {
    const v = req.headers[name];
    if (typeof v === 'string') out[name] = v;
  }
  return out;
}

function checkAuth(state: FakeState, req: IncomingMessage): void {
  const header = req.headers['x-api-key'];
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const key = (typeof header === 'string' ? header : undefined) || bearer;
  if (!key) reject(401, 'authentication_error', 'authentication', 'x-api-key header is required');
  if (state.apiKey !== undefined && key !== state.apiKey)
    reject(401, 'authentication_error', 'authentication', 'invalid x-api-key');
}

function checkVersion(req: IncomingMessage): void {
  const v = req.headers['anthropic-version'];
  if (typeof v !== 'string' || v === '') invalid('anthropic_version', 'anthropic-version: header is required');
  if (!isSupportedVersion(v)) invalid('anthropic_version', `anthropic-version: invalid version "${v}"`);
}

function parseJson(raw: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

async function handleApi(
  state: FakeState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  raw: string,
  query: URLSearchParams,
): Promise<void> {
  state.started();
  try {
    await answerApi(state, req, res, path, raw, query);
  } finally {
    state.finished();
  }
}

async function answerApi(
  state: FakeState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  raw: string,
  query: URLSearchParams,
): Promise<void> {
  const parsed = parseJson(raw);
  const body = parsed.ok ? parsed.value : raw;
  const rec = state.record({
    method: req.method ?? 'GET',
    path,
    requestId: state.ids.next('req_011'),
    headers: recordedHeaders(req),
    body,
    stream: isObject(body) && body.stream === true,
    valid: true,
  });
  try {
    checkAuth(state, req);
    checkVersion(req);
    const route = `${req.method} ${path}`;
    if (
      req.method === 'GET' &&
      handleModels(res, path, query, state.window, rec.requestId, rec.headers['anthropic-beta'])
    ) {
      rec.outcome = 'answered';
      return;
    }
    const endpoint =
      route === 'POST /v1/messages'
        ? 'messages'
        : route === 'POST /v1/messages/count_tokens'
          ? 'count_tokens'
          : undefined;
    if (!endpoint) reject(404, 'not_found_error', 'route', 'Not Found');
    if (!parsed.ok) invalid('body_json', `There was an error parsing the body of your request: ${parsed.error}`);
    await handleMessages(state, res, rec, body, endpoint);
  } catch (e) {
    if (!(e instanceof RejectionError)) throw e;
    refuse(res, rec, e);
  } finally {
    state.log(rec);
  }
}

async function handle(state: FakeState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const raw = await readBody(req);
  if (url.pathname.startsWith(CONTROL_PREFIX)) return handleControl(state, res, req.method ?? 'GET', url, raw);
  if (!url.pathname.startsWith('/v1/'))
    return sendApiError(res, 404, state.ids.next('req_011'), { type: 'not_found_error', message: 'Not Found' });
  return handleApi(state, req, res, url.pathname, raw, url.searchParams);
}

/** Starts a fake Anthropic API on 127.0.0.1 (a free port unless `port` is given). */
export async function startFakeAnthropic(opts: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const state = new FakeState(opts);
  const server = createServer((req, res) => {
    handle(state, req, res).catch((e: unknown) => {
      process.stderr.write(`fake-anthropic: ${e instanceof Error ? e.stack : String(e)}\n`);
      if (!res.headersSent) sendApiError(res, 500, 'req_011FakeInternal', { message: 'fake-anthropic internal error' });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    script: (...steps) => state.script.push(steps),
    get pendingSteps() {
      return state.script.pending;
    },
    get requests() {
      return state.requests.filter((r) => r.method === 'POST' && r.path === '/v1/messages');
    },
    get allRequests() {
      return state.requests;
    },
    get invalidRequests() {
      return state.requests.filter((r) => !r.valid);
    },
    get window() {
      return state.window;
    },
    setWindow: (tokens) => state.setWindow(tokens),
    now: () => state.now(),
    advanceClock: (ms) => state.advanceClock(ms),
    cacheStats: () => state.cacheStats(),
    idle: () => state.idle(),
    reset: () => state.reset(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
