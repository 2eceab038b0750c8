/**
 * Server-side context management as the API does it, faithfully enough for the tests:
 * validates `context_management` and its beta headers, drops what stands before a
 * compaction block, applies `clear_tool_uses_20250919` when the prompt reaches its trigger
 * (oldest tool results replaced by a placeholder, the last `keep` tool uses and
 * `exclude_tools` spared, nothing when less than `clear_at_least` would go), and runs
 * `compact_20260112` when the prompt reaches its trigger or a step scripts it.
 *
 * Sources: https://platform.claude.com/docs/en/build-with-claude/context-editing and
 * .../compaction; SDK 1.12.0 beta types (BetaContextManagementConfig, Beta*EditResponse,
 * BetaCompactionBlock, BetaIterationsUsage). The placeholder text of a cleared result is not
 * documented; ours is a stand-in.
 */
import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { layoutPrompt } from './promptLayout';
import { invalid, isObject } from './reject';
import { blocksOf, type ApiRequest } from './request';

/** Beta header values (SDK `AnthropicBeta`). */
export const CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27';
export const COMPACT_BETA = 'compact-2026-01-12';
/** Placeholder of a cleared tool result (stand-in: the API's wording is not documented). */
export const CLEARED_PLACEHOLDER = '[Tool result cleared to save context]';

/** A parsed edit. */
export type Edit =
  | {
      readonly type: 'clear_tool_uses_20250919';
      readonly trigger: number;
      readonly keep: number;
      readonly clearAtLeast: number;
      readonly exclude: readonly string[];
    }
  | { readonly type: 'clear_thinking_20251015' }
  | { readonly type: 'compact_20260112'; readonly trigger: number };

/** An applied edit as the API reports it in `context_management.applied_edits`. */
export type AppliedEdit = {
  readonly type: 'clear_tool_uses_20250919';
  readonly cleared_input_tokens: number;
  readonly cleared_tool_uses: number;
};

function tokensParam(v: unknown, kind: string, loc: string, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  if (!isObject(v) || v.type !== kind || typeof v.value !== 'number' || !Number.isInteger(v.value) || v.value < 0)
    invalid('context_management', `${loc}: expected {"type": "${kind}", "value": <integer>}`);
  return v.value;
}

/** Validates `context_management` against the beta header; returns its edits (none when absent). */
export function checkContextManagement(body: Record<string, unknown>, betaHeader: string | undefined): readonly Edit[] {
  const betas = new Set(
    (betaHeader ?? '')
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean),
  );
  const hasCompactionBlock =
    Array.isArray(body.messages) &&
    (body.messages as unknown[]).some(
      (m) =>
        isObject(m) &&
        Array.isArray(m.content) &&
        // A signed block is a compaction request's, with its own beta (compactionRequest.ts).
        (m.content as unknown[]).some((b) => isObject(b) && b.type === 'compaction' && typeof b.signature !== 'string'),
    );
  if (hasCompactionBlock && !betas.has(COMPACT_BETA))
    invalid('beta_required', `messages: compaction blocks require the \`${COMPACT_BETA}\` beta header`);
  const cm = body.context_management;
  if (cm === undefined || cm === null) return [];
  if (!isObject(cm)) invalid('context_management', 'context_management: Input should be a valid dictionary');
  const raw = cm.edits ?? [];
  if (!Array.isArray(raw)) invalid('context_management', 'context_management.edits: Input should be a valid list');
  const edits: Edit[] = [];
  raw.forEach((e: unknown, i: number) => {
    const loc = `context_management.edits.${i}`;
    if (!isObject(e)) invalid('context_management', `${loc}: Input should be a valid dictionary`);
    if (e.type === 'clear_tool_uses_20250919' || e.type === 'clear_thinking_20251015') {
      if (!betas.has(CONTEXT_MANAGEMENT_BETA))
        invalid('beta_required', `${loc}: \`${e.type}\` requires the \`${CONTEXT_MANAGEMENT_BETA}\` beta header`);
      if (e.type === 'clear_thinking_20251015') {
        if (i !== 0) invalid('context_management', `${loc}: clear_thinking_20251015 must be the first edit`);
        const t = body.thinking;
        if (!isObject(t) || (t.type !== 'enabled' && t.type !== 'adaptive'))
          invalid('context_management', `${loc}: clear_thinking_20251015 requires thinking to be enabled`);
        edits.push({ type: e.type });
        return;
      }
      const exclude = e.exclude_tools ?? [];
      if (!Array.isArray(exclude) || exclude.some((x) => typeof x !== 'string'))
        invalid('context_management', `${loc}.exclude_tools: Input should be a valid list of strings`);
      edits.push({
        type: e.type,
        trigger: tokensParam(e.trigger, 'input_tokens', `${loc}.trigger`, 100_000),
        keep: tokensParam(e.keep, 'tool_uses', `${loc}.keep`, 3),
        clearAtLeast: tokensParam(e.clear_at_least, 'input_tokens', `${loc}.clear_at_least`, 0),
        exclude: exclude as string[],
      });
      return;
    }
    if (e.type === 'compact_20260112') {
      if (!betas.has(COMPACT_BETA))
        invalid('beta_required', `${loc}: \`compact_20260112\` requires the \`${COMPACT_BETA}\` beta header`);
      const trigger = tokensParam(e.trigger, 'input_tokens', `${loc}.trigger`, 150_000);
      if (trigger < 50_000)
        invalid('context_management', `${loc}.trigger.value: Input should be greater than or equal to 50000`);
      edits.push({ type: e.type, trigger });
      return;
    }
    invalid(
      'context_management',
      `${loc}: Input tag '${String(e.type)}' found using 'type' does not match any of the expected tags: 'clear_tool_uses_20250919', 'clear_thinking_20251015', 'compact_20260112'`,
    );
  });
  return edits;
}

