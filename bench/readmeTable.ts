/**
 * `npm run bench -- readme-table <replay-all output>`: the README's benchmark table, written
 * from a saved `replay-all` run (its last line, the JSON), never by hand. The table goes
 * between the README's `<!-- replay-all:begin -->` and `<!-- replay-all:end -->` markers, with
 * the run's date and the fixtures' names; the rest of the README is left as it is. Per
 * transcript and window: the default policy's cost, its ratio to the baseline, Claude Code's and
 * server-clear's ratios, the floor, FRR without summaries (default and baseline), overflows and
 * invalid requests over every policy, where the default's money goes; then the mean ratios, the
 * recency bound of each row (bounds) and what the real and the scripted summaries carry
 * (summary_carry).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { CarryReport } from './carryReport';
import type { BreakdownRow } from './costBreakdown';
import type { BoundRow } from './recencyBound';
import type { ReplayRow } from './replayReport';

/** What the table is made of: the JSON line of a replay-all run (the fields it reads). */
export interface ReplayAllJson {
  readonly rows: readonly TableRow[];
  readonly breakdown?: readonly BreakdownRow[];
  readonly summary_carry?: Pick<CarryReport, 'keep' | 'real_share' | 'scripted_share'> & {
    readonly rows: readonly Pick<CarryReport['rows'][number], 'compactions' | 'summaryOnly'>[];
  };
  readonly bounds?: readonly BoundRow[];
}

/** The fields of a `rows` entry the table reads (replayReport.ts `ReplayRow`). */
export type TableRow = Pick<
  ReplayRow,
  | 'transcript'
  | 'window'
  | 'policy'
  | 'overflows'
  | 'invalid'
  | 'cost_usd'
  | 'cost_ratio'
  | 'floor_ratio'
  | 'frr_no_summary'
>;

export const BEGIN = '<!-- replay-all:begin -->';
export const END = '<!-- replay-all:end -->';

/** The last line of a replay-all output that parses as its JSON, or an error in words. */
export function replayAllJson(output: string): ReplayAllJson | { readonly error: string } {
  const lines = output.trimEnd().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]?.trim() ?? '';
    if (!line.startsWith('{"rows":')) continue;
    try {
      return JSON.parse(line) as ReplayAllJson;
    } catch {
      return { error: 'the last {"rows":…} line does not parse: was the run cut off?' };
    }
  }
  return { error: 'no {"rows":…} line: pass the saved output of `npm run bench -- replay-all`' };
}

