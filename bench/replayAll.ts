/**
 * `npm run bench -- replay-all [dir] [--windows N,…]`: replays every transcript of a folder
 * (default test/fixtures/) at 100k and 200k windows (or the ones given) under every policy,
 * and prints one table row per replay, the notes (refused requests by reason, unknown models, FRR by kind), the recency
 * bound of each transcript and window (recencyBound.ts) and, as the last line,
 * `{"rows":[…],"bounds":[…],"summary_carry":{…},"length_sensitivity":[…],"meta":{…}}` (meta: the
 * run's date, commit and machine, runMeta.ts; length_sensitivity: the default and the baseline
 * replayed again with summaries as long as the prompt asks, lengthSensitivity.ts, printed before
 * the table). The scripted summariser follows the one rule
 * of every bench: its length `SUMMARY_LENGTH` (summaryLength.ts) and the share of identifiers
 * it keeps `SUMMARY_KEEP` (summaryKeep.ts), both measured on the committed fixtures and
 * re-derived by their unit tests, never calibrated on the folder being measured; the "Summary
 * carry" section (carryReport.ts) prints what it carries against the real summaries of the
 * folder's compactions. Each transcript is parsed and prepared once
 * and shared by its replays (token counts are memoised on its blocks). A transcript that cannot
 * be read is named and skipped (the others still replay; the exit code is then 1), and valid
 * blocks the replay cannot carry are counted as text stand-ins (blockStandIn.ts).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createTiktokenTokenizer } from '../src/core/tokens/tiktoken';
import { policy, POLICY_NAMES } from './policies';
import { prepareTranscript, replay } from './replayCore';
import { frrShare } from './frr';
import { carryReport } from './carryReport';
import { boundRow, type BoundRow } from './recencyBound';
import {
  describeReplayRepairs,
  printTable,
  shortName,
  totalCost,
  type SkippedTranscript,
  type TimedResult,
} from './replayReport';
import { PROMPT_TARGET_LENGTH, printSensitivity, sensitivityRow, type SensitivityRow } from './lengthSensitivity';
import { SUMMARY_KEEP } from './summaryKeep';
import { SUMMARY_LENGTH } from './summaryLength';
import {
  describeIgnored,
  nothingToReplay,
  readTranscript,
  type IgnoredRecords,
  type TranscriptEvent,
} from './transcript';
import { describeStandIns, type StandIns } from './blockStandIn';
import { runMeta } from './runMeta';

/** The windows every transcript is replayed at by default. */
export const WINDOWS: readonly number[] = [100_000, 200_000];

/** What replay-all was asked for: the folder and the windows. */
export interface ReplayAllArgs {
  readonly dir: string;
  readonly windows: readonly number[];
}

/**
 * Parses the value of `--windows`: whole token counts of at least 1,000, comma-separated
 * (`_` allowed as a digit separator); an error names the value.
 */
export function parseWindows(value: string | undefined): readonly number[] | { readonly error: string } {
  const list = (value ?? '').split(',').map((x) => Number(x.replace(/_/g, '')));
  if (list.length === 0 || list.some((n) => !Number.isInteger(n) || n < 1_000))
    return { error: `--windows takes whole token counts of at least 1000, comma-separated (got "${value ?? ''}")` };
  return list;
}

/**
 * Parses `[dir] [--windows N,N,…]` (windows in tokens, each at least 1,000); an error names
 * what is wrong. Defaults: test/fixtures and {@link WINDOWS}.
 */
export function parseReplayAllArgs(args: readonly string[]): ReplayAllArgs | { readonly error: string } {
  let dir: string | undefined;
  let windows: readonly number[] = WINDOWS;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--windows') {
      const list = parseWindows(args[++i]);
      if ('error' in list) return list;
      windows = list;
    } else if (a.startsWith('--')) return { error: `unknown option ${a}` };
    else if (dir === undefined) dir = a;
    else return { error: `one folder only (got "${dir}" and "${a}")` };
  }
  return { dir: dir ?? 'test/fixtures', windows };
}

