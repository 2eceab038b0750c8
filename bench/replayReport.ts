/**
 * How replays are printed: one replay in detail (`replay`), many as a table (`replay-all`),
 * and the JSON row each bench prints as its last line.
 */
import { endPointRows, printEndPoints } from './endPoints';
import { breakdownRows, printBreakdown } from './costBreakdown';
import { FRR_KINDS, frrShare, type FrrCount } from './frr';
import { totalOf, unknownModels } from './pricing';
import type { ReplayResult } from './replayCore';
import type { CompactionRecord } from '../src/core/compaction/types';
import type { BoundRow } from './recencyBound';

/** One row of the JSON the replay benches print last. */
export interface ReplayRow {
  readonly transcript: string;
  readonly window: number;
  readonly policy: string;
  readonly overflows: number;
  readonly invalid: number;
  readonly peak: number;
  readonly compactions: number;
  /** Requests the API's clear_tool_uses edited (server strategies; 0 for ours), and the tokens it cleared. */
  readonly server_clears: number;
  readonly server_cleared_tokens: number;
  /** Tokens of file content re-attached after compactions. */
  readonly reattached: number;
  /** Model + summariser; `null` when a model has no price. */
  readonly cost_usd: number | null;
  /** cost_usd ÷ the baseline policy's on the same transcript and window; `null` when either is unknown. */
  readonly cost_ratio: number | null;
  /** The transcript's cost floor (costFloor.ts) ÷ the same baseline: no policy can go below it. */
  readonly floor_ratio: number | null;
  /** Forward-reference recall with and without summary text; `null` when nothing was referenced. */
  readonly frr: number | null;
  readonly frr_no_summary: number | null;
}

/** A replay with its wall time. */
export interface TimedResult {
  readonly result: ReplayResult;
  readonly wallMs: number;
}

/** Model + summariser cost of a replay, `null` when a model has no price. */
export function totalCost(r: ReplayResult): number | null {
  return totalOf(r.cost, r.summariserCost);
}

/** The JSON row of a replay; `baseline` is the baseline policy's total on the same transcript and window. */
export function rowOf(r: ReplayResult, baseline: number | null | undefined): ReplayRow {
  const cost = totalCost(r);
  return {
    transcript: r.transcript,
    window: r.window,
    policy: r.policy,
    overflows: r.overflows,
    invalid: r.invalidCount,
    peak: round(r.peak),
    compactions: r.compactions,
    server_clears: r.serverClears,
    server_cleared_tokens: Math.round(r.serverClearedTokens),
    reattached: Math.round(r.reattached),
    cost_usd: cost === null ? null : round(cost),
    cost_ratio: ratio(cost, baseline),
    floor_ratio: ratio(r.floor.total(), baseline),
    frr: nullableRound(frrShare(r.frr.overall)),
    frr_no_summary: nullableRound(frrShare(r.frr.overall, false)),
  };
}

/** a ÷ b rounded, or `null` when either is unknown or b is 0. */
function ratio(a: number | null, b: number | null | undefined): number | null {
  return a === null || b === null || b === undefined || b === 0 ? null : round(a / b);
}

