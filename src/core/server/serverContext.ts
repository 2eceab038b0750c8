/**
 * Server-side context management as compaction strategies beside ours: the API's context
 * editing (`clear_tool_uses_20250919`, `clear_thinking_20251015`) and server compaction
 * (`compact_20260112`). This module builds the request's `context_management` and the beta
 * headers it needs; it is pure.
 *
 * Verified against:
 * - https://platform.claude.com/docs/en/build-with-claude/context-editing — beta header
 *   `context-management-2025-06-27`; `clear_tool_uses_20250919` defaults (trigger 100,000 input
 *   tokens, keep 3 tool uses); `clear_thinking_20251015` only with extended thinking on, and
 *   listed first when combined with other edits; the client keeps its full, unedited history.
 * - https://platform.claude.com/docs/en/build-with-claude/compaction — beta header
 *   `compact-2026-01-12`; `compact_20260112` in `context_management.edits`; trigger default
 *   150,000 input tokens, minimum 50,000; supported on claude-opus-4-6 and claude-sonnet-4-6
 *   (later listings add claude-opus-4-7); the API ignores every block before a compaction block.
 * - node_modules/@anthropic-ai/sdk/resources/beta/messages/messages.d.ts (SDK 1.12.0):
 *   `BetaContextManagementConfig`, `BetaClearToolUses20250919Edit` (trigger input_tokens|tool_uses,
 *   keep tool_uses, clear_at_least input_tokens, exclude_tools), `BetaClearThinking20251015Edit`
 *   (keep thinking_turns | 'all'), `BetaCompact20260112Edit` (trigger input_tokens, instructions,
 *   pause_after_compaction); `AnthropicBeta` lists both header values.
 * - Compaction on demand (https://platform.claude.com/docs/en/build-with-claude/compaction-on-demand,
 *   .../compaction-keep-recent-turns): beta header `compact-2026-09-04`, the top-level
 *   `compaction: {type: 'summarize'}` (SDK `BetaCompactionConfig`), which cannot be combined
 *   with `context_management` in one request; the answer is one signed `compaction` block,
 *   stop reason `compaction`. The summariser route that uses it is compaction/serverSummary.ts.
 */

import { batchedKeep } from './clearBatch';

/** The server-side strategies (values of `contextPipeline.compactionStrategy`). */
export type ServerStrategy = 'server-clear-tool-uses' | 'server-compact';

/** Whether a strategy setting names a server-side strategy. */
export function isServerStrategy(strategy: string): strategy is ServerStrategy {
  return strategy === 'server-clear-tool-uses' || strategy === 'server-compact';
}

/** Beta header of context editing (docs: context-editing; SDK `AnthropicBeta`). */
export const CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27';
/** Beta header of server compaction (docs: compaction; SDK `AnthropicBeta`). */
export const COMPACT_BETA = 'compact-2026-01-12';
/**
 * Beta header of compaction on demand (SDK `AnthropicBeta` 'compact-2026-09-04'; docs:
 * compaction-on-demand): sent with the compaction request and with every later request whose
 * history holds the block it returned.
 */
export const ON_DEMAND_COMPACTION_BETA = 'compact-2026-09-04';
/** The API's defaults for `clear_tool_uses_20250919` (docs: context-editing, "Tool result clearing"). */
export const CLEAR_TOOL_USES_DEFAULTS = { trigger: 100_000, keep: 3 } as const;
/** The API's default and minimum compaction trigger (docs: compaction, parameters table). */
export const COMPACT_TRIGGER_DEFAULT = 150_000;
export const COMPACT_TRIGGER_MIN = 50_000;

/** Settings of the server strategies (0 or empty: derived as documented on each field). */
export interface ServerContextSettings {
  /** Input tokens at which the server clears or compacts; 0: the soft threshold of the effective window. */
  readonly triggerTokens: number;
  /** Tool uses `clear_tool_uses` keeps (most recent); 0: the API's default (3). */
  readonly keepToolUses: number;
  /**
   * Tokens a clear must free at least (else nothing is cleared); 0: the least our own masking
   * frees at once (`ServerRequestInput.clearAtLeastTokens`), so a clear — which rewrites the
   * cache after the first result it clears — happens rarely and frees a lot.
   */
  readonly clearAtLeastTokens: number;
  /** Tools whose uses are never cleared, besides {@link NEVER_CLEARED_TOOLS}. */
  readonly excludeTools: readonly string[];
}