const ratio = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x.toFixed(2));
const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)} %`);
const usd = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x.toFixed(2));
const short = (t: string) =>
  basename(t)
    .replace(/^real-session-/, '')
    .replace(/\.transcript\.jsonl$/, '');

/** The Markdown of the table (see the module comment), `date` naming the run. */
export function readmeTable(json: ReplayAllJson, date: string): string {
  const find = (t: string, w: number, p: string) =>
    json.rows.find((r) => r.transcript === t && r.window === w && r.policy === p);
  const keys = [...new Map(json.rows.map((r) => [`${r.transcript}@${r.window}`, r])).values()];
  const out = [
    `Replayed ${date} (\`npm run bench -- replay-all\`, then \`npm run bench -- readme-table\`); ratios are cost ÷ the baseline's on the same transcript and window.`,
    '',
    '| transcript | window | default $ | default ÷ baseline | claude-code ÷ baseline | server-clear ÷ baseline | floor ÷ baseline | FRR w/o summaries: default (baseline) | overflows / invalid, all policies | default: read · write (growth, compaction, TTL, miss) · output · summariser $ |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const k of keys) {
    const d = find(k.transcript, k.window, 'default');
    const b = find(k.transcript, k.window, 'baseline');
    const all = json.rows.filter((r) => r.transcript === k.transcript && r.window === k.window);
    const bd = json.breakdown?.find(
      (r) => r.transcript === k.transcript && r.window === k.window && r.policy === 'default',
    );
    const money = bd
      ? `${usd(bd.read)} · ${usd(bd.write_growth)}, ${usd(bd.write_compaction)}, ${usd(bd.write_ttl)}, ${usd(bd.write_miss)} · ${usd(bd.output)} · ${usd(bd.summariser)}`
      : '—';
    out.push(
      `| ${short(k.transcript)} | ${k.window / 1000}k | ${usd(d?.cost_usd)} | ${ratio(d?.cost_ratio)} | ${ratio(find(k.transcript, k.window, 'claude-code')?.cost_ratio)} | ${ratio(find(k.transcript, k.window, 'server-clear')?.cost_ratio)} | ${ratio(d?.floor_ratio)} | ${pct(d?.frr_no_summary)} (${pct(b?.frr_no_summary)}) | ${all.reduce((n, r) => n + r.overflows, 0)} / ${all.reduce((n, r) => n + r.invalid, 0)} | ${money} |`,
    );
  }
  for (const w of [...new Set(keys.map((k) => k.window))]) {
    const ratios = (p: string) =>
      json.rows
        .filter((r) => r.window === w && r.policy === p && r.cost_ratio !== null)
        .map((r) => r.cost_ratio as number);
    const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
    const d = ratios('default');
    out.push(
      `| **mean** | ${w / 1000}k | | **${ratio(mean(d))}** (${ratio(Math.min(...d))}–${ratio(Math.max(...d))}) | ${ratio(mean(ratios('claude-code')))} | ${ratio(mean(ratios('server-clear')))} | | | | |`,
    );
  }
  if (json.bounds && json.bounds.length > 0) {
    out.push(
      '',
      'The recency bound (see below): the least a bare tail of the newest K tokens pays to hold the baseline’s FRR less 2 points.',
      '',
      '| transcript | window | FRR to hold | tail that holds it (FRR) | bound ÷ baseline | default ÷ baseline (FRR w/o summaries) |',
      '|---|---|---|---|---|---|',
    );
    for (const b of json.bounds) {
      const d = find(b.transcript, b.window, 'default');
      out.push(
        `| ${short(b.transcript)} | ${b.window / 1000}k | ${pct(b.target_frr)} | ${b.keep_tokens === null ? 'none in the window' : `newest ${Math.round(b.keep_tokens / 1000)}k (${pct(b.frr)})`} | ${ratio(b.cost_ratio)} | ${ratio(d?.cost_ratio)} (${pct(d?.frr_no_summary)}) |`,
      );
    }
  }
  const c = json.summary_carry;
  if (c && c.real_share !== null && c.scripted_share !== null)
    out.push(
      '',
      `Summary carry: of the ${c.rows.reduce((n, r) => n + r.summaryOnly, 0)} identifiers only a summary could carry at the fixtures' ${c.rows.reduce((n, r) => n + r.compactions, 0)} real compactions, the real summaries carried ${pct(c.real_share)}, the scripted summariser ${pct(c.scripted_share)} (it keeps ${pct(c.keep)} of a region's identifiers).`,
    );
  return out.join('\n');
}

/** `readme` with the text between the markers replaced by `table`; an error when the markers are missing. */
export function withTable(readme: string, table: string): string | { readonly error: string } {
  const a = readme.indexOf(BEGIN);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) return { error: `README.md has no ${BEGIN} … ${END} section` };
  return `${readme.slice(0, a + BEGIN.length)}\n${table}\n${readme.slice(b)}`;
}

/** The subcommand: reads the saved output, rewrites README.md's table. */
export async function runReadmeTable(args: readonly string[]): Promise<number> {
  const [file, readmePath = 'README.md'] = args;
  if (!file) {
    process.stderr.write('usage: npm run bench -- readme-table <saved replay-all output> [README.md]\n');
    return 2;
  }
  const json = replayAllJson(readFileSync(file, 'utf8'));
  if ('error' in json) {
    process.stderr.write(`${json.error}\n`);
    return 1;
  }
  const next = withTable(readFileSync(readmePath, 'utf8'), readmeTable(json, new Date().toISOString().slice(0, 10)));
  if (typeof next !== 'string') {
    process.stderr.write(`${next.error}\n`);
    return 1;
  }
  writeFileSync(readmePath, next);
  console.log(`${readmePath}: the replay-all table rewritten from ${file} (${json.rows.length} rows)`);
  return 0;
}