/** Prints one replay in detail, then its JSON row as the last line. */
export function printReplay(r: ReplayResult, description: string, baseline?: number | null): ReplayRow {
  const out = (s = '') => console.log(s);
  out(`Replay of ${r.transcript} with a ${fmtTokens(r.window)}-token window — ${r.policy}: ${description}`);
  out(`Compactions (${r.compactions}, of which ${r.summaries} summaries):`);
  for (const l of r.log) out(l);
  if (r.serverClears > 0)
    out(
      `the API's clear_tool_uses edited ${r.serverClears} requests, clearing ${fmtTokens(r.serverClearedTokens)} tokens in all`,
    );
  out(
    `requests ${r.requests} · peak utilisation ${pct(r.peak)} · overflows ${r.overflows} · invalid requests ${r.invalidCount} · tool results guarded on arrival ${r.guarded}${r.pastes > 0 ? ` · pastes saved to files ${r.pastes}` : ''} · real full cache misses replayed ${r.flushes}`,
  );
  for (const [reason, n] of r.invalid) out(`  invalid ×${n}: ${reason}`);
  const repaired = describeReplayRepairs(r.repairs);
  if (repaired) out(repaired);
  const t = r.tokens;
  const sent = t.input + t.read + t.write;
  out(
    `prompt tokens sent ${fmtTokens(sent)} (uncached input ${fmtTokens(t.input)}, cache reads ${fmtTokens(t.read)}, cache writes ${fmtTokens(t.write)}; hit rate ${sent ? ((100 * t.read) / sent).toFixed(1) : 0} %) · output ${fmtTokens(t.output)}`,
  );
  out(
    `cost ${money(r.cost.total())} for the model + ${money(r.summariserCost.total(), 4)} for the summariser (${r.summariserCalls} calls) = ${money(totalCost(r))}`,
  );
  for (const u of unknownModels(r.cost, r.summariserCost)) out(`  UNKNOWN MODEL, not priced: ${u}`);
  out(
    `cost floor ${money(r.floor.total())}: the system prompt read from cache, each message written once, the output (no policy pays less)`,
  );
  out(
    `forward-reference recall: ${frrText(r.frr.overall)} (with the scripted summaries, calibrated to carry about what real ones carry / without summaries)`,
  );
  for (const k of FRR_KINDS) out(`  ${k.padEnd(7)} ${frrText(r.frr.byKind[k])}`);
  const row = rowOf(r, baseline);
  out(JSON.stringify(row));
  return row;
}

const COLUMNS = [
  'transcript',
  'window',
  'policy',
  'requests',
  'overflows',
  'invalid',
  'peak %',
  'compactions',
  'server clears',
  're-attached',
  'cost $',
  '÷ baseline',
  'floor ÷ base.',
  'FRR',
  'FRR w/o sum.',
  'summariser $',
  'wall s',
] as const;

/** A transcript replay-all could not read, and why. */
export interface SkippedTranscript {
  readonly transcript: string;
  readonly error: string;
}

/**
 * Prints the replay-all table, the notes (invalid reasons, unknown models, FRR by kind), the
 * recency bounds (recencyBound.ts) when given, the transcripts skipped, then the JSON rows (and
 * `bounds`, and `skipped` when any) as the last line.
 */
export function printTable(
  results: readonly TimedResult[],
  bounds: readonly BoundRow[] = [],
  skipped: readonly SkippedTranscript[] = [],
  extra: Readonly<Record<string, unknown>> = {},
): ReplayRow[] {
  const baselines = new Map<string, number | null>();
  for (const { result: r } of results)
    if (r.policy === 'baseline') baselines.set(`${r.transcript}\u0000${r.window}`, totalCost(r));
  const rows = results.map(({ result: r }) => rowOf(r, baselines.get(`${r.transcript}\u0000${r.window}`)));
  const cells = results.map(({ result: r, wallMs }, i) => {
    const row = rows[i] as ReplayRow;
    return [
      shortName(r.transcript),
      `${Math.round(r.window / 1000)}k`,
      r.policy,
      String(r.requests),
      String(r.overflows),
      String(r.invalidCount),
      (r.peak * 100).toFixed(1),
      `${r.compactions} (${r.summaries})`,
      String(r.serverClears),
      String(Math.round(r.reattached)),
      row.cost_usd === null ? 'unknown' : row.cost_usd.toFixed(2),
      row.cost_ratio === null ? '–' : row.cost_ratio.toFixed(2),
      row.floor_ratio === null ? '–' : row.floor_ratio.toFixed(2),
      share(row.frr),
      share(row.frr_no_summary),
      r.summariserCost.total() === null ? 'unknown' : (r.summariserCost.total() as number).toFixed(3),
      (wallMs / 1000).toFixed(1),
    ];
  });
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...cells.map((row) => (row[i] as string).length)));
  const line = (xs: readonly string[]) =>
    xs.map((x, i) => (i < 3 ? x.padEnd(widths[i] as number) : x.padStart(widths[i] as number))).join('  ');
  console.log(line(COLUMNS));
  for (const c of cells) console.log(line(c));
  console.log(
    "compactions: records of every layer (of which summaries); server clears: requests the API's clear_tool_uses edited; re-attached: tokens of file content re-attached after compactions; cost $: model + summariser; floor ÷ base.: the least any policy could pay (the system prompt read from cache, each message written once, the output) ÷ the baseline; FRR: forward-reference recall, with / without summary text (with: the scripted summaries, calibrated to carry about what real ones carry — a simulation, not an upper bound: see Summary carry).",
  );
  for (const { result: r } of results) {
    const where = `${shortName(r.transcript)} ${Math.round(r.window / 1000)}k ${r.policy}`;
    for (const [reason, n] of r.invalid) console.log(`invalid ×${n} in ${where}: ${reason}`);
    for (const u of unknownModels(r.cost, r.summariserCost)) console.log(`UNKNOWN MODEL in ${where}, not priced: ${u}`);
  }
  console.log(`FRR by kind (with summaries / without): ${FRR_KINDS.join(', ')}`);
  for (const { result: r } of results) {
    const kinds = FRR_KINDS.map((k) => `${k} ${frrText(r.frr.byKind[k])}`).join(' · ');
    console.log(`  ${`${shortName(r.transcript)} ${Math.round(r.window / 1000)}k ${r.policy}`.padEnd(34)} ${kinds}`);
  }
  printRouteTable(results, rows);
  if (bounds.length > 0) printBounds(bounds, rows);
  const breakdown = breakdownRows(results);
  printBreakdown(breakdown, shortName);
  const ends = endPointRows(results.map(({ result }) => result));
  printEndPoints(ends, shortName);
  for (const s of skipped) console.log(`SKIPPED ${s.transcript}: ${s.error}`);
  console.log(
    JSON.stringify({
      rows,
      breakdown,
      ...(ends.length > 0 ? { end_points: ends } : {}),
      ...extra,
      ...(bounds.length > 0 ? { bounds } : {}),
      ...(skipped.length > 0 ? { skipped } : {}),
    }),
  );
  return rows;
}

