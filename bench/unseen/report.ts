/**
 * How the unseen-session sweep is printed: one table row per replay as it finishes, then the
 * default-policy rows with an overflow or an invalid request (or that there is none), then
 * `{"rows":[…],"skipped":[…],"meta":…}` as the last line.
 */
import type { EndPointsRow } from '../endPoints';
import { rowOf, type SkippedTranscript } from '../replayReport';
import type { ReplayResult } from '../replayTypes';
import { runMeta, type RunMeta } from '../runMeta';

/** One replay's figures, as the JSON's `rows` hold them. */
export interface UnseenRow {
  readonly transcript: string;
  readonly window: number;
  readonly policy: string;
  readonly requests: number;
  readonly overflows: number;
  readonly invalid: number;
  /** Peak prompt as a share of the effective window. */
  readonly peak: number;
  /** Compaction records of every layer. */
  readonly compactions: number;
  /** Model + summariser; `null` when a model has no price. */
  readonly cost_usd: number | null;
  /** Forward-reference recall without summary text (bench/frr.ts); `null` when nothing was referenced. */
  readonly frr_no_summary: number | null;
  /** How many identifiers the real next answers referenced (what that recall is a share of). */
  readonly frr_referenced: number;
  /**
   * Of those, the share last mentioned within the newest tokens the default keeps verbatim at
   * this window (referenceAge.ts, `defaultKeepRecentTokens`): a property of the transcript, the
   * same under every policy; `null` when nothing was referenced.
   */
  readonly frr_recent: number | null;
}

/**
 * The row of a replay (figures rounded as replay-all rounds them); `recent`: the transcript's
 * recent-reference share at the replay's window (see UnseenRow.frr_recent).
 */
export function unseenRow(r: ReplayResult, recent: number | null): UnseenRow {
  const row = rowOf(r, undefined);
  return {
    transcript: row.transcript,
    window: row.window,
    policy: row.policy,
    requests: r.requests,
    overflows: row.overflows,
    invalid: row.invalid,
    peak: row.peak,
    compactions: row.compactions,
    cost_usd: row.cost_usd,
    frr_no_summary: row.frr_no_summary,
    frr_referenced: r.frr.overall.referenced,
    frr_recent: recent === null ? null : Math.round(recent * 1000) / 1000,
  };
}

const HEAD = [
  'transcript',
  'window',
  'policy',
  'requests',
  'overflows',
  'invalid',
  'peak %',
  'compactions',
  'cost $',
  'FRR w/o summ.',
  'refs in tail',
];

/** Lays out the table's lines for transcript names and policy names up to the given lengths. */
export class UnseenTable {
  private readonly widths: readonly number[];

  constructor(nameLength: number, policyLength: number) {
    this.widths = HEAD.map((h, i) => Math.max(h.length, i === 0 ? nameLength : i === 2 ? policyLength : 7));
  }

  /** The header line. */
  header(): string {
    return this.line(HEAD);
  }

  /** The line of one replay; `summaries` of its compactions summarised (or dropped) turns. */
  row(row: UnseenRow, summaries: number): string {
    return this.line([
      row.transcript,
      `${Math.round(row.window / 1000)}k`,
      row.policy,
      String(row.requests),
      String(row.overflows),
      String(row.invalid),
      (row.peak * 100).toFixed(1),
      `${row.compactions} (${summaries})`,
      row.cost_usd === null ? 'unknown' : row.cost_usd.toFixed(2),
      row.frr_no_summary === null ? '—' : `${(row.frr_no_summary * 100).toFixed(1)} % of ${row.frr_referenced}`,
      row.frr_recent === null ? '—' : `${Math.round(row.frr_recent * 100)} %`,
    ]);
  }

  private line(cells: readonly string[]): string {
    return cells
      .map((c, i) => (i < 3 ? c.padEnd(this.widths[i] as number) : c.padStart(this.widths[i] as number)))
      .join('  ')
      .trimEnd();
  }
}

/** What the table's columns mean. */
export const TABLE_LEGEND =
  'peak %: the largest prompt as a share of the effective window; compactions: records of every layer (of which summaries); cost $: model + summariser; FRR w/o summ.: forward-reference recall without summary text, of how many identifiers the next answers referenced; refs in tail: the share of those last mentioned within the newest tokens the default keeps verbatim at that window (a property of the session: what recency alone can hold).';

/** The line naming every default-policy row with an overflow or an invalid request, or saying there is none. */
export function problemLine(rows: readonly UnseenRow[], policies: readonly string[]): string {
  const head = 'default-policy replays with an overflow or an invalid request:';
  if (!policies.includes('default')) return `${head} none (the default policy was not run)`;
  const bad = rows.filter((r) => r.policy === 'default' && (r.overflows > 0 || r.invalid > 0));
  if (bad.length === 0) return `${head} none`;
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  return `${head} ${bad
    .map(
      (r) =>
        `${r.transcript} at ${Math.round(r.window / 1000)}k (${plural(r.overflows, 'overflow')}, ${plural(r.invalid, 'invalid request')})`,
    )
    .join('; ')}`;
}

/**
 * The last line: every row, every transcript (or replay) skipped with its reason, the run's date,
 * commit and machine, and the default's end points against the baseline (when any).
 */
export function jsonLine(
  rows: readonly UnseenRow[],
  skipped: readonly SkippedTranscript[],
  meta: RunMeta = runMeta(),
  endPoints: readonly EndPointsRow[] = [],
): string {
  return JSON.stringify({ rows, skipped, meta, ...(endPoints.length > 0 ? { end_points: endPoints } : {}) });
}
