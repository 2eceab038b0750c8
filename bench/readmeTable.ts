/**
 * `npm run docs:bench -- <replay-all output>` (also `npm run bench -- readme-table …`): the
 * benchmark tables of the docs, written from a saved `replay-all` run (its last line, the JSON),
 * never by hand. Two blocks, each stamped with the run's date, commit and machine (the JSON's
 * `meta`, runMeta.ts; "unknown" for a run saved before it had one):
 *
 * - README.md, between `<!-- replay-all:begin -->` and `<!-- replay-all:end -->`: the summary,
 *   one row per window (mean cost ratios, mean FRR without summaries, overflows and invalid
 *   requests over every policy);
 * - docs/benchmarks.md, between `<!-- replay-all:tables:begin -->` and
 *   `<!-- replay-all:tables:end -->`: the part of the run the tables read, as minified JSON in a
 *   `<!-- replay-all:json … -->` comment, then the full tables — per transcript and window the
 *   default policy's cost, its ratio to the baseline, Claude Code's and server-clear's ratios, the
 *   floor, FRR without summaries (default and baseline), overflows and invalid requests over
 *   every policy, where the default's money goes; the mean ratios; the recency bound of each row
 *   (bounds); the default's ratio had each session ended earlier (end_points, endPoints.ts); the
 *   default and the baseline with summaries as long as the prompt asks (length_sensitivity,
 *   lengthSensitivity.ts); and what the real and the scripted summaries carry (summary_carry).
 *
 * Both blocks are rendered from that embedded JSON, so benchDocs.test.ts re-renders them from it
 * and fails when either file states a figure the generator would not write. The rest of each
 * file is left as it is.
 */
import type { EndPointsRow } from './endPoints';
import { sensitivityMarkdown, type SensitivityRow } from './lengthSensitivity';
import { pct, ratio } from './ratioText';
import { basename } from 'node:path';
import type { CarryReport } from './carryReport';
import type { BreakdownRow } from './costBreakdown';
import type { BoundRow } from './recencyBound';
import type { ReplayRow } from './replayReport';
import type { RunMeta } from './runMeta';

/** The `breakdown` fields the full table reads. */
type TableBreakdown = Pick<
  BreakdownRow,
  | 'transcript'
  | 'window'
  | 'policy'
  | 'read'
  | 'write_growth'
  | 'write_compaction'
  | 'write_ttl'
  | 'write_miss'
  | 'output'
  | 'summariser'
>;

/** What the tables are made of: the JSON line of a replay-all run (the fields they read). */
export interface ReplayAllJson {
  readonly rows: readonly TableRow[];
  readonly breakdown?: readonly TableBreakdown[];
  readonly summary_carry?: Pick<CarryReport, 'keep' | 'real_share' | 'scripted_share'> & {
    readonly rows: readonly Pick<CarryReport['rows'][number], 'compactions' | 'summaryOnly'>[];
  };
  readonly bounds?: readonly BoundRow[];
  /** The default's cost ÷ the baseline's had each session ended earlier (endPoints.ts). */
  readonly end_points?: readonly EndPointsRow[];
  /** The default and the baseline with summaries as long as the prompt asks (lengthSensitivity.ts). */
  readonly length_sensitivity?: readonly SensitivityRow[];
  /** The run's date, commit and machine; absent in output saved before replay-all wrote it. */
  readonly meta?: Partial<RunMeta>;
}

/** The fields of a `rows` entry the tables read (replayReport.ts `ReplayRow`). */
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

/** README.md's block: the summary. */
export const BEGIN = '<!-- replay-all:begin -->';
export const END = '<!-- replay-all:end -->';
/** docs/benchmarks.md's block: the run's JSON and the full tables. */
export const TABLES_BEGIN = '<!-- replay-all:tables:begin -->';
export const TABLES_END = '<!-- replay-all:tables:end -->';
const JSON_OPEN = '<!-- replay-all:json ';
const JSON_CLOSE = ' -->';

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

