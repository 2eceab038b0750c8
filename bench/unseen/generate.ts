/**
 * Writes the unseen sessions: each case's records as `<dir>/<name>.transcript.jsonl`, one case
 * at a time (so only one transcript is in memory), the same bytes on every run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { caseContext, type CaseContext, type UnseenCase } from './context';
import { serializeRecords } from './records';

/** A transcript written: its case name, its file, its usage records and its size. */
export interface GeneratedTranscript {
  readonly name: string;
  readonly file: string;
  readonly requests: number;
  readonly bytes: number;
}

/**
 * Builds and writes `cases` into `dir` (created when missing; other files in it are left
 * alone); `onWritten` hears of each file as it is written. Returns the files in case order.
 */
export function generateUnseen(
  dir: string,
  cases: readonly UnseenCase[],
  onWritten: (t: GeneratedTranscript) => void = () => undefined,
  ctx: CaseContext = caseContext(),
): GeneratedTranscript[] {
  mkdirSync(dir, { recursive: true });
  return cases.map((c) => {
    const records = c.build(ctx);
    const text = serializeRecords(records);
    const file = join(dir, `${c.name}.transcript.jsonl`);
    writeFileSync(file, text);
    const t: GeneratedTranscript = {
      name: c.name,
      file,
      requests: records.filter((r) => r.kind === 'usage').length,
      bytes: Buffer.byteLength(text),
    };
    onWritten(t);
    return t;
  });
}
