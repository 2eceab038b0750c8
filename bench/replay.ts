/**
 * `npm run bench -- replay <transcript.jsonl> [--window N] [--policy P]`: replays a real
 * transcript through the whole pipeline under one compaction policy (policies.ts; `--baseline`
 * is `--policy baseline`) and prints each compaction, peak utilisation, overflows, refused
 * requests by reason, tokens sent, the simulated cache's reads and writes, the cost of each
 * request at its own model's price, forward-reference recall, and a JSON row as the last line
 * (also appended to the file `REPLAY_JSON` names, when set). See replayCore.ts.
 */
import { appendFileSync } from 'node:fs';
import { createTiktokenTokenizer } from '../src/core/tokens/tiktoken';
import { isPolicyName, policy, POLICY_NAMES, type PolicyName } from './policies';
import { prepareTranscript, replay } from './replayCore';
import { printReplay, totalCost } from './replayReport';
import { describeIgnored, nothingToReplay, readTranscript, type IgnoredRecords } from './transcript';
import { describeStandIns, type StandIns } from './blockStandIn';

const USAGE = `usage: npm run bench -- replay <transcript.jsonl> [--window N] [--policy ${POLICY_NAMES.join('|')}] [--baseline]\n`;

/** Parsed arguments of `replay`, or the problem with them. */
export type ReplayArgs =
  | { readonly ok: true; readonly file: string; readonly window: number; readonly policy: PolicyName }
  | { readonly ok: false; readonly error: string };

/** Parses `replay`'s arguments: one file, `--window N` (default 200000), `--policy P` or `--baseline`. */
export function parseReplayArgs(args: readonly string[]): ReplayArgs {
  let file: string | undefined;
  let window = 200_000;
  let name: string = 'default';
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--window') window = Number(args[++i]);
    else if (a === '--policy') name = args[++i] ?? '';
    else if (a === '--baseline') name = 'baseline';
    else if (a.startsWith('--')) return { ok: false, error: `unknown option ${a}` };
    else if (file === undefined) file = a;
    else return { ok: false, error: `one transcript at a time (got ${file} and ${a}); replay-all replays a folder` };
  }
  if (!file) return { ok: false, error: 'no transcript given' };
  if (!Number.isInteger(window) || window <= 0)
    return { ok: false, error: '--window needs a positive whole number of tokens' };
  if (!isPolicyName(name)) return { ok: false, error: `unknown policy "${name}" (one of ${POLICY_NAMES.join(', ')})` };
  return { ok: true, file, window, policy: name };
}

/** Runs the replay; returns the exit code. */
export async function runReplay(args: readonly string[]): Promise<number> {
  const parsed = parseReplayArgs(args);
  if (!parsed.ok) {
    process.stderr.write(`${parsed.error}\n${USAGE}`);
    return 2;
  }
  const p = policy(parsed.policy);
  const standIns: StandIns = new Map();
  const ignored: IgnoredRecords = new Map();
  const events = readTranscript(parsed.file, standIns, ignored);
  const empty = nothingToReplay(events, parsed.file);
  if (empty) {
    process.stderr.write(`${empty}\n`);
    return 1;
  }
  const prepared = prepareTranscript(parsed.file, events, createTiktokenTokenizer());
  if (standIns.size > 0) console.log(`note: blocks replayed as text stand-ins: ${describeStandIns(standIns)}`);
  if (ignored.size > 0) console.log(`note: not replayed as written: ${describeIgnored(ignored)}`);
  const result = await replay(prepared, { window: parsed.window, policy: p });
  const row = printReplay(result, p.description, parsed.policy === 'baseline' ? totalCost(result) : undefined);
  if (process.env.REPLAY_JSON) appendFileSync(process.env.REPLAY_JSON, `${JSON.stringify(row)}\n`);
  return 0;
}
