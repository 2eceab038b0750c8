/**
 * Cache diagnostics as the API documents them
 * (https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics; SDK 1.12.0 types
 * `DiagnosticsParam`, `Diagnostics`, `CacheMissReason`): a request with a `diagnostics` object
 * stores a fingerprint under its response id; a later request naming that id in
 * `diagnostics.previous_message_id` gets `diagnostics.cache_miss_reason` for the first point
 * where the two diverge — model, tools, system, then messages edited before the end (appending
 * is not a divergence) — with `cache_missed_input_tokens`, or `unavailable` when only other
 * prompt-shaping parameters (thinking, tool_choice) differ, or `previous_message_not_found`.
 * Nothing diverged (or `previous_message_id: null`): `diagnostics: null`. Requests without the
 * object get no `diagnostics` field and store nothing. Like the API, it is structural: a TTL
 * expiry is not reported. Token estimates are the fake tokenizer's.
 */
import { invalid, isObject, noExtraKeys } from './reject';
import type { PromptLayout } from './promptLayout';
import type { ApiRequest } from './request';

interface Fingerprint {
  readonly model: string;
  readonly tools: string;
  readonly system: string;
  readonly params: string;
  readonly messages: readonly string[];
  /** Tokens of the tools, of the system blocks, and of each message. */
  readonly toolsTokens: number;
  readonly systemTokens: number;
  readonly messageTokens: readonly number[];
}

/** The `cache_miss_reason` values the fake returns. */
export type FakeCacheMissReason =
  | {
      readonly type: 'model_changed' | 'system_changed' | 'tools_changed' | 'messages_changed';
      readonly cache_missed_input_tokens: number;
    }
  | { readonly type: 'previous_message_not_found' | 'unavailable' };

const DIAGNOSTICS_FIELDS = new Set(['previous_message_id']);

/** Checks a request's `diagnostics` the way the API's schema does (object; `previous_message_id` string or null). */
export function checkDiagnostics(d: unknown): void {
  if (d === undefined || d === null) return;
  if (!isObject(d)) invalid('diagnostics', 'diagnostics: Input should be a valid dictionary');
  noExtraKeys(d, DIAGNOSTICS_FIELDS, 'diagnostics');
  const id = d.previous_message_id;
  if (id !== undefined && id !== null && typeof id !== 'string')
    invalid('diagnostics', 'diagnostics.previous_message_id: Input should be a valid string');
}

const noCacheControl = (x: unknown) =>
  JSON.stringify(x ?? null, (k, v: unknown) => (k === 'cache_control' ? undefined : v));

function fingerprint(req: ApiRequest & { readonly diagnostics?: unknown }, layout: PromptLayout): Fingerprint {
  const tokens = (prefix: string) =>
    layout.blocks.filter((b) => b.loc.startsWith(prefix)).reduce((n, b) => n + b.tokens, 0);
  const system = typeof req.system === 'string' ? [{ type: 'text', text: req.system }] : (req.system ?? []);
  return {
    model: req.model,
    tools: noCacheControl(req.tools ?? []),
    system: noCacheControl(system),
    params: JSON.stringify({ thinking: req.thinking ?? null, tool_choice: req.tool_choice ?? null }),
    messages: req.messages.map(noCacheControl),
    toolsTokens: tokens('tools.'),
    systemTokens: tokens('system.'),
    messageTokens: req.messages.map((_, i) => tokens(`messages.${i}.`)),
  };
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

function compare(prev: Fingerprint, cur: Fingerprint): FakeCacheMissReason | null {
  const total = prev.toolsTokens + prev.systemTokens + sum(prev.messageTokens);
  if (prev.model !== cur.model) return { type: 'model_changed', cache_missed_input_tokens: total };
  if (prev.tools !== cur.tools) return { type: 'tools_changed', cache_missed_input_tokens: total };
  if (prev.system !== cur.system)
    return { type: 'system_changed', cache_missed_input_tokens: total - prev.toolsTokens };
  const edited = prev.messages.findIndex((m, i) => cur.messages[i] !== m);
  if (edited >= 0)
    return {
      type: 'messages_changed',
      cache_missed_input_tokens:
        total - prev.toolsTokens - prev.systemTokens - sum(prev.messageTokens.slice(0, edited)),
    };
  if (prev.params !== cur.params) return { type: 'unavailable' };
  return null;
}

/** Stored fingerprints, by response id. */
export class CacheDiagnoser {
  private readonly stored = new Map<string, Fingerprint>();

  /**
   * The `diagnostics` value of the response `id` to `req` (undefined: the request had no
   * `diagnostics`, so the response has no such field), storing the request's fingerprint.
   */
  diagnose(
    req: ApiRequest & { readonly diagnostics?: unknown },
    layout: PromptLayout,
    id: string,
  ): { cache_miss_reason: FakeCacheMissReason } | null | undefined {
    const d = req.diagnostics;
    if (!isObject(d)) return undefined;
    const cur = fingerprint(req, layout);
    this.stored.set(id, cur);
    const prevId = d.previous_message_id;
    if (typeof prevId !== 'string') return null;
    const prev = this.stored.get(prevId);
    if (!prev) return { cache_miss_reason: { type: 'previous_message_not_found' } };
    const reason = compare(prev, cur);
    return reason ? { cache_miss_reason: reason } : null;
  }

  /** Forgets every fingerprint. */
  clear(): void {
    this.stored.clear();
  }
}
