import type { ConversationState, Message } from '../conversation/conversationModel';
import type { CompactionRecord } from './types';

/** Result of applying or restoring a record: the new state, or why not (state unchanged). */
export type ApplyResult =
  { readonly ok: true; readonly state: ConversationState } | { readonly ok: false; readonly reason: string };

/**
 * Replaces the record's originals — which must stand contiguously, as the same objects or
 * the same ids, in the conversation — by its replacement. Pure.
 */
export function applyRecord(
  state: ConversationState,
  record: Pick<CompactionRecord, 'originals' | 'replacement'>,
): ApplyResult {
  return swap(
    state,
    record.originals,
    record.replacement,
    'The messages this compaction replaces are no longer in the conversation.',
  );
}

/**
 * Undoes a record: its replacement must still stand contiguously in the conversation (a later
 * compaction that swallowed it must be restored first); the originals go back in its place.
 */
export function restoreRecord(
  state: ConversationState,
  record: Pick<CompactionRecord, 'originals' | 'replacement'>,
): ApplyResult {
  return swap(
    state,
    record.replacement,
    record.originals,
    'A later compaction includes part of this one; restore that one first.',
  );
}

function swap(
  state: ConversationState,
  out: readonly Message[],
  into: readonly Message[],
  missing: string,
): ApplyResult {
  if (out.length === 0) return { ok: false, reason: 'The compaction is empty.' };
  const firstId = out[0]?.id;
  const start = state.messages.findIndex((m) => m.id === firstId);
  if (start < 0) return { ok: false, reason: missing };
  for (let i = 0; i < out.length; i++) {
    const have = state.messages[start + i];
    const want = out[i];
    if (!have || !want || have.id !== want.id) return { ok: false, reason: missing };
  }
  const messages = [...state.messages.slice(0, start), ...into, ...state.messages.slice(start + out.length)];
  return { ok: true, state: { ...state, messages } };
}
