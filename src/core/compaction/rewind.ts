/**
 * Rewinding the conversation to the user's last message: Retry (its answers leave, the same
 * message is answered again) and Edit (the message and its answers leave, new words take its
 * place). A rewind is a CompactionRecord (trigger and layer `rewind`) whose replacement is
 * empty and whose `after` names the message its originals followed, so what left is kept in
 * the session file, listed in the Compactions view, and brought back by Restore: the answer
 * that took its place leaves as a rewind of its own (kept too), and the originals go back.
 * Only the conversation rewinds: files a removed turn changed stay changed. Pure.
 */
import type { Message } from '../conversation/conversationModel';
import { isCompactionProduct, isUserWords, newestWordsIndex } from './regions';
import type { CompactionRecord } from './types';

/**
 * Retry: the answers after the user's last message leave. Edit: that message leaves too.
 * `to`: Rewind to here — any earlier message of the user's and everything after it leave (its
 * words go back to the composer). `files`: a rewind of the workspace files only (the
 * conversation stays; the record names the message whose checkpoint the files went back to).
 */
export type RewindKind = 'retry' | 'edit' | 'to' | 'files';

/** What a rewind needs besides the messages: its record's id and time, and a message's tokens. */
export interface RewindContext {
  readonly id: string;
  readonly at: number;
  /** Calibrated tokens of a message (the record's before/after figures). */
  readonly tokensOf: (m: Message) => number;
}

/** A compaction of the session as a rewind reads it: active ones that changed messages block it. */
export interface RewindCompaction {
  readonly record: Pick<CompactionRecord, 'id' | 'layer' | 'replacement'>;
  readonly active: boolean;
}

/** A planned rewind: the history afterwards and the record of what left it; or why not. */
export type RewindPlan =
  | { readonly ok: true; readonly messages: readonly Message[]; readonly record: CompactionRecord }
  | { readonly ok: false; readonly reason: string };

/** Said to the user with every rewind: the conversation rewinds, the workspace does not. */
export const FILES_STAY_CHANGED =
  'Files that turn changed (edits applied, commands run) stay as they are: only the conversation goes back.';

/**
 * Where Retry or Edit of message `messageId` could start: the index of the user's last message,
 * or why it cannot. Refused when that message is not the user's last one, when it was compacted
 * (no longer in the history as sent: a summary or a compaction's marker stands in or after it,
 * or an active compaction changed it or a message after it), and for Retry when nothing answers it yet.
 */
export function rewindStart(
  messages: readonly Message[],
  messageId: string,
  kind: RewindKind,
  compactions: readonly RewindCompaction[] = [],
): { readonly ok: true; readonly index: number } | { readonly ok: false; readonly reason: string } {
  const verb = kind === 'retry' ? 'retried' : 'edited';
  const index = newestWordsIndex(messages);
  const last = messages[index];
  if (!last) return { ok: false, reason: `There is no message of yours to be ${verb}.` };
  if (isCompactionProduct(last))
    return {
      ok: false,
      reason: `Your last message was compacted into a summary, so it cannot be ${verb}. Restore that compaction in the Compactions view first.`,
    };
  if (last.id !== messageId)
    return {
      ok: false,
      reason: messages.some((m) => m.id === messageId)
        ? `Only your last message can be ${verb}.`
        : `That message is no longer in the conversation as it was sent (it was compacted), so it cannot be ${verb}. Restore that compaction in the Compactions view first.`,
    };
  const tail = messages.slice(index);
  const tailIds = new Set(tail.map((m) => m.id));
  const changed = compactions.find(
    (c) => c.active && c.record.layer !== 'rewind' && c.record.replacement.some((m) => tailIds.has(m.id)),
  );
  if (changed || tail.some(isCompactionProduct))
    return {
      ok: false,
      reason: `Your last turn was compacted${changed ? ` (compaction ${changed.record.id})` : ''}, so it cannot be ${verb} as it was sent. Restore that compaction in the Compactions view first.`,
    };
  if (kind === 'retry' && index === messages.length - 1)
    return { ok: false, reason: 'Claude has not answered your last message yet: use Retry on the error instead.' };
  return { ok: true, index };
}

/**
 * Plans Retry (`kind` `retry`: every message after the user's last one leaves) or Edit (`edit`:
 * that message leaves too) of message `messageId` (refusals: see {@link rewindStart}). The
 * record keeps the messages that left, in order, as its originals, with an empty replacement
 * and `after` the id of the message before them (absent: they started the conversation).
 */
export function planRewind(
  messages: readonly Message[],
  messageId: string,
  kind: RewindKind,
  ctx: RewindContext,
  compactions: readonly RewindCompaction[] = [],
): RewindPlan {
  const start = rewindStart(messages, messageId, kind, compactions);
  if (!start.ok) return start;
  const from = kind === 'retry' ? start.index + 1 : start.index;
  return { ok: true, messages: messages.slice(0, from), record: rewindRecord(messages, from, kind, ctx) };
}

