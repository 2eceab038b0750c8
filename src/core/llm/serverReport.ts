/**
 * What the API reports about server-side context management in a response, and what it
 * costs. Pure.
 *
 * Verified against node_modules/@anthropic-ai/sdk/resources/beta/messages/messages.d.ts
 * (SDK 1.12.0): `BetaContextManagementResponse.applied_edits` (on the final `message_delta`
 * and the message) with `BetaClearToolUses20250919EditResponse` {cleared_input_tokens,
 * cleared_tool_uses} and `BetaClearThinking20251015EditResponse` {cleared_input_tokens,
 * cleared_thinking_turns}; `BetaUsage.iterations` entries of type `message` and `compaction`.
 * The SDK's doc of `iterations` says "A `compaction` entry's tokens are not included in the
 * top-level `usage` fields"; the compaction page
 * (https://platform.claude.com/docs/en/build-with-claude/compaction) says the summarising
 * step is an extra sampling step that is billed. So a request costs its top-level usage plus
 * every compaction iteration; `message` iterations are already in the top-level figures.
 */
import type { Usage } from './llmClient';

/** One edit the server applied before the model saw the prompt. */
export type AppliedEdit =
  | { readonly type: 'clear_tool_uses_20250919'; readonly clearedInputTokens: number; readonly clearedToolUses: number }
  | {
      readonly type: 'clear_thinking_20251015';
      readonly clearedInputTokens: number;
      readonly clearedThinkingTurns: number;
    };

/** One sampling iteration of a request (`message`: the answer; `compaction`: the server's summarising). */
export interface IterationUsage extends Usage {
  readonly type: 'message' | 'compaction' | 'other';
}

/** What a response said about server-side context management. */
export interface ServerReport {
  readonly appliedEdits: readonly AppliedEdit[];
  readonly iterations: readonly IterationUsage[];
}

/** Whether a report says anything worth showing. */
export function hasServerReport(r: ServerReport | undefined): r is ServerReport {
  return r !== undefined && (r.appliedEdits.length > 0 || r.iterations.length > 0);
}

/** Input tokens the server's edits cleared in total. */
export function clearedInputTokens(r: ServerReport | undefined): number {
  return r ? r.appliedEdits.reduce((n, e) => n + e.clearedInputTokens, 0) : 0;
}

/**
 * The usages a request is billed for: its top-level usage, then each compaction iteration
 * (not included in the top-level figures, see the module doc).
 */
export function billedUsages(usage: Usage, report: ServerReport | undefined): readonly Usage[] {
  const extra = report ? report.iterations.filter((i) => i.type === 'compaction') : [];
  return [usage, ...extra];
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0;
}

/**
 * Reads the report from the SDK's raw response fields (`context_management`, `usage.iterations`),
 * tolerating absent or unknown entries; undefined when there is nothing.
 */
export function parseServerReport(contextManagement: unknown, iterations: unknown): ServerReport | undefined {
  const appliedEdits: AppliedEdit[] = [];
  const raw =
    typeof contextManagement === 'object' && contextManagement !== null
      ? (contextManagement as { applied_edits?: unknown }).applied_edits
      : undefined;
  if (Array.isArray(raw)) {
    for (const e of raw as readonly Record<string, unknown>[]) {
      if (e?.type === 'clear_tool_uses_20250919')
        appliedEdits.push({
          type: e.type,
          clearedInputTokens: num(e.cleared_input_tokens),
          clearedToolUses: num(e.cleared_tool_uses),
        });
      else if (e?.type === 'clear_thinking_20251015')
        appliedEdits.push({
          type: e.type,
          clearedInputTokens: num(e.cleared_input_tokens),
          clearedThinkingTurns: num(e.cleared_thinking_turns),
        });
    }
  }
  const its: IterationUsage[] = [];
  if (Array.isArray(iterations)) {
    for (const i of iterations as readonly Record<string, unknown>[]) {
      if (typeof i !== 'object' || i === null) continue;
      its.push({
        type: i.type === 'message' || i.type === 'compaction' ? i.type : 'other',
        input_tokens: num(i.input_tokens),
        output_tokens: num(i.output_tokens),
        cache_read_input_tokens: num(i.cache_read_input_tokens),
        cache_creation_input_tokens: num(i.cache_creation_input_tokens),
      });
    }
  }
  const report = { appliedEdits, iterations: its };
  return hasServerReport(report) ? report : undefined;
}
