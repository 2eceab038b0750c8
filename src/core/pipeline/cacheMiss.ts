/**
 * Why the prompt cache missed: the API's own diagnosis when it gives one, else our attribution
 * from the difference between the previous request and this one. Pure.
 *
 * The API side (verified 2026-11 against @anthropic-ai/sdk 1.12.0 `resources/messages/messages.d.ts`:
 * `DiagnosticsParam`, `Diagnostics`, `CacheMissReason`, and the guide
 * https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics): a request carrying
 * `diagnostics: { previous_message_id }` (null on the first turn, to opt in) gets back
 * `diagnostics.cache_miss_reason`, one of `model_changed` | `system_changed` | `tools_changed` |
 * `messages_changed` (each with `cache_missed_input_tokens`, an approximation) |
 * `previous_message_not_found` | `unavailable` (e.g. `thinking` or `tool_choice` differ), or null
 * while the comparison is pending; `diagnostics` itself is null when nothing diverged. The
 * comparison is structural: it says nothing about a TTL expiry, so a miss with no divergence is
 * attributed here. The sources disagree on the beta header: the English guide as crawled says
 * beta (`cache-diagnosis-2026-04-07`); the newer localized guides mark it GA with the header no
 * longer needed, and the SDK has `diagnostics` on the non-beta `MessageCreateParams`, which is what
 * we send (no header).
 */
import { usualWriteTtl } from '../cache/usualWriteTtl';
import { ttlMs } from '../cache/cacheAnchors';
import type { CacheTtl, ConversationState, Message } from '../conversation/conversationModel';
import type { PreparedRequest } from './pipeline';
import { serializeMessage, serializeSystem, serializeTools } from './serialize';
import type { ApiCacheMissReason } from '../llm/llmClient';

/** Why a request read less from the cache than the previous one had cached. */
export type CacheMissCause =
  | 'ttl_expired'
  | 'model_changed'
  | 'tools_changed'
  | 'system_changed'
  | 'params_changed'
  | 'message_edited'
  | 'below_minimum'
  | 'unknown';

/** One explained miss, as stored with the request's usage and shown in the budget panel. */
export interface CacheMiss {
  readonly cause: CacheMissCause;
  /** Tokens that were not read although the previous request had cached them (the API's estimate when `source` is `api`). */
  readonly missedTokens: number;
  /** `api`: the API's cache diagnostics named the cause; `ledger`: our own comparison. */
  readonly source: 'api' | 'ledger';
  /** One line for a person: which message changed, how long the gap was, … */
  readonly detail: string;
}

/** What is compared between two requests (messages by identity first, their serialised form second). */
export interface RequestFingerprint {
  readonly model: string;
  readonly tools: string;
  readonly system: string;
  /** Other prompt-shaping parameters (thinking, tool_choice, output_config). */
  readonly params: string;
  readonly messages: readonly Message[];
  /** When it was sent, on the session clock. */
  readonly at: number;
  readonly ttl: CacheTtl;
  readonly minCacheableTokens: number;
  /** Whether the request carried any cache breakpoint. */
  readonly anchored: boolean;
}

/** Cache figures of a request's usage. */
export interface CacheUsage {
  readonly input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation_input_tokens: number;
}

/** The fingerprint of a prepared request sent at `at`. */
export function fingerprintOf(
  prepared: Pick<PreparedRequest, 'sent' | 'params' | 'anchors' | 'lastBreakpoint'>,
  at: number,
): RequestFingerprint {
  const s: ConversationState = prepared.sent;
  const p = prepared.params;
  return {
    model: p.model,
    tools: JSON.stringify(serializeTools(s.tools)),
    system: JSON.stringify(serializeSystem(s.system)),
    params: JSON.stringify({
      thinking: p.thinking ?? null,
      tool_choice: p.tool_choice ?? null,
      output_config: p.output_config ?? null,
    }),
    messages: s.messages,
    at,
    ttl: prepared.lastBreakpoint?.ttl ?? usualWriteTtl(s.config.cacheTtl),
    minCacheableTokens: s.config.minCacheableTokens,
    anchored: prepared.anchors.length > 0,
  };
}

/** What {@link explainCacheMiss} compares. */
export interface CacheMissInput {
  readonly previous?: { readonly fingerprint: RequestFingerprint; readonly usage: CacheUsage };
  readonly current: RequestFingerprint;
  readonly usage: CacheUsage;
  /** The API's diagnosis: undefined when it gave none (not asked, nothing diverged, or pending). */
  readonly api?: ApiCacheMissReason;
  /** What changed the history since the previous request (e.g. `compaction c3 (summarise)`), newest last. */
  readonly changes?: readonly string[];
}

/**
 * Explains a cache miss, or returns undefined when there was none to explain. A miss: the
 * previous request cached N prompt tokens (its reads + writes, as the API reported them) and
 * this one read fewer; or the previous request placed breakpoints, nothing was written or
 * read, and its whole prompt was under the model's minimum cacheable length (`below_minimum`).
 * The API's reason wins when it names one (model, system, tools, messages); otherwise, in
 * order: the TTL ran out between the two requests, the model, the tools, the system prompt,
 * the other parameters, the first message that differs, else `unknown` (evicted, or beyond
 * the 20-block lookback). O(messages); a message is serialised only when its object changed.
 */