/** The summariser routes side by side: the default policy's cost ÷ baseline with `auto`, `main`, `small` and `server`. */
const ROUTE_POLICIES = [
  ['auto', 'default'],
  ['main', 'default-main'],
  ['small', 'default-small'],
  ['server', 'default-server'],
] as const;

/**
 * One line per transcript and window: the default policy's cost ÷ baseline with the summariser
 * picked by expected cost (`auto`), always the main model from its cache (`main`), always the
 * summariser model (`small`), the API's compaction on demand where it can run (`server`); then
 * the summariser's own cost and its calls by model of each.
 * Nothing when the replays did not run those policies.
 */
export function printRouteTable(results: readonly TimedResult[], rows: readonly ReplayRow[]): void {
  const at = new Map<string, { result: ReplayResult; row: ReplayRow }>();
  results.forEach(({ result }, i) =>
    at.set(`${result.transcript}\u0000${result.window}\u0000${result.policy}`, { result, row: rows[i] as ReplayRow }),
  );
  const keys = [...new Set(results.map(({ result: r }) => `${r.transcript}\u0000${r.window}`))];
  const lines: string[][] = [];
  for (const key of keys) {
    const [transcript = '', window = '0'] = key.split('\u0000');
    const cells = ROUTE_POLICIES.map(([, policy]) => at.get(`${key}\u0000${policy}`));
    if (cells.every((c) => c === undefined)) continue;
    const ratio = (c: (typeof cells)[number]) =>
      c?.row.cost_ratio === null || c === undefined ? '–' : (c.row.cost_ratio as number).toFixed(3);
    const summariser = (c: (typeof cells)[number]) => {
      if (!c) return '–';
      const usd = c.result.summariserCost.total();
      const calls = [...c.result.summariserModels].map(([m, n]) => `${n}× ${m}`).join(', ') || 'no calls';
      return `${usd === null ? 'unknown' : `$${usd.toFixed(3)}`} (${calls})`;
    };
    lines.push([
      shortName(transcript),
      `${Math.round(Number(window) / 1000)}k`,
      ...cells.map(ratio),
      ...cells.map(summariser),
    ]);
  }
  if (lines.length === 0) return;
  const head = [
    'transcript',
    'window',
    ...ROUTE_POLICIES.map(([r]) => `${r} ÷ base`),
    ...ROUTE_POLICIES.map(([r]) => `${r} summariser`),
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)));
  const line = (xs: readonly string[]) =>
    xs
      .map((x, i) =>
        i < 2 || i >= 2 + ROUTE_POLICIES.length ? x.padEnd(widths[i] as number) : x.padStart(widths[i] as number),
      )
      .join('  ');
  console.log(
    "Summariser route (policy `default`, contextPipeline.summarizer auto / main / small / server): cost ÷ baseline, and the summariser's cost and calls by model",
  );
  console.log(line(head));
  for (const l of lines) console.log(line(l));
}

