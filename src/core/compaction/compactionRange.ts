/**
 * Summarize from here / up to here: the part of the history a manual compaction may touch, and
 * the state the plan is made on — everything outside the range pinned, so no region reaches it
 * (the plan's own rules then apply inside: the newest tokens stay verbatim, pins stay). Pure.
 */
import type { ConversationState } from '../conversation/conversationModel';

/** Part of the history a manual compaction may touch: from message `fromId` on, or before message `beforeId`. */
export type CompactionRange = { readonly fromId: string } | { readonly beforeId: string };

/** `state` with every block outside `range` pinned (planning only: the state compacted is the real one). */
export function pinnedOutside(state: ConversationState, range: CompactionRange): ConversationState {
  const at = state.messages.findIndex((m) => m.id === ('fromId' in range ? range.fromId : range.beforeId));
  if (at < 0) return state;
  const outside = (i: number) => ('fromId' in range ? i < at : i >= at);
  return {
    ...state,
    messages: state.messages.map((m, i) =>
      outside(i) ? { ...m, blocks: m.blocks.map((b) => ({ ...b, meta: { ...b.meta, pinned: true } })) } : m,
    ),
  };
}
