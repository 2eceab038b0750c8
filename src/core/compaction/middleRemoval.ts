/**
 * Middle removal: keep the start (the turns holding the first `keepFirst` messages, by
 * default the first exchange, where the task is usually stated) and the end (the last
 * `keepLast` messages and the recent turns), and drop whole turns from the middle — low
 * priority first, then normal, then high; within one priority, the turn nearest the centre
 * of the removable span first — until enough tokens are freed. No LLM, no cost.
 */
import type { ConversationState } from '../conversation/conversationModel';
import { PRIORITY_RANK, type Turn } from './priority';
import { removeTurns, type RemovalKind, type RemovalOptions, type RemovalResult } from './removeTurns';

/** Messages kept at the start by default: the first exchange (the user's task and the first answer). */
export const MIDDLE_KEEP_FIRST_DEFAULT = 2;

/** The order middle removal drops removable turns in: priority, then nearest the centre, then oldest. */
export function middleOrder(removable: readonly Turn[]): Turn[] {
  const first = removable[0];
  const last = removable.at(-1);
  if (!first || !last) return [];
  const centre = (first.start + last.end) / 2;
  const distance = (t: Turn): number => Math.abs((t.start + t.end) / 2 - centre);
  return [...removable].sort(
    (a, b) =>
      PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority] || distance(a) - distance(b) || a.ordinal - b.ordinal,
  );
}

/** Drops whole turns from the middle of the conversation (see the module comment). Pure. */
export function middleRemoval(
  state: ConversationState,
  opts: RemovalOptions,
  kind: RemovalKind = { layer: 'middle-removal', label: 'middle removal' },
): RemovalResult {
  return removeTurns(state, opts, kind, middleOrder, MIDDLE_KEEP_FIRST_DEFAULT);
}
