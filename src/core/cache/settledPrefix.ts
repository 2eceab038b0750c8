/**
 * The settled prefix: the messages up to the last one a compaction has changed (a tool result
 * cleared by masking or microcompact; a summary or a removal marker the compactor wrote).
 * Compactions work oldest first, so the next one changes messages after it — the next results
 * masked, the turns after the last summary — unless it summarises from the start. Snip's stale
 * marks are left out: they ride along where a compaction rewrote anyway, in the kept tail, after
 * where the next compaction starts. A breakpoint kept at its end (cacheAnchors.ts) is read back
 * by every request, so that next edit rewrites only what comes after it, not the whole
 * conversation after the system prompt: without it the only cached prefixes are the stable one
 * and the previous request's tail, which the edit has changed. Derived from the messages alone,
 * so it survives a reload and needs no owner. Pure, O(blocks).
 */
import type { Message, ToolResultContent } from '../conversation/conversationModel';
import { CLEARED_PREFIX, MASKED_PREFIX } from '../conversation/resultPlaceholders';

/**
 * Index of the last message before the newest one that holds a compaction's mark (see the
 * module comment); -1 when there is none. The newest message is never the settled end: the
 * tail breakpoint is there already.
 */
export function settledThrough(messages: readonly Message[]): number {
  for (let i = messages.length - 2; i >= 0; i--) {
    const m = messages[i] as Message;
    if (m.blocks.some((b) => b.meta.source === 'compactor' || (b.type === 'tool_result' && cleared(b.content))))
      return i;
  }
  return -1;
}

/**
 * Where the prompt cache starts writing again after an edit whose first changed message is
 * `first`, given the settled prefix ending at `settled` (settledThrough): after it when the edit
 * comes after it, else at the first message — every tail entry earlier requests wrote ends after
 * the edit, so only the stable prefix (tools, system) is read.
 */
export function rewriteFrom(settled: number, first: number): number {
  return settled >= 0 && settled < first ? settled + 1 : 0;
}

/** Whether a result was cleared by masking or microcompact (not a stale mark of snip). */
function cleared(content: ToolResultContent): boolean {
  return typeof content === 'string' && (content.startsWith(MASKED_PREFIX) || content.startsWith(CLEARED_PREFIX));
}