/**
 * Session tools whose results `clear_tool_uses` never clears: recall's (what the model asked
 * to see again), update_plan's (one line each) and task's (a subagent's report: the only copy
 * of its work in the context). Sent in `exclude_tools` when the request offers them.
 */
export const NEVER_CLEARED_TOOLS: readonly string[] = ['recall', 'update_plan', 'task'];

/** Defaults: trigger at the soft threshold, the API's keep, the plan's minimum, only the session tools excluded. */
export const DEFAULT_SERVER_CONTEXT_SETTINGS: ServerContextSettings = {
  triggerTokens: 0,
  keepToolUses: 0,
  clearAtLeastTokens: 0,
  excludeTools: [],
};

/** One edit of `context_management.edits`, shaped as the SDK's Beta*Edit types. */
export type ContextEdit =
  | {
      readonly type: 'clear_tool_uses_20250919';
      readonly trigger: { readonly type: 'input_tokens'; readonly value: number };
      readonly keep: { readonly type: 'tool_uses'; readonly value: number };
      readonly clear_at_least?: { readonly type: 'input_tokens'; readonly value: number };
      readonly exclude_tools?: readonly string[];
    }
  | {
      readonly type: 'clear_thinking_20251015';
      readonly keep: { readonly type: 'thinking_turns'; readonly value: number } | 'all';
    }
  | { readonly type: 'compact_20260112'; readonly trigger: { readonly type: 'input_tokens'; readonly value: number } };

/**
 * The top-level `compaction` of a compaction request (SDK `BetaCompactionConfig`): summarise
 * every message sent and answer with the block alone. `instructions` replace the server's own
 * summarisation prompt for this request.
 */
export interface CompactionConfig {
  readonly type: 'summarize';
  readonly instructions?: string;
}

/**
 * What a request carries for server context management: body fields and beta headers.
 * `contextManagement` and `compaction` never go together (the API refuses the pair).
 */
export interface ServerRequestParts {
  readonly contextManagement?: { readonly edits: readonly ContextEdit[] };
  readonly betas: readonly string[];
  /** Present on a compaction request only (serverSummary.ts). */
  readonly compaction?: CompactionConfig;
}

/**
 * Models that support server compaction, per the compaction page's "supported models"
 * (claude-opus-4-6, claude-sonnet-4-6; claude-opus-4-7 in a later listing). A small table,
 * meant to be replaced by the Models API's capabilities when those are known.
 */
const COMPACTION_MODELS = ['claude-opus-4-6', 'claude-sonnet-4-6', 'claude-opus-4-7'];

/** Whether server compaction is supported for `model` (an exact id or a dated/suffixed one). */
export function supportsServerCompaction(model: string): boolean {
  return COMPACTION_MODELS.some((m) => model === m || model.startsWith(`${m}-`));
}

/**
 * Models that support compaction on demand, per the "supported models" of
 * https://platform.claude.com/docs/en/build-with-claude/compaction-keep-recent-turns (the
 * compaction-on-demand pages share the list): claude-opus-4-6, claude-sonnet-4-6,
 * claude-opus-4-7 and the later models listed there. A table, like COMPACTION_MODELS.
 */
const ON_DEMAND_MODELS = [
  'claude-opus-4-6',
  'claude-sonnet-4-6',
  'claude-opus-4-7',
  'claude-opus-4-8',
  'claude-haiku-5-5',
  'claude-sonnet-5',
  'claude-sonnet-5-5',
  'claude-opus-5',
  'claude-opus-5-5',
  'claude-mythos-5',
  'claude-mythos-5-1',
  'claude-mythos-preview',
  'claude-fable-5',
  'claude-fable-5-1',
];

/** Whether compaction on demand (`compaction: {type: 'summarize'}`) is supported for `model` (an exact id or a dated/suffixed one). */
export function supportsOnDemandCompaction(model: string): boolean {
  return ON_DEMAND_MODELS.some((m) => model === m || model.startsWith(`${m}-`));
}