/** `real-session-sonnet45.transcript.jsonl` → `sonnet45`. */
export function shortName(file: string): string {
  return (file.split(/[\\/]/).at(-1) ?? file)
    .replace(/\.transcript\.jsonl$|\.jsonl$/, '')
    .replace(/^real-session-/, '');
}

function frrText(c: FrrCount): string {
  return `${share(frrShare(c))} / ${share(frrShare(c, false))} of ${c.referenced}`;
}

function share(x: number | null): string {
  return x === null ? '–' : `${(x * 100).toFixed(1)} %`;
}

function money(x: number | null, digits = 2): string {
  return x === null ? 'unknown (a model has no price)' : `$${x.toFixed(digits)}`;
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)} %`;
}

/** A whole number with thousands separators (en-US). */
export function fmtTokens(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

function nullableRound(x: number | null): number | null {
  return x === null ? null : round(x);
}

/** The files a compaction re-attached with their content (paths-only entries left out). */
function attachedFiles(r: CompactionRecord): NonNullable<CompactionRecord['reattached']> {
  return (r.reattached ?? []).filter((f) => f.attached === 'content');
}

/** Tokens of file content a compaction re-attached (paths-only entries count 0). */
export function reattachedTokens(r: CompactionRecord): number {
  return attachedFiles(r).reduce((n, f) => n + f.tokens, 0);
}

/** One line of a replay's compaction log: the request, the layer and trigger, tokens before → after, re-attached files. */
export function compactionLogLine(request: number, r: CompactionRecord): string {
  const note = r.reattached?.length
    ? ` [re-attached ${attachedFiles(r).length}/${r.reattached.length} files, ${fmtTokens(reattachedTokens(r))} tokens]`
    : '';
  const fallbacks = r.fallbacks.length ? ` (${r.fallbacks.join('; ')})` : '';
  return `  request ${String(request).padStart(3)}: ${r.layer.padEnd(14)} ${r.trigger.padEnd(9)} ${fmtTokens(r.tokensBefore)} → ${fmtTokens(r.tokensAfter)} tokens${fallbacks}${note}`;
}

/**
 * Prints the bounds beside the default policy's figures (from `rows`): per transcript and
 * window, the FRR to reach, the tail that reaches it, the bound's cost ÷ baseline and the
 * default's cost ÷ baseline with its FRR without summaries.
 */
export function printBounds(bounds: readonly BoundRow[], rows: readonly ReplayRow[]): void {
  const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)} %`);
  const num = (x: number | null) => (x === null ? '–' : x.toFixed(2));
  console.log(
    "Recency bound: the least a policy that keeps only the newest history (and the user's words) pays to hold the baseline's FRR less 2 points — the cost floor plus reading that tail (writing it again where the session's cache was cold: a real full miss, a gap past the TTL), its own rewrites and any summariser not counted:",
  );
  for (const b of bounds) {
    const d = rows.find((r) => r.transcript === b.transcript && r.window === b.window && r.policy === 'default');
    const tail =
      b.keep_tokens === null ? 'no tail within the window' : `newest ${Math.round(b.keep_tokens / 1000)}k tokens`;
    console.log(
      `  ${`${shortName(b.transcript)} ${Math.round(b.window / 1000)}k`.padEnd(26)} FRR ≥ ${pct(b.target_frr)}: ${tail} (FRR ${pct(b.frr)}), bound ÷ baseline ${num(b.cost_ratio)} · default ÷ baseline ${num(d?.cost_ratio ?? null)} at FRR ${pct(d?.frr_no_summary ?? null)}`,
    );
  }
}

/** Requests normalize repaired, by kind (`requests repaired before sending: image_over_limit ×12, …`); undefined when none. */
export function describeReplayRepairs(repairs: ReadonlyMap<string, number>): string | undefined {
  if (repairs.size === 0) return undefined;
  return `requests repaired before sending (normalize), by kind: ${[...repairs].map(([k, n]) => `${k} ×${n}`).join(', ')}`;
}
