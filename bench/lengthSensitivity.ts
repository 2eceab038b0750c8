/**
 * How much replay-all's verdict leans on how long summaries come out. The scripted summariser
 * writes as much as the real agents' summaries did (SUMMARY_LENGTH, summaryLength.ts: about
 * 1.7 % of the region), but the extension's own prompt asks for about a fifth of the region
 * (summaryPrompt.ts `summaryTargetTokens`: at least `MIN_SUMMARY_TOKENS`, at most
 * `MAX_SUMMARY_TARGET_TOKENS`), and no fixture holds a
 * summary written with that prompt. So replay-all replays the default and the baseline once more
 * with summaries as long as the prompt asks — the other end of what a real summariser may write —
 * and reports, per transcript and window, the default's cost ÷ the baseline's and both FRRs
 * without summaries there. Pure but for `printSensitivity`.
 */
import { MAX_SUMMARY_TARGET_TOKENS, MIN_SUMMARY_TOKENS, SUMMARY_RATIO } from '../src/core/compaction/summaryPrompt';
import { frrShare } from './frr';
import { totalCost } from './replayReport';
import type { ReplayResult } from './replayTypes';
import { pct, ratio } from './ratioText';
import type { SummaryLengthModel } from './summaryLength';

/** Summaries as long as the extension's prompt asks: a fifth of the region, between its minimum and its maximum. */
export const PROMPT_TARGET_LENGTH: SummaryLengthModel = {
  ratio: SUMMARY_RATIO,
  floor: MIN_SUMMARY_TOKENS,
  ceiling: MAX_SUMMARY_TARGET_TOKENS,
};

/** One transcript and window replayed with {@link PROMPT_TARGET_LENGTH} summaries. */
export interface SensitivityRow {
  readonly transcript: string;
  readonly window: number;
  /** The default's cost ÷ the baseline's; null when either is unpriced. */
  readonly cost_ratio: number | null;
  readonly frr_no_summary: number | null;
  readonly baseline_frr_no_summary: number | null;
}

/** The row of a default and a baseline replay of the same transcript and window. */
export function sensitivityRow(defaultRun: ReplayResult, baselineRun: ReplayResult): SensitivityRow {
  const d = totalCost(defaultRun);
  const b = totalCost(baselineRun);
  return {
    transcript: defaultRun.transcript,
    window: defaultRun.window,
    cost_ratio: d === null || b === null || !(b > 0) ? null : Math.round((d / b) * 10_000) / 10_000,
    frr_no_summary: frrShare(defaultRun.frr.overall, false),
    baseline_frr_no_summary: frrShare(baselineRun.frr.overall, false),
  };
}

/** FRR points the default may lose against the baseline (the bar), for the flags. */
const FRR_SLACK = 0.02;

/** The points the default's FRR without summaries is below the baseline's, or null. */
function frrGap(r: SensitivityRow): number | null {
  return r.frr_no_summary === null || r.baseline_frr_no_summary === null
    ? null
    : r.baseline_frr_no_summary - r.frr_no_summary;
}

/** Per window: the mean ratio, the transcripts over 1.00 and those losing more than 2 FRR points. */
export function sensitivitySummary(
  rows: readonly SensitivityRow[],
): { readonly window: number; readonly mean: number | null; readonly over: number; readonly frrLost: number }[] {
  return [...new Set(rows.map((r) => r.window))].map((window) => {
    const at = rows.filter((r) => r.window === window);
    const ratios = at.flatMap((r) => (r.cost_ratio === null ? [] : [r.cost_ratio]));
    return {
      window,
      mean: ratios.length === 0 ? null : ratios.reduce((a, b) => a + b, 0) / ratios.length,
      over: ratios.filter((x) => x > 1).length,
      frrLost: at.filter((r) => (frrGap(r) ?? 0) > FRR_SLACK + 1e-9).length,
    };
  });
}

/** The Markdown table (docs/benchmarks.md) of `rows`, `short` naming a transcript. */
export function sensitivityMarkdown(rows: readonly SensitivityRow[], short: (t: string) => string): string[] {
  const out = [
    '| transcript | window | default ÷ baseline | FRR w/o summaries: default (baseline) |',
    '|---|---|---|---|',
  ];
  for (const r of rows) {
    const lost = (frrGap(r) ?? 0) > FRR_SLACK + 1e-9 ? ' ✗' : '';
    out.push(
      `| ${short(r.transcript)} | ${r.window / 1000}k | ${ratio(r.cost_ratio)}${(r.cost_ratio ?? 0) > 1 ? ' ✗' : ''} | ${pct(r.frr_no_summary)} (${pct(r.baseline_frr_no_summary)})${lost} |`,
    );
  }
  for (const s of sensitivitySummary(rows))
    out.push(
      `| **mean** | ${s.window / 1000}k | **${ratio(s.mean)}** | ${s.over} over 1.00, ${s.frrLost} more than 2 points below |`,
    );
  return out;
}

/** Prints the section replay-all shows after its tables. */
export function printSensitivity(rows: readonly SensitivityRow[], short: (t: string) => string): void {
  if (rows.length === 0) return;
  console.log(
    `Summary length sensitivity: default and baseline again, with summaries as long as the prompt asks (${Math.round(SUMMARY_RATIO * 100)} % of the region, at least ${MIN_SUMMARY_TOKENS} and at most ${MAX_SUMMARY_TARGET_TOKENS.toLocaleString('en-US')} tokens, not the measured ${'SUMMARY_LENGTH'})`,
  );
  for (const line of sensitivityMarkdown(rows, short)) console.log(`  ${line}`);
}