/** Inputs of the request parts besides the settings. */
export interface ServerRequestInput {
  readonly strategy: string;
  readonly settings: ServerContextSettings;
  readonly model: string;
  /** What the Models API's capabilities say about server compaction for the model, when it said (else the table decides). */
  readonly compactionCapability?: boolean;
  /** The soft threshold in tokens (soft threshold × effective window), the trigger when none is set. */
  readonly softTokens: number;
  /** Whether extended thinking is on in this request (`clear_thinking` is only valid then). */
  readonly thinking: boolean;
  /** Whether the history holds a server compaction block (it needs the compaction beta to be sent back). */
  readonly hasCompactionBlock: boolean;
  /**
   * The betas the history's compaction blocks need (serialize.ts `compactionBlockBetas`: an
   * on-demand block needs {@link ON_DEMAND_COMPACTION_BETA}); absent: {@link COMPACT_BETA} when
   * `hasCompactionBlock`.
   */
  readonly compactionBlockBetas?: readonly string[];
  /** The least a clear frees when the settings set none (the plan's rule for cheap edits); 0: none sent. */
  readonly clearAtLeastTokens?: number;
  /** Names of the tools the request offers (`exclude_tools` names only those). */
  readonly toolNames?: readonly string[];
  /**
   * Tool results the prompt holds and the batch a clear moves by (clearBatch.ts): `keep` then
   * grows between clears so the cleared set, and the cached prefix, stay put. Absent: the
   * fixed `keep`.
   */
  readonly batching?: { readonly toolResults: number; readonly batch: number };
}

/**
 * The `context_management` and beta headers for a request, or why the strategy cannot be
 * used (server compaction on a model without it). Our strategies get nothing — unless the
 * history still holds a compaction block from an earlier server compaction, which is only
 * accepted under its beta header.
 */
export function serverRequestParts(
  input: ServerRequestInput,
): { readonly ok: true; readonly value: ServerRequestParts } | { readonly ok: false; readonly reason: string } {
  const betas = new Set<string>(input.compactionBlockBetas ?? (input.hasCompactionBlock ? [COMPACT_BETA] : []));
  if (!isServerStrategy(input.strategy)) return { ok: true, value: { betas: [...betas] } };
  const s = input.settings;
  const trigger = Math.round(s.triggerTokens > 0 ? s.triggerTokens : input.softTokens);
  const edits: ContextEdit[] = [];
  // Docs (context-editing): clear_thinking must come first when combined with other edits.
  if (input.thinking) edits.push({ type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 1 } });
  if (input.strategy === 'server-compact') {
    const supported = input.compactionCapability ?? supportsServerCompaction(input.model);
    if (!supported)
      return {
        ok: false,
        reason:
          input.compactionCapability === false
            ? `Server compaction is not available for ${input.model} (the Models API says it does not support compact_20260112).`
            : `Server compaction is not available for ${input.model} (supported: ${COMPACTION_MODELS.join(', ')}).`,
      };
    edits.push({
      type: 'compact_20260112',
      trigger: { type: 'input_tokens', value: Math.max(COMPACT_TRIGGER_MIN, trigger) },
    });
    betas.add(COMPACT_BETA);
  } else {
    const atLeast = Math.round(s.clearAtLeastTokens > 0 ? s.clearAtLeastTokens : (input.clearAtLeastTokens ?? 0));
    const offered = new Set(input.toolNames ?? []);
    const exclude = [...new Set([...NEVER_CLEARED_TOOLS.filter((n) => offered.has(n)), ...s.excludeTools])];
    const keep = s.keepToolUses > 0 ? s.keepToolUses : CLEAR_TOOL_USES_DEFAULTS.keep;
    const b = input.batching;
    edits.push({
      type: 'clear_tool_uses_20250919',
      trigger: { type: 'input_tokens', value: Math.max(1, trigger) },
      keep: { type: 'tool_uses', value: b ? batchedKeep(b.toolResults, keep, b.batch) : keep },
      ...(atLeast > 0 ? { clear_at_least: { type: 'input_tokens' as const, value: atLeast } } : {}),
      ...(exclude.length > 0 ? { exclude_tools: exclude } : {}),
    });
  }
  if (input.thinking || input.strategy === 'server-clear-tool-uses') betas.add(CONTEXT_MANAGEMENT_BETA);
  return { ok: true, value: { contextManagement: { edits }, betas: [...betas] } };
}