export function explainCacheMiss(input: CacheMissInput): CacheMiss | undefined {
  const prev = input.previous;
  if (!prev) return undefined;
  const expected = prev.usage.cache_read_input_tokens + prev.usage.cache_creation_input_tokens;
  const read = input.usage.cache_read_input_tokens;
  if (expected === 0) {
    const prompt = prev.usage.input_tokens + expected;
    if (prev.fingerprint.anchored && read === 0 && prompt < prev.fingerprint.minCacheableTokens) {
      return {
        cause: 'below_minimum',
        missedTokens: 0,
        source: 'ledger',
        detail: `the prompt (${prompt} tokens) is under the model's minimum of ${prev.fingerprint.minCacheableTokens} cacheable tokens, so nothing was cached`,
      };
    }
    return undefined;
  }
  if (read >= expected) return undefined;
  const missed = expected - read;
  const edit = firstEditedMessage(prev.fingerprint.messages, input.current.messages);
  const because = input.changes && input.changes.length > 0 ? ` after ${input.changes.join(', ')}` : '';
  const api = input.api;
  if (api && 'cache_missed_input_tokens' in api) {
    const cause: CacheMissCause = api.type === 'messages_changed' ? 'message_edited' : api.type;
    const detail = cause === 'message_edited' ? `${edit ?? 'an earlier message changed'}${because}` : LABELS[cause];
    return { cause, missedTokens: api.cache_missed_input_tokens, source: 'api', detail };
  }
  const cur = input.current;
  const gap = cur.at - prev.fingerprint.at;
  if (gap >= ttlMs(prev.fingerprint.ttl))
    return ours(
      'ttl_expired',
      missed,
      `${Math.round(gap / 60_000)} min since the previous request, over the ${prev.fingerprint.ttl} cache lifetime`,
    );
  if (cur.model !== prev.fingerprint.model)
    return ours('model_changed', missed, `${prev.fingerprint.model} → ${cur.model}`);
  if (cur.tools !== prev.fingerprint.tools) return ours('tools_changed', missed, LABELS.tools_changed);
  if (cur.system !== prev.fingerprint.system) return ours('system_changed', missed, LABELS.system_changed);
  if (cur.params !== prev.fingerprint.params) return ours('params_changed', missed, LABELS.params_changed);
  if (edit) return ours('message_edited', missed, `${edit}${because}`);
  return ours(
    'unknown',
    missed,
    `nothing before the previous breakpoint changed${api ? ` (the API: ${api.type.replace(/_/g, ' ')})` : ''}; the entry may have been evicted`,
  );
}

function ours(cause: CacheMissCause, missedTokens: number, detail: string): CacheMiss {
  return { cause, missedTokens, source: 'ledger', detail };
}

/** The first message of `before` that `after` no longer holds unchanged, named for a person (undefined: none). */
function firstEditedMessage(before: readonly Message[], after: readonly Message[]): string | undefined {
  for (let i = 0; i < before.length; i++) {
    const b = before[i] as Message;
    const a = after[i];
    if (a === b) continue;
    if (!a) return `message ${i + 1} (turn ${b.turn}, ${b.role}) was removed`;
    if (a.id === b.id && JSON.stringify(serializeMessage(a)) === JSON.stringify(serializeMessage(b))) continue;
    return `message ${i + 1} (turn ${b.turn}, ${b.role}) changed`;
  }
  return undefined;
}

/** What each cause means, in a few words. */
export const LABELS: Readonly<Record<CacheMissCause, string>> = {
  ttl_expired: 'the cache entry expired',
  model_changed: 'the model changed',
  tools_changed: 'the tool definitions changed',
  system_changed: 'the system prompt changed',
  params_changed: 'the thinking or tool-choice setting changed',
  message_edited: 'an earlier message changed',
  below_minimum: 'the prompt is under the minimum cacheable length',
  unknown: 'no change found',
};

/** One line for the request table, e.g. `system prompt changed · 12,400 tokens missed (API)`. */
export function describeCacheMiss(m: CacheMiss): string {
  const tokens = m.missedTokens > 0 ? ` · ${m.missedTokens.toLocaleString('en-US')} tokens missed` : '';
  return `${m.detail}${tokens}${m.source === 'api' ? ' (API)' : ''}`;
}

/**
 * The health warning after repeated misses, naming their causes (most frequent first, each
 * with its latest detail). `misses`: the explanations of the streak, undefined where none was found.
 */
export function cacheMissWarning(misses: readonly (CacheMiss | undefined)[]): string {
  const counts = new Map<CacheMissCause, { n: number; last?: CacheMiss }>();
  for (const m of misses) {
    const cause = m?.cause ?? 'unknown';
    const c = counts.get(cause) ?? { n: 0 };
    counts.set(cause, { n: c.n + 1, ...(m ? { last: m } : c.last ? { last: c.last } : {}) });
  }
  const parts = [...counts]
    .sort((a, b) => b[1].n - a[1].n)
    .map(([cause, c]) => `${c.n}× ${c.last ? c.last.detail : LABELS[cause]}`);
  return `The prompt cache missed ${misses.length} requests in a row. Cause${parts.length > 1 ? 's' : ''}: ${parts.join('; ')}. See the requests in the Context Budget panel.`;
}
