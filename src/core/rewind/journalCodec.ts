/**
 * The checkpoint journal as JSON lines (`checkpoints.jsonl`): a header, then one entry per
 * line, appended as they happen (checkpointJournal.ts). Each line is checked against a strict
 * schema when read back; a line that is not JSON, does not match, or cannot apply (a crash
 * mid-append, a hand edit) is skipped with its line number and a reason, never a crash and
 * never half-read. Pure: the host reads and appends the file.
 */
import * as v from 'valibot';
import {
  CheckpointJournal,
  JOURNAL_FORMAT,
  JOURNAL_VERSION,
  type ChangeVia,
  type JournalEntry,
} from './checkpointJournal';
import { SHA256_HEX, type CapKind, type FileState, type RefusalKind } from './fileState';

const size = v.pipe(v.number(), v.integer(), v.minValue(0));
const sha256 = v.pipe(v.string(), v.regex(SHA256_HEX));
const text = v.pipe(v.string(), v.minLength(1), v.excludes('\u0000'));

const fileStateSchema: v.GenericSchema<unknown, FileState> = v.variant('kind', [
  v.strictObject({ kind: v.literal('absent') }),
  v.strictObject({ kind: v.literal('content'), sha256, size }),
  v.strictObject({
    kind: v.literal('too-large'),
    size,
    cap: v.picklist(['file', 'session'] satisfies CapKind[]),
    capBytes: size,
    sha256: v.optional(sha256),
  }),
  v.strictObject({
    kind: v.literal('refused'),
    why: v.picklist(['symlink', 'not-a-file', 'unreadable', 'unsaved'] satisfies RefusalKind[]),
    detail: v.string(),
  }),
]);

/** The schema of one journal line (strict: an unknown field is damage). */
export const journalEntrySchema: v.GenericSchema<unknown, JournalEntry> = v.variant('type', [
  v.strictObject({
    type: v.literal('header'),
    format: v.literal(JOURNAL_FORMAT),
    version: v.literal(JOURNAL_VERSION),
  }),
  v.strictObject({ type: v.literal('checkpoint'), messageId: text }),
  v.strictObject({
    type: v.literal('change'),
    checkpoint: text,
    root: text,
    path: text,
    via: v.picklist(['write', 'command'] satisfies ChangeVia[]),
    before: fileStateSchema,
    after: v.optional(fileStateSchema),
  }),
  v.strictObject({ type: v.literal('after'), checkpoint: text, root: text, path: text, state: fileStateSchema }),
  v.strictObject({
    type: v.literal('rewind'),
    id: text,
    checkpoint: text,
    files: v.array(v.strictObject({ root: text, path: text, before: fileStateSchema, after: fileStateSchema })),
  }),
  v.strictObject({ type: v.literal('undo'), id: text }),
]);

/** The first line of every journal. */
export const JOURNAL_HEADER: JournalEntry = { type: 'header', format: JOURNAL_FORMAT, version: JOURNAL_VERSION };

/** One entry as its line (without the line break). */
export function encodeEntry(entry: JournalEntry): string {
  return JSON.stringify(entry);
}

/** One line read back: the entry, or why it is not one (`not JSON (…)`, `before.sha256: Invalid format…`). Never throws. */
export function decodeEntry(
  line: string,
): { readonly ok: true; readonly entry: JournalEntry } | { readonly ok: false; readonly reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(line, (key, value: unknown) => (key === '__proto__' ? undefined : value));
  } catch (e) {
    return { ok: false, reason: `not JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  const result = v.safeParse(journalEntrySchema, json);
  if (result.success) return { ok: true, entry: result.output };
  const issue = result.issues[0];
  const path = issue?.path?.map((p) => String(p.key)).join('.') ?? '';
  return { ok: false, reason: `${path ? `${path}: ` : ''}${issue?.message ?? 'not a journal entry'}` };
}

/** A line of the file that was left out, and why. Lines are numbered from 1. */
export interface SkippedLine {
  readonly line: number;
  readonly reason: string;
}

/** A journal read back: what applied, and the lines skipped. */
export interface DecodedJournal {
  readonly journal: CheckpointJournal;
  readonly skipped: readonly SkippedLine[];
}

/**
 * Reads a whole `checkpoints.jsonl` text into a journal. Blank lines are ignored; every other
 * line that is not a valid entry, or does not apply in order, is skipped with a reason.
 */
export function decodeJournal(fileText: string): DecodedJournal {
  const journal = new CheckpointJournal();
  const skipped: SkippedLine[] = [];
  fileText.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    const decoded = decodeEntry(line);
    const reason = decoded.ok ? journal.apply(decoded.entry) : decoded.reason;
    if (reason !== undefined) skipped.push({ line: i + 1, reason });
  });
  return { journal, skipped };
}
