/**
 * Oldest removal: drop whole turns by priority (low first, then normal, then high) and,
 * within one priority, oldest first, until enough tokens are freed. Protected turns (pinned,
 * summaries, critical, recent, the first `keepFirst` messages if asked) stay. No LLM, no cost.
 */
import type { ConversationState } from '../conversation/conversationModel';
import { PRIORITY_RANK, type Turn } from './priority';
import { removeTurns, type RemovalKind, type RemovalOptions, type RemovalResult } from './removeTurns';

/** Messages kept at the start by default: none (the user's words survive in the marker anyway). */
export const OLDEST_KEEP_FIRST_DEFAULT = 0;

/** The order oldest removal drops removable turns in: priority, then age. */
export function oldestOrder(removable: readonly Turn[]): Turn[] {
  return [...removable].sort((a, b) => PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority] || a.ordinal - b.ordinal);
}

/** Drops whole turns, lowest priority and oldest first (see the module comment). Pure. */
export function oldestRemoval(
  state: ConversationState,
  opts: RemovalOptions,
  kind: RemovalKind = { layer: 'oldest-removal', label: 'oldest removal' },
): RemovalResult {
  return removeTurns(state, opts, kind, oldestOrder, OLDEST_KEEP_FIRST_DEFAULT);
}