/** The record of a rewind that takes messages `from` … the end out of `messages` (at least one). */
export function rewindRecord(
  messages: readonly Message[],
  from: number,
  kind: RewindKind | 'restore',
  ctx: RewindContext,
): CompactionRecord {
  const originals = messages.slice(from);
  const removed = originals.reduce((sum, m) => sum + ctx.tokensOf(m), 0);
  const before = messages.reduce((sum, m) => sum + ctx.tokensOf(m), 0);
  const after = messages[from - 1]?.id;
  return {
    id: ctx.id,
    at: ctx.at,
    trigger: 'rewind',
    layer: 'rewind',
    strategy: kind,
    regions: [
      {
        firstTurn: originals[0]?.turn ?? 0,
        lastTurn: originals.at(-1)?.turn ?? 0,
        messageIds: originals.map((m) => m.id),
        tokens: removed,
      },
    ],
    originals,
    replacement: [],
    tokensBefore: before,
    tokensAfter: before - removed,
    costUsd: 0,
    durationMs: 0,
    fallbacks: [],
    ...(after !== undefined ? { after } : {}),
  };
}

/**
 * Plans Rewind to here of the user's message `messageId`: it and every message after it leave
 * the live history (kept as the record's originals, restorable like a Retry). Allowed for any
 * message holding the user's own words that is in the history as sent; refused when it was
 * compacted (a summary stands for it: restore that compaction first). Later compactions go
 * with the messages after it (their summaries are in the originals).
 */
export function planRewindTo(messages: readonly Message[], messageId: string, ctx: RewindContext): RewindPlan {
  const index = messages.findIndex((m) => m.id === messageId);
  const target = messages[index];
  if (!target)
    return {
      ok: false,
      reason:
        'That message is no longer in the conversation as it was sent (it was compacted): restore that compaction in the Compactions view first.',
    };
  if (target.role !== 'user' || !target.blocks.some(isUserWords) || isCompactionProduct(target))
    return { ok: false, reason: 'Only a message you wrote can be rewound to.' };
  return { ok: true, messages: messages.slice(0, index), record: rewindRecord(messages, index, 'to', ctx) };
}

/**
 * The record of a rewind of the workspace files only, to the checkpoint of message
 * `messageId`: nothing leaves the conversation (no originals; applying or undoing it changes no
 * message — see {@link isFilesOnlyRewind}); the files it changed are in the checkpoint journal
 * under its id.
 */
export function filesRewindRecord(
  messages: readonly Message[],
  messageId: string,
  ctx: RewindContext,
): CompactionRecord {
  const at = messages.find((m) => m.id === messageId);
  const tokens = messages.reduce((sum, m) => sum + ctx.tokensOf(m), 0);
  return {
    id: ctx.id,
    at: ctx.at,
    trigger: 'rewind',
    layer: 'rewind',
    strategy: 'files',
    regions: [{ firstTurn: at?.turn ?? 0, lastTurn: at?.turn ?? 0, messageIds: [], tokens: 0 }],
    originals: [],
    replacement: [],
    tokensBefore: tokens,
    tokensAfter: tokens,
    costUsd: 0,
    durationMs: 0,
    fallbacks: [],
  };
}

/** Whether `record` rewound the workspace files only (the conversation is untouched by it and by its undo). */
export function isFilesOnlyRewind(record: Pick<CompactionRecord, 'layer' | 'strategy'>): boolean {
  return record.layer === 'rewind' && record.strategy === 'files';
}

/**
 * Undoing rewind `record`: the messages after the one it followed (the answer that took its
 * place) leave as a new rewind (`ctx` names it; undefined when nothing followed), and its
 * originals go back after that message. Refused when that message is no longer in the
 * conversation, or when an active compaction changed a message that would leave.
 */
export function planRewindRestore(
  messages: readonly Message[],
  record: Pick<CompactionRecord, 'originals' | 'after'>,
  ctx: RewindContext,
  compactions: readonly RewindCompaction[] = [],
):
  | { readonly ok: true; readonly messages: readonly Message[]; readonly displaced: CompactionRecord | undefined }
  | { readonly ok: false; readonly reason: string } {
  const from = record.after === undefined ? 0 : messages.findIndex((m) => m.id === record.after) + 1;
  if (from === 0 && record.after !== undefined)
    return {
      ok: false,
      reason:
        'The message this retry or edit followed is no longer in the conversation (it was compacted): restore that compaction first.',
    };
  const leaving = messages.slice(from);
  const ids = new Set(leaving.map((m) => m.id));
  const changed = compactions.find(
    (c) => c.active && c.record.layer !== 'rewind' && c.record.replacement.some((m) => ids.has(m.id)),
  );
  if (changed || leaving.some(isCompactionProduct))
    return {
      ok: false,
      reason: `A compaction${changed ? ` (${changed.record.id})` : ''} changed the answer that took this one's place: restore that compaction first.`,
    };
  const displaced = leaving.length > 0 ? rewindRecord(messages, from, 'restore', ctx) : undefined;
  return { ok: true, messages: [...messages.slice(0, from), ...record.originals], displaced };
}

/**
 * A rewind's originals back after the message it followed, which must now end the conversation
 * (replaying a session file: the displaced answer's rewind entry comes first); undefined when not.
 */
export function reinsertRewind(
  messages: readonly Message[],
  record: Pick<CompactionRecord, 'originals' | 'after'>,
): Message[] | undefined {
  const end = messages.at(-1)?.id;
  if (record.after !== end) return undefined;
  return [...messages, ...record.originals];
}
