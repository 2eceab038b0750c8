/**
 * `npm run bench -- unseen [--out DIR] [--only SUBSTRING] [--windows N,…] [--policies P,…]`:
 * the sweep over sessions the pipeline has not seen. Generates the cases (cases.ts) into DIR
 * (default: a fresh folder under the OS temp dir; never the repository), then replays each
 * transcript with the repo's replay (replayCore.ts) at each window under each policy (default
 * 100k and 200k, `default` and `baseline`) and prints the table, the default-policy rows with
 * an overflow or an invalid request, and `{"rows":[…],"skipped":[…],"meta":…}` last (report.ts). The
 * scripted summariser writes as much as the real agents' summaries in the fixtures
 * (`SUMMARY_LENGTH`, as `replay FILE` does): the generated compaction records are not real
 * summaries, and one of the cases makes them long on purpose. A transcript the replay refuses (no
 * usage record of a request) is listed under `skipped` with its reason, and so is a replay
 * that throws; the others still run. Exit code 0 (a benchmark, not a test), 2 on bad arguments.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';
import type { Tokenizer } from '../../src/core/platform/platformPorts';
import { describeStandIns, type StandIns } from '../blockStandIn';
import { endPointRows, printEndPoints, type EndPointsRow } from '../endPoints';
import { policy, type PolicyName } from '../policies';
import { prepareTranscript, replay, type ReplayResult } from '../replayCore';
import { recentReferenceShare } from '../referenceAge';
import { defaultKeepRecentTokens } from '../../src/core/pipeline/config';
import { runMeta } from '../runMeta';
import { describeReplayRepairs, type SkippedTranscript } from '../replayReport';
import { SUMMARY_LENGTH } from '../summaryLength';
import { describeIgnored, nothingToReplay, readTranscript, type IgnoredRecords } from '../transcript';
import { parseUnseenArgs, UNSEEN_USAGE } from './args';
import { casesMatching } from './cases';
import { generateUnseen } from './generate';
import { jsonLine, problemLine, TABLE_LEGEND, UnseenTable, unseenRow, type UnseenRow } from './report';

/** A transcript to replay: its case name and its file. */
export interface UnseenTranscript {
  readonly name: string;
  readonly file: string;
}

/** What the sweep replays each transcript at and under, and where its lines go. */
export interface UnseenReplayOptions {
  readonly windows: readonly number[];
  readonly policies: readonly PolicyName[];
  /** The report's lines (default console.log). */
  readonly print?: (line: string) => void;
  /** Progress (default stderr). */
  readonly progress?: (line: string) => void;
  readonly tokenizer?: Tokenizer;
}

