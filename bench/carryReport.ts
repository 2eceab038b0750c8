/**
 * replay-all's "Summary carry" section: what the real summaries of the transcripts' compactions
 * carried that only a summary could, against the scripted summariser over the same regions
 * (summaryCarry.ts), with the keep share the scripted summaries use (`SUMMARY_KEEP`,
 * calibrated on the fixtures) and the share these transcripts alone would give.
 */
import { carryRegions, carryShare, deriveSummaryKeep, summaryCarry, type SummaryCarry } from './summaryCarry';
import { SUMMARY_KEEP } from './summaryKeep';
import type { TranscriptEvent } from './transcript';

/** The `summary_carry` object of replay-all's JSON line. */
export interface CarryReport {
  /** The share of a region's identifiers the scripted summaries keep (SUMMARY_KEEP). */
  readonly keep: number;
  /** The share `deriveSummaryKeep` gives on these transcripts' compactions (0: nothing to calibrate on). */
  readonly derived_keep: number;
  /** Pooled shares of the summary-only identifiers carried, `null` when there were none. */
  readonly real_share: number | null;
  readonly scripted_share: number | null;
  /** Per transcript with a real compaction. */
  readonly rows: readonly (SummaryCarry & { readonly transcript: string })[];
}

/**
 * Measures and prints the section (pooled, then per transcript with a real compaction) and
 * returns it for the JSON line; `tokens` counts text as the replay does.
 */
export function carryReport(
  transcripts: readonly { readonly file: string; readonly events: readonly TranscriptEvent[] }[],
  tokens: (text: string) => number,
): CarryReport {
  const rows = transcripts
    .map((t) => ({ transcript: t.file, ...summaryCarry(t.events, tokens) }))
    .filter((r) => r.compactions > 0);
  const derived = deriveSummaryKeep(
    transcripts.flatMap((t) => carryRegions(t.events)),
    tokens,
  );
  const sum = (k: Exclude<keyof SummaryCarry, 'compactions'>) => rows.reduce((n, r) => n + r[k], 0);
  const only = sum('summaryOnly');
  const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
  console.log(
    `Summary carry: of the ${only} identifiers only a summary could carry after the ${rows.reduce((n, r) => n + r.compactions, 0)} real compactions, the real summaries carried ${carryShare(sum('real'), only)}, the scripted summariser ${carryShare(sum('scripted'), only)} — it keeps ${pct(SUMMARY_KEEP)} of a region's identifiers (SUMMARY_KEEP, calibrated on the fixtures' compactions: the conversation's own before tool output's, the newest first; these compactions alone give ${derived > 0 ? pct(derived) : 'nothing to calibrate on'})`,
  );
  console.log(
    `  the same regions: real summaries ${sum('realTokens').toLocaleString('en-US')} tokens holding ${sum('realHeld')} of their identifiers, scripted ${sum('scriptedTokens').toLocaleString('en-US')} tokens (SUMMARY_LENGTH) holding ${sum('scriptedHeld')}`,
  );
  for (const r of rows)
    console.log(
      `  ${r.transcript}: ${r.compactions} compaction(s), ${r.summaryOnly} identifiers: real ${carryShare(r.real, r.summaryOnly)}, scripted ${carryShare(r.scripted, r.summaryOnly)}; ${r.realTokens.toLocaleString('en-US')} / ${r.scriptedTokens.toLocaleString('en-US')} tokens holding ${r.realHeld} / ${r.scriptedHeld} of the region's identifiers`,
    );
  console.log(
    '  so "FRR with summaries" is the recall with scripted summaries calibrated to carry about what real ones carry: a simulation, not an upper bound',
  );
  return {
    keep: SUMMARY_KEEP,
    derived_keep: derived,
    real_share: only === 0 ? null : round(sum('real') / only),
    scripted_share: only === 0 ? null : round(sum('scripted') / only),
    rows,
  };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