/**
 * The part of a run the tables read, and only that (so the docs embed kilobytes, not the whole
 * line): the rows' table fields, the default policy's breakdown, the bounds, the carry's shares
 * and counts, the meta. Rendering it gives what rendering the whole run gives.
 */
export function tableInput(json: ReplayAllJson): ReplayAllJson {
  const c = json.summary_carry;
  return {
    rows: json.rows.map((r) => ({
      transcript: r.transcript,
      window: r.window,
      policy: r.policy,
      overflows: r.overflows,
      invalid: r.invalid,
      cost_usd: r.cost_usd,
      cost_ratio: r.cost_ratio,
      floor_ratio: r.floor_ratio,
      frr_no_summary: r.frr_no_summary,
    })),
    ...(json.breakdown
      ? {
          breakdown: json.breakdown
            .filter((b) => b.policy === 'default')
            .map((b) => ({
              transcript: b.transcript,
              window: b.window,
              policy: b.policy,
              read: b.read,
              write_growth: b.write_growth,
              write_compaction: b.write_compaction,
              write_ttl: b.write_ttl,
              write_miss: b.write_miss,
              output: b.output,
              summariser: b.summariser,
            })),
        }
      : {}),
    ...(c
      ? {
          summary_carry: {
            keep: c.keep,
            real_share: c.real_share,
            scripted_share: c.scripted_share,
            rows: c.rows.map((r) => ({ compactions: r.compactions, summaryOnly: r.summaryOnly })),
          },
        }
      : {}),
    ...(json.bounds ? { bounds: json.bounds } : {}),
    ...(json.end_points
      ? {
          end_points: json.end_points.map((e) => ({
            transcript: e.transcript,
            window: e.window,
            ends: e.ends,
            at_end: e.at_end,
            min: e.min,
            median: e.median,
            max: e.max,
            over: e.over,
          })),
        }
      : {}),
    ...(json.length_sensitivity
      ? {
          length_sensitivity: json.length_sensitivity.map((r) => ({
            transcript: r.transcript,
            window: r.window,
            cost_ratio: r.cost_ratio,
            frr_no_summary: r.frr_no_summary,
            baseline_frr_no_summary: r.baseline_frr_no_summary,
          })),
        }
      : {}),
    ...(json.meta ? { meta: json.meta } : {}),
  };
}

