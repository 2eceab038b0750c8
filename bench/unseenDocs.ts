/**
 * `npm run docs:unseen -- <saved unseen output> [docs/benchmarks.md]`: the unseen-session
 * summary of docs/benchmarks.md, written from a saved `unseen` run (its last line, the JSON),
 * never by hand. The block between `<!-- unseen:begin -->` and `<!-- unseen:end -->` holds the
 * part of the run it reads as a minified `<!-- unseen:json … -->` comment, then per window: the
 * replays, the default's and the baseline's overflows and invalid requests, and the default's
 * cost ÷ the baseline's over the sessions where the baseline never overflowed (an overflowing
 * baseline sent requests the API refuses, so its cost is no yardstick): mean, median, the worst
 * session and how many exceed 1.00; over the same sessions, those whose forward-reference recall
 * without summaries falls more than 2 points below the baseline's (with how many identifiers it
 * counts: a session whose answers referenced 2 moves by 50 points on one; and, in runs that
 * carry it, the share of them last mentioned within the tail the default keeps verbatim: what
 * recency alone could hold, referenceAge.ts); then the skipped
 * sessions. benchDocs.test.ts re-renders the
 * block from its JSON and fails when the file states a figure the generator would not write.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { between, ratio, stamp, withTable } from './readmeTable';
import type { RunMeta } from './runMeta';

/** The fields of an unseen row the summary reads (unseen/report.ts `UnseenRow`). */
export interface UnseenDocRow {
  readonly transcript: string;
  readonly window: number;
  readonly policy: string;
  readonly overflows: number;
  readonly invalid: number;
  readonly cost_usd: number | null;
  /** Absent in runs before the unseen rows carried recall. */
  readonly frr_no_summary?: number | null;
  readonly frr_referenced?: number;
  /** Absent in runs before the rows carried it (unseen/report.ts `UnseenRow.frr_recent`). */
  readonly frr_recent?: number | null;
}

/** What the summary is made of: the JSON line of an unseen run (the fields it reads). */
export interface UnseenJson {
  readonly rows: readonly UnseenDocRow[];
  readonly skipped: readonly { readonly transcript: string }[];
  readonly meta?: Partial<RunMeta>;
}

export const UNSEEN_BEGIN = '<!-- unseen:begin -->';
export const UNSEEN_END = '<!-- unseen:end -->';
const JSON_OPEN = '<!-- unseen:json ';
const JSON_CLOSE = ' -->';

/** The last line of an unseen output that parses as its JSON, or an error in words. */
export function unseenJson(output: string): UnseenJson | { readonly error: string } {
  const lines = output.split('\n').filter((l) => l.startsWith('{'));
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const json = JSON.parse(lines[i] as string) as Partial<UnseenJson>;
      if (Array.isArray(json.rows) && Array.isArray(json.skipped)) return tableInput(json as UnseenJson);
    } catch {
      // not the JSON line: try the one before
    }
  }
  return { error: 'no {"rows":[…],"skipped":[…]} line: is this the output of npm run bench -- unseen?' };
}