/** Runs every replay of the folder; returns the exit code. */
export async function runReplayAll(args: readonly string[]): Promise<number> {
  const parsed = parseReplayAllArgs(args);
  if ('error' in parsed) {
    process.stderr.write(
      `${parsed.error}\nusage: npm run bench -- replay-all [dir] [--windows 100000,200000]   (default test/fixtures/ at 100k and 200k)\n`,
    );
    return 2;
  }
  const { dir, windows } = parsed;
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => join(dir, f));
  if (files.length === 0) {
    process.stderr.write(`no .jsonl transcripts in ${dir}\n`);
    return 1;
  }
  const started = performance.now();
  const meta = runMeta(); // the commit as the run starts: edits during it do not change what ran
  const tokenizer = createTiktokenTokenizer();
  // A transcript that cannot be read is reported and skipped; the others still replay.
  const transcripts: { file: string; events: TranscriptEvent[] }[] = [];
  const skipped: SkippedTranscript[] = [];
  for (const file of files) {
    const standIns: StandIns = new Map();
    const ignored: IgnoredRecords = new Map();
    try {
      const events = readTranscript(file, standIns, ignored);
      // Rows of zeros would read as "no overflow": a file with no request is skipped, with why.
      const empty = nothingToReplay(events, file);
      if (empty) throw new Error(empty);
      transcripts.push({ file, events });
    } catch (e) {
      // Named with the table (printTable), once.
      skipped.push({ transcript: file, error: e instanceof Error ? e.message : String(e) });
      continue;
    }
    if (standIns.size > 0)
      console.log(`note: ${file}: blocks replayed as text stand-ins: ${describeStandIns(standIns)}`);
    if (ignored.size > 0) console.log(`note: ${file}: not replayed as written: ${describeIgnored(ignored)}`);
  }
  if (transcripts.length === 0) {
    for (const sk of skipped) process.stderr.write(`SKIPPED ${sk.transcript}: ${sk.error}\n`);
    process.stderr.write(`no transcript in ${dir} could be read\n`);
    return 1;
  }
  const length = SUMMARY_LENGTH;
  console.log(
    `Scripted summaries (measured on the fixtures' compaction records): max(${length.floor}, ${(length.ratio * 100).toFixed(1)} % of the region) tokens, at most max_tokens (SUMMARY_LENGTH), keeping ${(SUMMARY_KEEP * 100).toFixed(1)} % of the region's identifiers (SUMMARY_KEEP)`,
  );
  const results: TimedResult[] = [];
  const bounds: BoundRow[] = [];
  const sensitivity: SensitivityRow[] = [];
  for (const t of transcripts) {
    const prepared = prepareTranscript(t.file, t.events, tokenizer);
    for (const window of windows) {
      for (const name of POLICY_NAMES) {
        const t0 = performance.now();
        const result = await replay(prepared, { window, policy: policy(name), summaryLength: length });
        results.push({ result, wallMs: performance.now() - t0 });
        const repaired = name === 'default' ? describeReplayRepairs(result.repairs) : undefined;
        if (repaired) console.log(`note: ${t.file} at ${window}, default: ${repaired}`);
        if (name === 'baseline')
          bounds.push(
            boundRow(prepared, window, { costUsd: totalCost(result), frr: frrShare(result.frr.overall, false) }),
          );
        process.stderr.write(
          `replayed ${t.file} at ${window} with ${name} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
        );
      }
      // The same two policies with summaries as long as the prompt asks (lengthSensitivity.ts).
      const d = await replay(prepared, { window, policy: policy('default'), summaryLength: PROMPT_TARGET_LENGTH });
      const b = await replay(prepared, { window, policy: policy('baseline'), summaryLength: PROMPT_TARGET_LENGTH });
      sensitivity.push(sensitivityRow(d, b));
    }
  }
  console.log(`${results.length} replays in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const carry = carryReport(transcripts, (text) => tokenizer.count(text));
  printSensitivity(sensitivity, shortName);
  printTable(results, bounds, skipped, { summary_carry: carry, length_sensitivity: sensitivity, meta });
  return skipped.length > 0 ? 1 : 0;
}
