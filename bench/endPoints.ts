/**
 * Where a session ends decides part of its bill: a summary made a few requests before the
 * user stops has not paid back yet, one made earlier has. A replay's cost ÷ the baseline's
 * at the transcript's last request is one draw from that; this module gives every draw — the
 * ratio had the session ended after each request from the first one at which the two
 * policies' bills part (before it they are the same requests, so every end reads 1.00).
 * Pure: it reads the requests' running cost (RequestTrace.costSoFarUsd).
 */
import type { ReplayResult, RequestTrace } from './replayTypes';

/** The default's cost ÷ the baseline's over every end point of one transcript and window. */
export interface EndPointsRow {
  readonly transcript: string;
  readonly window: number;
  /** End points counted: the requests from the first at which the bills differ to the last. */
  readonly ends: number;
  /** The ratio at the transcript's own end (the table's figure). */
  readonly at_end: number;
  readonly min: number;
  readonly median: number;
  readonly max: number;
  /** Share of the end points at which the default cost more than the baseline. */
  readonly over: number;
}

/**
 * The end points of `policy` against `baseline` (traces of the same transcript and window);
 * null when a request is unpriced, the traces differ in length, or the bills never part.
 */
export function endPoints(
  transcript: string,
  window: number,
  policy: readonly Pick<RequestTrace, 'costSoFarUsd'>[],
  baseline: readonly Pick<RequestTrace, 'costSoFarUsd'>[],
): EndPointsRow | null {
  if (policy.length !== baseline.length || policy.length === 0) return null;
  const ratios: number[] = [];
  let parted = false;
  for (let i = 0; i < policy.length; i++) {
    const p = policy[i]?.costSoFarUsd;
    const b = baseline[i]?.costSoFarUsd;
    if (p === null || p === undefined || b === null || b === undefined || !(b > 0)) return null;
    parted ||= Math.abs(p - b) > 1e-9;
    if (parted) ratios.push(p / b);
  }
  if (ratios.length === 0) return null;
  const sorted = [...ratios].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return {
    transcript,
    window,
    ends: ratios.length,
    at_end: ratios[ratios.length - 1] as number,
    min: sorted[0] as number,
    median: sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2,
    max: sorted[sorted.length - 1] as number,
    over: ratios.filter((r) => r > 1).length / ratios.length,
  };
}

/** The default policy's end points against the baseline, per transcript and window of `results` that ran both. */
export function endPointRows(
  results: readonly Pick<ReplayResult, 'transcript' | 'window' | 'policy' | 'trace'>[],
): EndPointsRow[] {
  const out: EndPointsRow[] = [];
  for (const d of results) {
    if (d.policy !== 'default') continue;
    const b = results.find((r) => r.policy === 'baseline' && r.transcript === d.transcript && r.window === d.window);
    const row = b && endPoints(d.transcript, d.window, d.trace, b.trace);
    if (row) out.push(row);
  }
  return out;
}

/** Prints the end points, one line per transcript and window (`name` shortens a transcript's path). */
export function printEndPoints(
  rows: readonly EndPointsRow[],
  name: (file: string) => string,
  print: (line: string) => void = (line) => console.log(line),
): void {
  if (rows.length === 0) return;
  const r2 = (x: number) => x.toFixed(3);
  print(
    'Where the session ends: default ÷ baseline had the session ended after each request from the first at which the two bills part (a summary made just before the end has not paid back yet):',
  );
  for (const r of rows)
    print(
      `  ${`${name(r.transcript)} ${Math.round(r.window / 1000)}k`.padEnd(34)} at its end ${r2(r.at_end)} · over ${r.ends} end points: median ${r2(r.median)}, ${r2(r.min)}–${r2(r.max)}, over 1.00 at ${(r.over * 100).toFixed(0)} %`,
    );
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  print(
    `  all ${rows.length}: mean ratio at the end ${r2(mean(rows.map((r) => r.at_end)))} (${rows.filter((r) => r.at_end > 1).length} over 1.00), mean median ${r2(mean(rows.map((r) => r.median)))} (${rows.filter((r) => r.median > 1).length} over 1.00)`,
  );
}
