/**
 * Microcompact: when the prompt cache has gone cold (idle longer than its TTL), the next
 * request pays for the whole prompt anyway, so clearing old tool results costs no cache hit.
 * Results but the newest three are replaced by a short placeholder. No LLM, one reversible
 * record. Pure: the caller measures the idle time.
 */
import { ttlMs } from '../cache/cacheAnchors';
import { usualWriteTtl } from '../cache/usualWriteTtl';
import type { ConversationState, ToolResultContent } from '../conversation/conversationModel';
import { GUARD_DEFAULTS } from './guardDefaults';
import {
  CLEARED_PREFIX,
  commitResultEdits,
  hasImages,
  isPlaceholder,
  olderEditableResults,
  resultText,
  type LayerContext,
  type LayerResult,
} from './layerContext';

/** The placeholder of a result cleared after `idleMs` of idle time (shown in whole minutes). */
export function clearedPlaceholder(idleMs: number): string {
  return `${CLEARED_PREFIX} (idle ${Math.floor(Math.max(0, idleMs) / 60_000)} min); run the tool again if needed.]`;
}

/**
 * The microcompact layer. When `ctx.idleMs` is longer than the cache's lifetime
 * (`ctx.lifetimeMs`: the previous request's last breakpoint's; else the setting's usual one),
 * every older tool result (all but the newest `keepRecentResults`, never pinned ones, never
 * placeholders) whose text is longer than `microcompactMinChars` or that holds an image is
 * replaced by {@link clearedPlaceholder}; tool_use blocks and `isError` stay. No idle time, a
 * warm cache or nothing worth clearing: the input state and no record; else one record of
 * layer `microcompact`, trigger `idle` (or `ctx.trigger`).
 */
export function microcompact(state: ConversationState, ctx: LayerContext): LayerResult {
  const lifetime = ctx.lifetimeMs ?? ttlMs(usualWriteTtl(state.config.cacheTtl));
  if (ctx.idleMs === undefined || !(ctx.idleMs > lifetime)) return { state };
  const placeholder = clearedPlaceholder(ctx.idleMs);
  const edits = new Map<string, ToolResultContent>();
  for (const site of olderEditableResults(state.messages, GUARD_DEFAULTS.keepRecentResults)) {
    const content = site.block.content;
    if (isPlaceholder(content)) continue;
    if (resultText(content).length > GUARD_DEFAULTS.microcompactMinChars || hasImages(content))
      edits.set(site.block.meta.id, placeholder);
  }
  return commitResultEdits(state, ctx, edits, { layer: 'microcompact', trigger: 'idle' });
}
