/**
 * The benchmark tables' figures in words: cost ratios and shares.
 */

/**
 * A cost ratio in words for the benchmark tables: two decimals; near 1.00 three, or four when
 * three would read 1.000, so a ratio just over (or under) the baseline never reads as equal to it.
 */
export function ratio(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  if (x === 1 || Math.abs(x - 1) >= 0.005) return x.toFixed(2);
  const three = x.toFixed(3);
  return three === '1.000' ? x.toFixed(4) : three;
}

/** A share (0..1) as a percentage with one decimal, `—` when unknown. */
export function pct(x: number | null | undefined): string {
  return x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)} %`;
}
