/**
 * How the validators refuse a request: they throw a `RejectionError` carrying the API error
 * the server answers with. Also the small type guards the validators share.
 */
import type { ApiErrorType, Rejection } from './types';

/** Thrown by a validator; the server answers with `rejection` and records the request as invalid. */
export class RejectionError extends Error {
  constructor(readonly rejection: Rejection) {
    super(rejection.message);
    this.name = 'RejectionError';
  }
}

/** Refuses the request with a 400 `invalid_request_error` for breaking `rule`. */
export function invalid(rule: string, message: string): never {
  throw new RejectionError({ status: 400, type: 'invalid_request_error', message, rule });
}

/** Refuses the request with any status and error type. */
export function reject(status: number, type: ApiErrorType, rule: string, message: string): never {
  throw new RejectionError({ status, type, message, rule });
}

/** A JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Refuses the request unless `v` is a string; `loc` is the field's location, e.g. `messages.0.content.1.text`. */
export function requireString(v: unknown, loc: string, rule: string): string {
  if (v === undefined) invalid(rule, `${loc}: Field required`);
  if (typeof v !== 'string') invalid(rule, `${loc}: Input should be a valid string`);
  return v;
}

/** Refuses the request when `obj` has a key outside `allowed` (the API forbids extra inputs). */
export function noExtraKeys(obj: Record<string, unknown>, allowed: ReadonlySet<string>, loc: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.has(key)) invalid('extra_field', `${loc ? `${loc}.` : ''}${key}: Extra inputs are not permitted`);
  }
}
