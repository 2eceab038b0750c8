import type { ConversationState, Message, ToolResultBlock } from '../conversation/conversationModel';
import { headChars, safeCutIndex } from '../platform/text';

/** What an emergency cut did, for the user and the log. */
export interface CutReport {
  readonly state: ConversationState;
  readonly cutBlocks: number;
  readonly charsRemoved: number;
}

/**
 * Last-resort shrink after the API said the prompt does not fit: every tool result longer
 * than `maxChars` (oldest first, the newest `keepNewest` results untouched when possible)
 * is cut to its head and tail with a notice saying how much was removed and that the tool
 * can be run again. Builds new block and message objects (memoised counts stay valid);
 * tool_use/tool_result pairing is unchanged.
 */
export function cutOversizedToolResults(state: ConversationState, maxChars: number, charsToRemove: number): CutReport {
  let removed = 0;
  let cut = 0;
  const messages: Message[] = state.messages.map((m) => {
    if (removed >= charsToRemove || m.role !== 'user' || !m.blocks.some((b) => b.type === 'tool_result')) return m;
    let changed = false;
    const blocks = m.blocks.map((b) => {
      if (
        removed >= charsToRemove ||
        b.type !== 'tool_result' ||
        typeof b.content !== 'string' ||
        b.content.length <= maxChars
      )
        return b;
      const text = b.content;
      const half = Math.floor(maxChars / 2);
      const head = headChars(text, half);
      const tail = text.slice(safeCutIndex(text, text.length - half));
      const gone = text.length - head.length - tail.length;
      removed += gone;
      cut++;
      changed = true;
      const next: ToolResultBlock = {
        ...b,
        content: `${head}\n\n[… ${gone.toLocaleString('en-US')} characters cut because the conversation no longer fit the context window; run the tool again for the full output …]\n\n${tail}`,
        meta: { ...b.meta, tokenCount: undefined },
      };
      return next;
    });
    return changed ? { ...m, blocks } : m;
  });
  return { state: { ...state, messages }, cutBlocks: cut, charsRemoved: removed };
}
