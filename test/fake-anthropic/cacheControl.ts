/**
 * `cache_control` markers: checking one where it appears, and listing all of a request's
 * breakpoints in the API's processing order (tools → system → messages → top-level automatic
 * caching), with the two request-wide rules: at most 4 breakpoints, and no `1h` after a `5m`.
 */
import { blocksOf, type ApiRequest } from './request';
import { invalid, isObject } from './reject';

/** Cache lifetime of a breakpoint. */
export type CacheTtl = '5m' | '1h';

/** The most breakpoints one request may carry. */
export const MAX_BREAKPOINTS = 4;

/** Checks the `cache_control` value of the object at `loc`; returns its TTL, or undefined when absent. */
export function checkCacheControl(value: unknown, loc: string): CacheTtl | undefined {
  if (value === undefined || value === null) return undefined;
  const where = `${loc ? `${loc}.` : ''}cache_control`;
  if (!isObject(value)) invalid('cache_control_type', `${where}: Input should be a valid dictionary`);
  if (value.type !== 'ephemeral') {
    invalid(
      'cache_control_type',
      `${where}: Input tag '${String(value.type)}' found using 'type' does not match any of the expected tags: 'ephemeral'`,
    );
  }
  for (const key of Object.keys(value)) {
    if (key !== 'type' && key !== 'ttl')
      invalid('cache_control_type', `${where}.ephemeral.${key}: Extra inputs are not permitted`);
  }
  if (value.ttl === undefined) return '5m';
  if (value.ttl !== '5m' && value.ttl !== '1h')
    invalid('cache_control_type', `${where}.ephemeral.ttl: Input should be '5m' or '1h'`);
  return value.ttl;
}

/** The TTL of an object's (already checked) `cache_control`, or undefined. */
export function ttlOf(obj: object): CacheTtl | undefined {
  const cc: unknown = (obj as { cache_control?: unknown }).cache_control;
  if (!isObject(cc)) return undefined;
  return cc.ttl === '1h' ? '1h' : '5m';
}

/** Every breakpoint of a request, in processing order. */
export function breakpointTtls(req: ApiRequest): CacheTtl[] {
  const out: CacheTtl[] = [];
  const add = (obj: object): void => {
    const ttl = ttlOf(obj);
    if (ttl) out.push(ttl);
  };
  for (const t of req.tools ?? []) add(t);
  if (Array.isArray(req.system)) for (const b of req.system) add(b);
  for (const m of req.messages) {
    for (const b of blocksOf(m)) {
      add(b);
      if (b.type === 'tool_result' && Array.isArray(b.content)) for (const inner of b.content) add(inner);
    }
  }
  if (req.cache_control) add(req);
  return out;
}

/** Refuses more than 4 breakpoints, or a `1h` breakpoint after a `5m` one. */
export function checkBreakpoints(req: ApiRequest): void {
  const ttls = breakpointTtls(req);
  if (ttls.length > MAX_BREAKPOINTS) {
    invalid(
      'cache_control_limit',
      `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${ttls.length}.`,
    );
  }
  const first5m = ttls.indexOf('5m');
  if (first5m >= 0 && ttls.indexOf('1h', first5m) >= 0) {
    invalid(
      'cache_control_ttl_order',
      "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the following order: `tools`, `system`, `messages`.",
    );
  }
}
