/**
 * The three real sessions of test/fixtures/ as the generator's raw material: read fresh for
 * each case (so a case may change its records in place), each reported usage annotated for
 * usage.ts, and the places in them where a new request can go.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MessageEstimate } from './estimate';
import { parseRecords, type Block, type TranscriptRecord } from './records';
import { annotateFixture } from './usage';

/** The fixtures a case can start from, by a short name. */
export const FIXTURE_FILES = {
  sonnet: 'real-session-sonnet45.transcript.jsonl',
  cc: 'real-session-opus46-claude-code.transcript.jsonl',
  pi: 'real-session-opus45-pi.transcript.jsonl',
} as const;

/** A fixture's short name: `sonnet` (pi agent, Sonnet 4.5), `cc` (Claude Code, Opus 4.6), `pi` (pi agent, Opus 4.5). */
export type FixtureName = keyof typeof FIXTURE_FILES;

/** test/fixtures/ of this repository. */
export const FIXTURES_DIR = join(__dirname, '..', '..', 'test', 'fixtures');

/** A fixture's records, read fresh from `dir`, each reported usage annotated with its prompt and estimate. */
export function loadFixture(name: FixtureName, estimate: MessageEstimate, dir = FIXTURES_DIR): TranscriptRecord[] {
  const file = join(dir, FIXTURE_FILES[name]);
  const records = parseRecords(readFileSync(file, 'utf8'), file);
  annotateFixture(records, estimate);
  return records;
}

/** Index of the n-th usage record (0-based) in `records`, or `records.length`. */
function usageIndex(records: readonly TranscriptRecord[], n: number): number {
  let k = -1;
  for (let i = 0; i < records.length; i++) if (records[i]?.kind === 'usage' && ++k === n) return i;
  return records.length;
}

/**
 * Index of the first usage record from the n-th on whose preceding record is a user message:
 * a point where a new request can go (the end of `records` when there is none).
 */
export function insertionPoint(records: readonly TranscriptRecord[], n: number): number {
  let i = usageIndex(records, n);
  while (i < records.length) {
    const prev = records[i - 1];
    if (prev && prev.kind === 'message' && prev.message.role === 'user') return i;
    i = usageIndex(records, ++n);
  }
  return records.length;
}

/** The model and time of the first usage record at or after `i`, else the last before it. */
function modelAt(records: readonly TranscriptRecord[], i: number): { model: string; at?: string } {
  for (let k = i; k < records.length; k++) {
    const r = records[k];
    if (r?.kind === 'usage') return { model: r.model, at: r.at };
  }
  for (let k = i; k >= 0; k--) {
    const r = records[k];
    if (r?.kind === 'usage') return { model: r.model, at: r.at };
  }
  return { model: 'claude-sonnet-4-5' };
}

/**
 * Inserts one tool round at the insertion point of the n-th request: a request (its usage to
 * be filled, of the model and time around it), the assistant's `calls` and, when any, the
 * user's `results`. Returns where it went.
 */
export function insertRound(
  records: TranscriptRecord[],
  n: number,
  calls: readonly Block[],
  results: readonly Block[],
): number {
  const i = insertionPoint(records, n);
  const { model, at } = modelAt(records, i);
  const round: TranscriptRecord[] = [
    { kind: 'usage', model, ...(at ? { at } : {}), usage: {}, plan: { fresh: true, output: 200 } },
    { kind: 'message', message: { role: 'assistant', content: calls } },
  ];
  if (results.length > 0) round.push({ kind: 'message', message: { role: 'user', content: results } });
  records.splice(i, 0, ...round);
  return i;
}