/** Only the fields the summary reads, so the embedded comment stays small. */
function tableInput(json: UnseenJson): UnseenJson {
  return {
    rows: json.rows.map(
      ({ transcript, window, policy, overflows, invalid, cost_usd, frr_no_summary, frr_referenced, frr_recent }) => ({
        transcript,
        window,
        policy,
        overflows,
        invalid,
        cost_usd,
        ...(frr_no_summary !== undefined ? { frr_no_summary } : {}),
        ...(frr_referenced !== undefined ? { frr_referenced } : {}),
        ...(frr_recent !== undefined ? { frr_recent } : {}),
      }),
    ),
    skipped: json.skipped.map(({ transcript }) => ({ transcript })),
    ...(json.meta ? { meta: json.meta } : {}),
  };
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** The summary's markdown (see the module comment). */
export function unseenSummary(json: UnseenJson): string {
  const sessions = new Set(json.rows.map((r) => r.transcript)).size;
  const out = [
    `${stamp(json.meta)}: ${sessions} generated sessions, ${json.rows.length} replays (\`npm run bench -- unseen\`, written here by \`npm run docs:unseen\`).`,
    '',
    "| window | replays (default / baseline) | default: overflows / invalid | baseline: overflows / invalid (sessions that overflow) | default ÷ baseline where the baseline fits: mean, median (sessions) | worst | over 1.00 | FRR without summaries more than 2 points below the baseline's: default (baseline) of n identifiers, r % of them last mentioned within the newest tokens the default keeps verbatim |",
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const w of [...new Set(json.rows.map((r) => r.window))].sort((a, b) => a - b)) {
    const of = (policy: string) => json.rows.filter((r) => r.window === w && r.policy === policy);
    const [d, b] = [of('default'), of('baseline')];
    const sum = (rs: readonly UnseenDocRow[], k: 'overflows' | 'invalid') => rs.reduce((n, r) => n + r[k], 0);
    const pairs = d.flatMap((r) => {
      const base = b.find((x) => x.transcript === r.transcript);
      if (!base || base.overflows > 0 || r.cost_usd === null || !base.cost_usd) return [];
      return [{ name: r.transcript, ratio: r.cost_usd / base.cost_usd }];
    });
    const ratios = pairs.map((p) => p.ratio);
    const worst = pairs.reduce<(typeof pairs)[number] | undefined>(
      (a, p) => (!a || p.ratio > a.ratio ? p : a),
      undefined,
    );
    out.push(
      `| ${w / 1000}k | ${d.length} / ${b.length} | ${sum(d, 'overflows')} / ${sum(d, 'invalid')} | ${sum(b, 'overflows')} / ${sum(b, 'invalid')} (${b.filter((r) => r.overflows > 0).length}) | ${
        ratios.length === 0
          ? '—'
          : `${ratio(ratios.reduce((a, x) => a + x, 0) / ratios.length)}, ${ratio(median(ratios))} (${ratios.length})`
      } | ${worst ? `${ratio(worst.ratio)} \`${worst.name}\`` : '—'} | ${ratios.filter((x) => x > 1).length} | ${recallLosses(d, b)} |`,
    );
  }
  out.push(
    '',
    json.skipped.length === 0
      ? 'No session was skipped.'
      : `Skipped (no usage record to replay, or the replay threw): ${json.skipped.map((s) => `\`${s.transcript}\``).join(', ')}.`,
  );
  return out.join('\n');
}

/**
 * The default's sessions (where the baseline fits) whose recall without summaries is more than
 * 2 points below the baseline's, each as `name` default % (baseline %) of n; `—` when the rows
 * carry no recall (an older run).
 */
function recallLosses(d: readonly UnseenDocRow[], b: readonly UnseenDocRow[]): string {
  if (!d.some((r) => r.frr_no_summary !== undefined)) return '—';
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  const lost = d.flatMap((r) => {
    const base = b.find((x) => x.transcript === r.transcript);
    const [mine, theirs] = [r.frr_no_summary, base?.frr_no_summary];
    if (!base || base.overflows > 0 || mine == null || theirs == null || mine >= theirs - 0.02) return [];
    const recent = r.frr_recent == null ? '' : `, ${Math.round(r.frr_recent * 100)} % recent`;
    return [`\`${r.transcript}\` ${pct(mine)} (${pct(theirs)}) of ${r.frr_referenced ?? '?'}${recent}`];
  });
  return lost.length === 0 ? 'none' : `${lost.length}: ${lost.join('; ')}`;
}

/** The block: the summary's input as a comment, then the summary rendered from it. */
export function unseenBlock(json: UnseenJson): string {
  const input = tableInput(json);
  return `${JSON_OPEN}${JSON.stringify(input).replace(/--/g, '-\\u002d')}${JSON_CLOSE}\n\n${unseenSummary(input)}`;
}

/** Where docs/benchmarks.md's unseen block differs from what its own JSON renders (empty: none). */
export function unseenDrift(benchmarks: string): string[] {
  const block = between(benchmarks, UNSEEN_BEGIN, UNSEEN_END);
  if (block === undefined) return [`docs/benchmarks.md has no ${UNSEEN_BEGIN} … ${UNSEEN_END} section`];
  const a = block.indexOf(JSON_OPEN);
  const b = a < 0 ? -1 : block.indexOf(JSON_CLOSE, a + JSON_OPEN.length);
  if (a < 0 || b < 0) return [`docs/benchmarks.md: no ${JSON_OPEN.trim()} … ${JSON_CLOSE.trim()} comment`];
  let json: UnseenJson;
  try {
    json = JSON.parse(block.slice(a + JSON_OPEN.length, b)) as UnseenJson;
  } catch {
    return [`docs/benchmarks.md: the ${JSON_OPEN.trim()} comment does not parse`];
  }
  return block === unseenBlock(json) ? [] : ['docs/benchmarks.md: the unseen block is not what its JSON renders'];
}

/** The command: reads the saved output, rewrites docs/benchmarks.md's unseen block. */
export function runUnseenDocs(args: readonly string[]): number {
  const [file, benchmarksPath = 'docs/benchmarks.md'] = args;
  if (!file) {
    process.stderr.write(
      'usage: npm run docs:unseen -- <saved unseen output> [docs/benchmarks.md]\n' +
        '  (save one with: npm run bench -- unseen > /tmp/unseen.txt)\n',
    );
    return 2;
  }
  const json = unseenJson(readFileSync(file, 'utf8'));
  if ('error' in json) {
    process.stderr.write(`${json.error}\n`);
    return 1;
  }
  const next = withTable(
    readFileSync(benchmarksPath, 'utf8'),
    unseenBlock(json),
    UNSEEN_BEGIN,
    UNSEEN_END,
    benchmarksPath,
  );
  if (typeof next !== 'string') {
    process.stderr.write(`${next.error}\n`);
    return 1;
  }
  writeFileSync(benchmarksPath, next);
  console.log(`${benchmarksPath} (unseen summary): rewritten from ${file}, ${json.rows.length} rows`);
  return 0;
}
