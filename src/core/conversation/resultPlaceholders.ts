/**
 * The placeholders the compaction layers put where a tool result was (snip, microcompact,
 * masking): how each begins, and how to tell one. Here, below both, because the layers write
 * them and the prompt cache's settled prefix (cache/settledPrefix.ts) reads them.
 */
import type { ToolResultContent } from './conversationModel';

/** Start of the snip placeholder (see compaction/snip.ts). */
export const STALE_PREFIX = '[Stale: ';
/** Start of the microcompact placeholder (see compaction/microcompact.ts). */
export const CLEARED_PREFIX = '[Old tool result cleared after the prompt cache expired';

/** Start of the masking stub (see compaction/mask.ts). */
export const MASKED_PREFIX = '[Tool result cleared to save context: ';

/** Whether a result is already a placeholder of snip, microcompact or masking (never touched again). */
export function isPlaceholder(content: ToolResultContent): boolean {
  return (
    typeof content === 'string' &&
    (content.startsWith(STALE_PREFIX) || content.startsWith(CLEARED_PREFIX) || content.startsWith(MASKED_PREFIX))
  );
}
