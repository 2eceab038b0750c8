/**
 * The Models API routes: `GET /v1/models` (newest first, paginated with `limit`, `after_id`,
 * `before_id`, answering `{data, has_more, first_id, last_id}`) and `GET /v1/models/{id}`
 * (one ModelInfo, or 404 `not_found_error`). Fields follow the SDK's `ModelInfo` type
 * (node_modules/@anthropic-ai/sdk/resources/models.d.ts): `max_input_tokens` is the window the
 * server enforces, `max_tokens` the model's output limit (models.ts), `capabilities` null
 * (allowed by the type: the fake does not model capabilities) — except, for one model asked
 * with the `compact-2026-09-04` beta, its `compaction` capability (compactionRequest.ts).
 */
import type { ServerResponse } from 'node:http';
import { sendJson } from './http';
import { ON_DEMAND_BETA } from './compactionRequest';
import { FAKE_MODEL, isKnownModel, maxOutputTokens, supportsOnDemandCompaction } from './models';
import { invalid, reject } from './reject';

/** The models `GET /v1/models` lists, newest first. */
export const LISTED_MODELS = [
  FAKE_MODEL,
  'claude-opus-5-5',
  'claude-sonnet-5-5',
  'claude-haiku-5-5',
  'claude-opus-4-6',
  'claude-sonnet-4-6',
  'claude-opus-4-5',
  'claude-sonnet-4-5',
  'claude-haiku-4-5',
];

/** One ModelInfo object as the API answers it. */
export function modelObject(id: string, window: number): Record<string, unknown> {
  const line = /^claude-(opus|sonnet|haiku|fable|mythos)/.exec(id)?.[1] ?? null;
  return {
    type: 'model',
    id,
    display_name: id,
    created_at: '2026-01-01T00:00:00Z',
    capabilities: null,
    deprecated_at: null,
    retires_at: null,
    lifecycle: 'active',
    line,
    max_input_tokens: window,
    max_tokens: maxOutputTokens(id),
  };
}

/** Answers `GET /v1/models…` (`path` without the query); returns false when the path is not a models route. */
export function handleModels(
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
  window: number,
  requestId: string,
  betaHeader?: string,
): boolean {
  if (path === '/v1/models') {
    const limitText = query.get('limit');
    const limit = limitText === null ? 20 : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      invalid('limit', 'limit: Input should be between 1 and 1000');
    let ids = LISTED_MODELS;
    const after = query.get('after_id');
    const before = query.get('before_id');
    if (after !== null) ids = ids.slice(ids.indexOf(after) + 1);
    if (before !== null) ids = ids.slice(0, Math.max(0, ids.indexOf(before)));
    const page = ids.slice(0, limit);
    sendJson(
      res,
      200,
      {
        data: page.map((id) => modelObject(id, window)),
        has_more: ids.length > page.length,
        first_id: page[0] ?? null,
        last_id: page.at(-1) ?? null,
      },
      { 'request-id': requestId },
    );
    return true;
  }
  const m = /^\/v1\/models\/([^/]+)$/.exec(path);
  if (!m) return false;
  const id = decodeURIComponent(m[1] ?? '');
  if (!isKnownModel(id)) reject(404, 'not_found_error', 'model', `model: ${id}`);
  // With the compaction-on-demand beta, the capability of the top-level `compaction` (SDK BetaCompactionCapability).
  const onDemand = (betaHeader ?? '').split(',').some((b) => b.trim() === ON_DEMAND_BETA);
  const supported = supportsOnDemandCompaction(id);
  const capabilities = onDemand ? { compaction: { supported, summarize: { supported } } } : null;
  sendJson(res, 200, { ...modelObject(id, window), capabilities }, { 'request-id': requestId });
  return true;
}
