/**
 * The control routes under `/_fake/` (never under `/v1/`, so they cannot be mistaken for API
 * routes; they need no API key and are not recorded as requests):
 *
 * - `POST /_fake/script`   body: a JSON array of steps (or `{"steps": [...]}`) → `{queued, pending}`
 * - `GET  /_fake/requests` → `{requests}`; `?invalid=1` lists only the invalid ones
 * - `POST /_fake/reset`    → `{ok: true}`
 * - `POST /_fake/window`   body: `{"window": n}` → `{window}`
 * - `POST /_fake/clock`    body: `{"advanceMs": n}` → `{now}` (moves the cache's clock forward)
 * - `GET  /_fake/cache`    → cache statistics
 * - `GET  /_fake/health`   → `{ok, model, window, pendingSteps, requests}`
 */
import type { ServerResponse } from 'node:http';
import { sendJson } from './http';
import { FAKE_MODEL } from './models';
import { isObject } from './reject';
import { parseSteps } from './script';
import type { FakeState } from './state';

/** The prefix of every control route. */
export const CONTROL_PREFIX = '/_fake/';

function parse(raw: string): unknown {
  return raw.trim() === '' ? {} : JSON.parse(raw);
}

/** Handles a control request; answers 400 with `{error}` on bad input and 404 on an unknown route. */
export function handleControl(state: FakeState, res: ServerResponse, method: string, url: URL, raw: string): void {
  const route = `${method} ${url.pathname}`;
  try {
    switch (route) {
      case 'POST /_fake/script': {
        const steps = parseSteps(parse(raw));
        state.script.push(steps);
        return sendJson(res, 200, { queued: steps.length, pending: state.script.pending });
      }
      case 'GET /_fake/requests': {
        const onlyInvalid = url.searchParams.get('invalid') === '1';
        return sendJson(res, 200, { requests: state.requests.filter((r) => !onlyInvalid || !r.valid) });
      }
      case 'POST /_fake/reset':
        state.reset();
        return sendJson(res, 200, { ok: true });
      case 'POST /_fake/window': {
        const body = parse(raw);
        if (!isObject(body) || typeof body.window !== 'number')
          throw new Error('expected {"window": <positive integer>}');
        state.setWindow(body.window);
        return sendJson(res, 200, { window: state.window });
      }
      case 'POST /_fake/clock': {
        const body = parse(raw);
        if (!isObject(body) || typeof body.advanceMs !== 'number' || body.advanceMs < 0)
          throw new Error('expected {"advanceMs": <non-negative number>}');
        state.advanceClock(body.advanceMs);
        return sendJson(res, 200, { now: state.now() });
      }
      case 'GET /_fake/cache':
        return sendJson(res, 200, state.cacheStats());
      case 'GET /_fake/health':
        return sendJson(res, 200, {
          ok: true,
          model: FAKE_MODEL,
          window: state.window,
          pendingSteps: state.script.pending,
          requests: state.requests.length,
        });
      default:
        return sendJson(res, 404, { error: `no control route ${route}` });
    }
  } catch (e) {
    sendJson(res, 400, { error: e instanceof Error ? e.message : String(e) });
  }
}