/** What the sweep measured: a row per replay, and what it could not replay. */
export interface UnseenReport {
  readonly rows: readonly UnseenRow[];
  readonly skipped: readonly SkippedTranscript[];
  /** The default's ratio had each session ended earlier, where both it and the baseline ran (endPoints.ts). */
  readonly endPoints: readonly EndPointsRow[];
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/**
 * Replays each transcript at every window under every policy, one transcript in memory at a
 * time, printing a table row per replay as it finishes, then the notes (stand-ins, records read
 * past, normalize's repairs under `default`, invalid requests by reason) and the skipped.
 * Prints neither the problem line nor the JSON (runUnseen does); returns the rows and the skipped.
 */
export async function replayUnseen(
  transcripts: readonly UnseenTranscript[],
  opts: UnseenReplayOptions,
): Promise<UnseenReport> {
  const print = opts.print ?? ((l: string) => console.log(l));
  const progress = opts.progress ?? ((l: string) => void process.stderr.write(`${l}\n`));
  const tokenizer = opts.tokenizer ?? createTiktokenTokenizer();
  const table = new UnseenTable(
    Math.max(0, ...transcripts.map((t) => t.name.length)),
    Math.max(0, ...opts.policies.map((p) => p.length)),
  );
  const rows: UnseenRow[] = [];
  const skipped: SkippedTranscript[] = [];
  const notes: string[] = [];
  const endPoints: EndPointsRow[] = [];
  print(table.header());
  for (const t of transcripts) {
    const standIns: StandIns = new Map();
    const ignored: IgnoredRecords = new Map();
    let events: ReturnType<typeof readTranscript>;
    try {
      events = readTranscript(t.file, standIns, ignored);
      const empty = nothingToReplay(events, t.name);
      if (empty) throw new Error(empty);
    } catch (e) {
      skipped.push({ transcript: t.name, error: e instanceof Error ? e.message : String(e) });
      progress(`skipped ${t.name}`);
      continue;
    }
    if (standIns.size > 0)
      notes.push(`note: ${t.name}: blocks replayed as text stand-ins: ${describeStandIns(standIns)}`);
    if (ignored.size > 0) notes.push(`note: ${t.name}: not replayed as written: ${describeIgnored(ignored)}`);
    const length = SUMMARY_LENGTH;
    const prepared = prepareTranscript(t.name, events, tokenizer);
    progress(`replaying ${t.name}`);
    // This transcript's results, for its end points (one transcript's traces in memory at a time).
    const results: ReplayResult[] = [];
    for (const window of opts.windows) {
      const recent = recentReferenceShare(prepared, defaultKeepRecentTokens(window));
      for (const name of opts.policies) {
        const t0 = performance.now();
        try {
          const result = await replay(prepared, { window, policy: policy(name), summaryLength: length });
          const row = unseenRow(result, recent);
          rows.push(row);
          results.push(result);
          print(table.row(row, result.summaries));
          const where = `${t.name} at ${Math.round(window / 1000)}k, ${name}`;
          for (const [reason, n] of result.invalid) notes.push(`invalid ×${n} in ${where}: ${reason}`);
          const repaired = name === 'default' ? describeReplayRepairs(result.repairs) : undefined;
          if (repaired) notes.push(`note: ${where}: ${repaired}`);
        } catch (e) {
          const error = `replay at ${window} with ${name} failed: ${e instanceof Error ? e.message : String(e)}`;
          skipped.push({ transcript: t.name, error });
        }
        progress(`replayed ${t.name} at ${window} with ${name} in ${seconds(performance.now() - t0)} s`);
      }
    }
    endPoints.push(...endPointRows(results));
  }
  print(TABLE_LEGEND);
  for (const n of notes) print(n);
  for (const s of skipped) print(`SKIPPED ${s.transcript}: ${s.error}`);
  printEndPoints(endPoints, (name) => name, print);
  return { rows, skipped, endPoints };
}

/** Runs the sweep; returns the exit code (0, or 2 on bad arguments). */
export async function runUnseen(args: readonly string[]): Promise<number> {
  const parsed = parseUnseenArgs(args);
  if ('error' in parsed) {
    process.stderr.write(`${parsed.error}\n${UNSEEN_USAGE}`);
    return 2;
  }
  const started = performance.now();
  const meta = runMeta(); // the commit as the run starts: edits during it do not change what ran
  const dir = parsed.out ?? mkdtempSync(join(tmpdir(), 'context-pipeline-unseen-'));
  const cases = casesMatching(parsed.only);
  const generated = generateUnseen(dir, cases, (g) =>
    console.log(`generated ${g.name}: ${g.requests} usage records, ${(g.bytes / 1e6).toFixed(1)} MB`),
  );
  const generatedMs = performance.now() - started;
  console.log(`generated ${generated.length} transcripts into ${dir} in ${seconds(generatedMs)} s`);
  const report = await replayUnseen(generated, { windows: parsed.windows, policies: parsed.policies });
  const total = performance.now() - started;
  console.log(
    `${report.rows.length} replays of ${generated.length} transcripts in ${seconds(total)} s (generation ${seconds(generatedMs)} s)`,
  );
  console.log(problemLine(report.rows, parsed.policies));
  console.log(jsonLine(report.rows, report.skipped, meta, report.endPoints));
  return 0;
}
