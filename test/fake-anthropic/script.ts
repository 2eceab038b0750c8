/**
 * The queue of scripted responses. Each request to `/v1/messages` that passes validation
 * takes the first queued step whose `match` fits it; with none queued it gets the default
 * answer, an echo of the last user text labelled as the scripted test model. Steps arriving
 * as JSON (the HTTP control route) are checked field by field, so a typo is an error, not a
 * silently ignored option.
 */
import { isObject } from './reject';
import { firstUserText, lastToolResultCount, lastUserText, type ApiRequest } from './request';
import type { ApiErrorType, ScriptStep } from './types';

const STOP_REASONS = [
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
];
const ERROR_TYPES: readonly ApiErrorType[] = [
  'invalid_request_error',
  'authentication_error',
  'billing_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'timeout_error',
  'api_error',
  'overloaded_error',
];

type Check = (v: unknown) => boolean;
const num: Check = (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const str: Check = (v) => typeof v === 'string';
const errorType: Check = (v) => typeof v === 'string' && (ERROR_TYPES as readonly string[]).includes(v);
const afterEvents: Check = (v) => isObject(v) && num(v.afterEvents) && Object.keys(v).every((k) => k === 'afterEvents');
const midError: Check = (v) =>
  isObject(v) &&
  num(v.afterEvents) &&
  (v.type === undefined || errorType(v.type)) &&
  (v.message === undefined || str(v.message)) &&
  Object.keys(v).every((k) => ['afterEvents', 'type', 'message'].includes(k));
const toolUses: Check = (v) =>
  Array.isArray(v) &&
  v.every((t: unknown) => isObject(t) && str(t.name) && isObject(t.input) && (t.id === undefined || str(t.id)));
const match: Check = (v) =>
  isObject(v) &&
  (v.model === undefined || str(v.model)) &&
  (v.lastUserTextIncludes === undefined || str(v.lastUserTextIncludes)) &&
  (v.firstUserTextIncludes === undefined || str(v.firstUserTextIncludes)) &&
  Object.keys(v).every((k) => ['model', 'lastUserTextIncludes', 'firstUserTextIncludes'].includes(k));

const FIELDS: Record<string, Check> = {
  delayMs: num,
  match,
  status: (v) => Number.isInteger(v) && (v as number) >= 400 && (v as number) <= 599,
  errorType,
  message: str,
  retryAfter: num,
  shouldRetry: (v) => typeof v === 'boolean',
  text: str,
  thinking: str,
  redactedThinking: (v) => typeof v === 'string' && v !== '',
  toolUses,
  toolSearch: (v) => isObject(v) && typeof v.pattern === 'string' && Object.keys(v).every((k) => k === 'pattern'),
  stopReason: (v) => typeof v === 'string' && STOP_REASONS.includes(v),
  outputTokens: num,
  deltaDelayMs: num,
  chunkChars: (v) => Number.isInteger(v) && (v as number) >= 1,
  compaction: (v) =>
    isObject(v) &&
    Object.keys(v).every((k) => k === 'summary') &&
    (v.summary === undefined || (typeof v.summary === 'string' && v.summary !== '')),
  disconnectAfterEvents: num,
  overloadedMidStream: afterEvents,
  errorMidStream: midError,
};
const ERROR_ONLY = ['errorType', 'message', 'retryAfter', 'shouldRetry'];

/** Checks steps that came as JSON; throws an Error naming the first bad field. */
export function parseSteps(value: unknown): ScriptStep[] {
  const list = isObject(value) && Array.isArray(value.steps) ? value.steps : value;
  if (!Array.isArray(list)) throw new Error('expected a JSON array of steps (or {"steps": [...]})');
  return list.map((step: unknown, i) => {
    if (!isObject(step)) throw new Error(`step ${i}: expected an object`);
    for (const [key, v] of Object.entries(step)) {
      const check = FIELDS[key];
      if (!check) throw new Error(`step ${i}: unknown field "${key}"`);
      if (v !== undefined && !check(v)) throw new Error(`step ${i}: invalid value for "${key}": ${JSON.stringify(v)}`);
    }
    const isError = step.status !== undefined;
    for (const key of Object.keys(step)) {
      if (!isError && ERROR_ONLY.includes(key)) throw new Error(`step ${i}: "${key}" needs "status"`);
      if (isError && !ERROR_ONLY.includes(key) && !['status', 'delayMs', 'match'].includes(key))
        throw new Error(`step ${i}: "${key}" cannot be combined with "status"`);
    }
    return step as unknown as ScriptStep;
  });
}

/** Whether `step` may answer `req`. */
function fits(step: ScriptStep, req: ApiRequest): boolean {
  const m = step.match;
  if (!m) return true;
  if (m.model !== undefined && m.model !== req.model) return false;
  if (m.lastUserTextIncludes !== undefined && !lastUserText(req).includes(m.lastUserTextIncludes)) return false;
  if (m.firstUserTextIncludes !== undefined && !firstUserText(req).includes(m.firstUserTextIncludes)) return false;
  return true;
}

/** Scripted steps, first in first out (skipping steps whose `match` does not fit). */
export class ScriptQueue {
  private steps: ScriptStep[] = [];

  /** Appends steps (checked as if they came as JSON). */
  push(steps: readonly ScriptStep[]): void {
    this.steps.push(...parseSteps(steps));
  }

  /** Removes and returns the first step that fits `req`, if any. */
  take(req: ApiRequest): ScriptStep | undefined {
    const i = this.steps.findIndex((s) => fits(s, req));
    return i < 0 ? undefined : this.steps.splice(i, 1)[0];
  }

  /** Steps still queued. */
  get pending(): number {
    return this.steps.length;
  }

  /** Drops every queued step. */
  clear(): void {
    this.steps = [];
  }
}

/** The answer when nothing is scripted: a short, deterministic echo of the last user text. */
export function defaultAnswerText(req: ApiRequest): string {
  const text = lastUserText(req).replace(/\s+/g, ' ').trim();
  const results = lastToolResultCount(req);
  const said = text.length > 160 ? `${text.slice(0, 157)}...` : text;
  const parts = [
    results > 0 ? `received ${results} tool result${results === 1 ? '' : 's'}` : '',
    said ? `you said: "${said}"` : '',
  ].filter(Boolean);
  return `[fake-claude scripted test model] ${parts.length ? parts.join('; ') : 'no user text'}.`;
}