/** The request as the model sees it: everything before the last compaction block dropped (docs: compaction). */
export function afterLastCompaction(req: ApiRequest): ApiRequest {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i] as MessageParam;
    const blocks = blocksOf(m);
    const j = blocks.map((b) => b.type as string).lastIndexOf('compaction');
    if (j < 0) continue;
    const summary = blocks[j] as unknown as { content?: string | null };
    // A null-content block is a failed compaction: a no-op.
    if (!summary.content) continue;
    const kept: ContentBlockParam[] = [{ type: 'text', text: summary.content }, ...blocks.slice(j + 1)];
    return { ...req, messages: [{ role: 'assistant', content: kept }, ...req.messages.slice(i + 1)] };
  }
  return req;
}

/** What `clear_tool_uses` would replace, before `clear_at_least` is checked. */
export interface ClearCandidates {
  /** The request with the cleared results replaced by the placeholder. */
  readonly req: ApiRequest;
  /** Where each cleared result is: `messages.I.content.J` (promptLayout's `loc`). */
  readonly locs: readonly string[];
  /** The `tool_use_id` of each cleared result. */
  readonly toolUseIds: readonly string[];
}

/**
 * The rule of `clear_tool_uses` without the trigger and `clear_at_least`: every tool result
 * but the last `keep` (and those of `exclude_tools`) replaced by the placeholder; results
 * already cleared are not counted again. Shared with the replay bench (bench/replayApi.ts),
 * which counts tokens its own way.
 */
export function clearCandidates(
  req: ApiRequest,
  edit: Extract<Edit, { type: 'clear_tool_uses_20250919' }>,
): ClearCandidates {
  const names = new Map<string, string>();
  const results: { i: number; j: number; id: string }[] = [];
  req.messages.forEach((m, i) =>
    blocksOf(m).forEach((b, j) => {
      if (b.type === 'tool_use') names.set(b.id, b.name);
      if (b.type === 'tool_result') results.push({ i, j, id: b.tool_use_id });
    }),
  );
  const candidates = results
    .slice(0, Math.max(0, results.length - edit.keep))
    .filter((r) => !edit.exclude.includes(names.get(r.id) ?? ''));
  const messages = req.messages.map((m) => ({ ...m, content: [...blocksOf(m)] }));
  const locs: string[] = [];
  const toolUseIds: string[] = [];
  for (const r of candidates) {
    const block = messages[r.i]?.content[r.j];
    if (block?.type !== 'tool_result' || (typeof block.content === 'string' && block.content === CLEARED_PLACEHOLDER))
      continue;
    (messages[r.i] as { content: ContentBlockParam[] }).content[r.j] = {
      type: 'tool_result',
      tool_use_id: block.tool_use_id,
      content: CLEARED_PLACEHOLDER,
      ...(block.cache_control ? { cache_control: block.cache_control } : {}),
    };
    locs.push(`messages.${r.i}.content.${r.j}`);
    toolUseIds.push(block.tool_use_id);
  }
  return {
    req: locs.length === 0 ? req : { ...req, messages: messages as unknown as readonly MessageParam[] },
    locs,
    toolUseIds,
  };
}

/** Applies `clear_tool_uses` to `req` when its prompt reaches the trigger; the edited request and what was applied. */
export function applyClear(
  req: ApiRequest,
  edit: Extract<Edit, { type: 'clear_tool_uses_20250919' }>,
  promptTokens: number,
): { readonly req: ApiRequest; readonly applied?: AppliedEdit } {
  if (promptTokens < edit.trigger) return { req };
  const c = clearCandidates(req, edit);
  if (c.locs.length === 0) return { req };
  const freed = promptTokens - layoutPrompt(c.req).totalTokens;
  if (freed < edit.clearAtLeast) return { req };
  return {
    req: c.req,
    applied: { type: 'clear_tool_uses_20250919', cleared_input_tokens: freed, cleared_tool_uses: c.locs.length },
  };
}
