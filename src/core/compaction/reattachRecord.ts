/**
 * Puts what survives a compaction — its parts' reminders (the plan, the re-attached files) —
 * into the compaction itself: the blocks become the last blocks of the user message that holds
 * the record's summary (or removal marker), so they are persisted, shown and restored with the
 * record. Pure.
 */
import type { Block, ConversationState, Message } from '../conversation/conversationModel';
import { applyRecord, restoreRecord } from './apply';
import { reminderFiles, type IndexedFile } from './fileIndex';
import { isReattachReminder } from './reattach';
import type { CompactionRecord } from './types';

/** Index of the replacement's user message holding the summary or the compactor's marker; -1 when there is none. */
export function leadMessageIndex(replacement: readonly Message[]): number {
  return replacement.findIndex(
    (m) =>
      m.role === 'user' &&
      m.blocks.some((b) => b.type === 'summary' || (b.type === 'text' && b.meta.source === 'compactor')),
  );
}

/** What the record lists of the parts that survived it (each present only when its part is). */
export type SurvivedFields = Partial<Pick<CompactionRecord, 'reattached' | 'carriedPlan'>>;

/**
 * `record` (applied in `state`, its replacement standing there) rebuilt with `blocks` appended
 * to its lead message and `listed` recorded: restored, then applied again with the new
 * replacement; `tokensAfter` recounted with `tokensOf`. Undefined — nothing changed — when
 * the record has no lead message, no longer stands in `state`, or would stop shrinking the
 * context.
 */
export function withReattachment(
  state: ConversationState,
  record: CompactionRecord,
  blocks: readonly Block[],
  listed: SurvivedFields,
  tokensOf: (m: Message) => number,
): { readonly state: ConversationState; readonly record: CompactionRecord } | undefined {
  const lead = leadMessageIndex(record.replacement);
  if (lead < 0) return undefined;
  const replacement = record.replacement.map((m, i) => (i === lead ? { ...m, blocks: [...m.blocks, ...blocks] } : m));
  const tokensAfter = replacement.reduce((n, m) => n + tokensOf(m), 0);
  if (tokensAfter >= record.tokensBefore) return undefined;
  const restored = restoreRecord(state, record);
  if (!restored.ok) return undefined;
  const rebuilt: CompactionRecord = { ...record, replacement, tokensAfter, ...listed };
  const applied = applyRecord(restored.state, rebuilt);
  return applied.ok ? { state: applied.state, record: rebuilt } : undefined;
}

/** The files `record`'s re-attach reminder names in its index (path only, fileIndex.ts); empty without one. */
export function indexedFilesOf(record: CompactionRecord): IndexedFile[] {
  const lead = record.replacement[leadMessageIndex(record.replacement)];
  const reminder = lead?.blocks.find(isReattachReminder);
  if (reminder?.type !== 'text') return [];
  return reminderFiles(reminder.text)
    .filter((f) => f.part === 'index')
    .map(({ path, edited }) => ({ path, edited }));
}