export { ratio } from './ratioText';
const usd = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x.toFixed(2));
const mean = (xs: readonly number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
const short = (t: string) =>
  basename(t)
    .replace(/^real-session-/, '')
    .replace(/\.transcript\.jsonl$/, '');
const windows = (json: ReplayAllJson) => [...new Set(json.rows.map((r) => r.window))];

/** Which run the tables show: "Replayed 2026-11-29 on commit abc1234 (Linux … x64; 8 × …)", "unknown" for what the run did not record. */
export function stamp(meta: ReplayAllJson['meta']): string {
  const os = meta?.machine?.os?.trim() || 'unknown OS';
  const cpus = meta?.machine?.cpus?.trim() || 'unknown CPUs';
  return `Replayed ${meta?.date || 'on an unknown date'} on commit ${meta?.commit || 'unknown'} (${os}; ${cpus})`;
}

/** README.md's summary (see the module comment). */
export function summaryTable(json: ReplayAllJson): string {
  const sessions = new Set(json.rows.map((r) => r.transcript)).size;
  const out = [
    `${stamp(json.meta)}: ${sessions} real sessions, ${json.rows.length} replays (\`npm run bench -- replay-all\`, written here by \`npm run docs:bench\`).`,
    '',
    '| window | default ÷ baseline, mean (range) | … had each session stopped earlier, mean of medians | claude-code ÷ baseline | server-clear ÷ baseline | FRR w/o summaries, mean: default (baseline) | overflows / invalid requests, all policies |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const w of windows(json)) {
    const at = json.rows.filter((r) => r.window === w);
    const ratios = (p: string) =>
      at.filter((r) => r.policy === p && r.cost_ratio !== null).map((r) => r.cost_ratio as number);
    const frr = (p: string) =>
      at.filter((r) => r.policy === p && r.frr_no_summary !== null).map((r) => r.frr_no_summary as number);
    const d = ratios('default');
    const range = d.length === 0 ? '' : ` (${ratio(Math.min(...d))}–${ratio(Math.max(...d))})`;
    const medians = (json.end_points ?? []).filter((e) => e.window === w).map((e) => e.median);
    out.push(
      `| ${w / 1000}k | **${ratio(mean(d))}**${range} | ${ratio(mean(medians))} | ${ratio(mean(ratios('claude-code')))} | ${ratio(mean(ratios('server-clear')))} | ${pct(mean(frr('default')))} (${pct(mean(frr('baseline')))}) | ${at.reduce((n, r) => n + r.overflows, 0)} / ${at.reduce((n, r) => n + r.invalid, 0)} |`,
    );
  }
  return out.join('\n');
}

/** docs/benchmarks.md's full tables (see the module comment). */
export function fullTables(json: ReplayAllJson): string {
  const find = (t: string, w: number, p: string) =>
    json.rows.find((r) => r.transcript === t && r.window === w && r.policy === p);
  const keys = [...new Map(json.rows.map((r) => [`${r.transcript}@${r.window}`, r])).values()];
  const out = [
    `${stamp(json.meta)}. Ratios are cost ÷ the baseline's on the same transcript and window.`,
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
  for (const w of windows(json)) {
    const ratios = (p: string) =>
      json.rows
        .filter((r) => r.window === w && r.policy === p && r.cost_ratio !== null)
        .map((r) => r.cost_ratio as number);
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
  if (json.end_points && json.end_points.length > 0) {
    out.push(
      '',
      'Where the session ends (see below): default ÷ baseline had the session ended after each request from the first at which the two bills part.',
      '',
      '| transcript | window | at its end | median over the end points | range | end points over 1.00 |',
      '|---|---|---|---|---|---|',
    );
    for (const e of json.end_points)
      out.push(
        `| ${short(e.transcript)} | ${e.window / 1000}k | ${ratio(e.at_end)} | ${ratio(e.median)} | ${ratio(e.min)}–${ratio(e.max)} | ${Math.round(e.over * 100)} % of ${e.ends} |`,
      );
  }
  if (json.length_sensitivity && json.length_sensitivity.length > 0)
    out.push(
      '',
      'Summary length (see below): the default and the baseline replayed again with summaries as long as the prompt asks (a fifth of the region, at most 8,000 tokens) instead of as long as real ones measured.',
      '',
      ...sensitivityMarkdown(json.length_sensitivity, short),
    );
  const c = json.summary_carry;
  if (c && c.real_share !== null && c.scripted_share !== null)
    out.push(
      '',
      `Summary carry: of the ${c.rows.reduce((n, r) => n + r.summaryOnly, 0)} identifiers only a summary could carry at the fixtures' ${c.rows.reduce((n, r) => n + r.compactions, 0)} real compactions, the real summaries carried ${pct(c.real_share)}, the scripted summariser ${pct(c.scripted_share)} (it keeps ${pct(c.keep)} of a region's identifiers).`,
    );
  return out.join('\n');
}

/**
 * The JSON as an HTML comment a Markdown page can carry: minified, with every `--` (only ever
 * inside a string) written `-\u002d`, so no `-->` can end the comment early; JSON.parse reads it back.
 */
export function jsonComment(json: ReplayAllJson): string {
  return `${JSON_OPEN}${JSON.stringify(json).replace(/--/g, '-\\u002d')}${JSON_CLOSE}`;
}

/** The JSON of the first `<!-- replay-all:json … -->` comment in `text`, or an error in words. */
export function embeddedJson(text: string): ReplayAllJson | { readonly error: string } {
  const a = text.indexOf(JSON_OPEN);
  const b = a < 0 ? -1 : text.indexOf(JSON_CLOSE, a + JSON_OPEN.length);
  if (a < 0 || b < 0) return { error: `no ${JSON_OPEN.trim()} … ${JSON_CLOSE.trim()} comment` };
  try {
    return JSON.parse(text.slice(a + JSON_OPEN.length, b)) as ReplayAllJson;
  } catch {
    return { error: `the ${JSON_OPEN.trim()} comment does not parse` };
  }
}

/** docs/benchmarks.md's block: the table input as a comment, then the full tables rendered from it. */
export function tablesBlock(json: ReplayAllJson): string {
  const input = tableInput(json);
  return `${jsonComment(input)}\n\n${fullTables(input)}`;
}

/** The text between `begin` and `end` in `doc` (without the newlines next to the markers), or undefined. */
export function between(doc: string, begin = BEGIN, end = END): string | undefined {
  const a = doc.indexOf(begin);
  const b = doc.indexOf(end, a + begin.length);
  if (a < 0 || b < 0) return undefined;
  return doc
    .slice(a + begin.length, b)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
}

/** `doc` with the text between the markers replaced by `block`; an error when the markers are missing. */
export function withTable(
  doc: string,
  block: string,
  begin = BEGIN,
  end = END,
  name = 'README.md',
): string | { readonly error: string } {
  const a = doc.indexOf(begin);
  const b = doc.indexOf(end, a + begin.length);
  if (a < 0 || b < 0) return { error: `${name} has no ${begin} … ${end} section` };
  return `${doc.slice(0, a + begin.length)}\n${block}\n${doc.slice(b)}`;
}

/** Both files rewritten from one run: README.md's summary and docs/benchmarks.md's JSON and tables. */
export function renderDocs(
  json: ReplayAllJson,
  readme: string,
  benchmarks: string,
): { readonly readme: string; readonly benchmarks: string } | { readonly error: string } {
  const input = tableInput(json);
  const nextReadme = withTable(readme, summaryTable(input));
  if (typeof nextReadme !== 'string') return nextReadme;
  const nextBenchmarks = withTable(benchmarks, tablesBlock(input), TABLES_BEGIN, TABLES_END, 'docs/benchmarks.md');
  if (typeof nextBenchmarks !== 'string') return nextBenchmarks;
  return { readme: nextReadme, benchmarks: nextBenchmarks };
}

/**
 * What README.md and docs/benchmarks.md state that the generator would not: each block compared
 * with what it renders from the JSON docs/benchmarks.md embeds. Empty when both are as generated.
 */
export function docsDrift(readme: string, benchmarks: string): string[] {
  const tables = between(benchmarks, TABLES_BEGIN, TABLES_END);
  if (tables === undefined) return [`docs/benchmarks.md has no ${TABLES_BEGIN} … ${TABLES_END} section`];
  const json = embeddedJson(tables);
  if ('error' in json) return [`docs/benchmarks.md: ${json.error}`];
  const out: string[] = [];
  const differs = (name: string, actual: string | undefined, expected: string) => {
    if (actual === expected) return;
    const a = (actual ?? '').split('\n');
    const e = expected.split('\n');
    const i = e.findIndex((line, k) => a[k] !== line);
    const at = i < 0 ? a.length : i;
    out.push(
      `${name}, line ${at + 1} of the generated block: "${a[at] ?? '(missing)'}" where the run gives "${e[at] ?? '(nothing)'}"`,
    );
  };
  differs('docs/benchmarks.md', tables, tablesBlock(json));
  const summary = between(readme, BEGIN, END);
  if (summary === undefined) out.push(`README.md has no ${BEGIN} … ${END} section`);
  else differs('README.md', summary, summaryTable(json));
  return out;
}
