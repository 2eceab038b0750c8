/**
 * The order restores must follow. A compaction puts its originals back by message id, in
 * place of its replacement; when a later compaction still in effect changed any of those
 * messages — in place (mask, microcompact, snip, budget trim, the tail guard keep the id) or
 * by replacing them (a summary that swallowed them) — restoring the older one first would
 * undo the later change too while that one still shows as in effect. So it waits: the later
 * one is restored first (newest first), and then the older one is an exact inverse again.
 * Pure.
 */
import type { Message } from '../conversation/conversationModel';
import { LAYER_LABEL, TRIGGER_LABEL } from './labels';
import type { CompactionRecord } from './types';

/** What restore order reads of a compaction (a live record or a session file's entry). */
export type OrderedRecord = Pick<CompactionRecord, 'id' | 'trigger' | 'layer' | 'originals' | 'replacement'>;

/** A compaction of the session as restore order needs it: in effect or not, or kept only for its originals. */
export interface RestoreOrderEntry<R extends OrderedRecord = OrderedRecord> {
  readonly record: R;
  readonly active: boolean;
  readonly orphaned?: true;
}

/**
 * The compactions after `recordId` in `entries` (oldest first), still in effect, that changed
 * a message it would take out (one of its replacement's ids is among their originals'),
 * newest first: each must be restored before it. Empty when it may be restored now.
 */
export function laterChanges<R extends OrderedRecord>(entries: readonly RestoreOrderEntry<R>[], recordId: string): R[] {
  const at = entries.findIndex((e) => e.record.id === recordId);
  const target = entries[at];
  if (!target) return [];
  const ids = new Set(target.record.replacement.map((m) => m.id));
  return entries
    .slice(at + 1)
    .filter((e) => e.active && !e.orphaned && e.record.originals.some((m) => ids.has(m.id)))
    .map((e) => e.record)
    .reverse();
}

/**
 * Why `record` cannot be restored while `later` (newest first, non-empty; see
 * {@link laterChanges}) are in effect, naming the one to restore first as the Compactions
 * view shows it (trigger, what it did) and the turns of the messages it changed.
 */
export function restoreOrderRefusal(record: OrderedRecord, later: readonly OrderedRecord[]): string {
  const newest = later[0];
  if (!newest) return '';
  const ids = new Set(record.replacement.map((m) => m.id));
  const turns = turnText(newest.originals.filter((m) => ids.has(m.id)));
  const what = `${TRIGGER_LABEL[newest.trigger]} · ${LAYER_LABEL[newest.layer]}, ${turns}`;
  if (newest.layer === 'server-compact')
    return `A later compaction by the API (${turns}) includes messages this one would put back, and it cannot be undone, so this one cannot be restored.`;
  const more =
    later.length > 1
      ? ` ${later.length - 1} more later compaction${later.length > 2 ? 's' : ''} changed them too; restore those as well, newest first.`
      : '';
  return `A later compaction (${what}) changed messages this one would put back; restoring this one now would undo that change too. Restore that one first.${more}`;
}

function turnText(messages: readonly Message[]): string {
  const turns = messages.map((m) => m.turn);
  if (turns.length === 0) return 'the same messages';
  const first = Math.min(...turns);
  const last = Math.max(...turns);
  return first === last ? `turn ${first}` : `turns ${first}–${last}`;
}
