/** Counts in words for people and for the model: digits grouped, a noun made plural. Pure. */

/** `1234567` → `1,234,567` (deterministic, independent of the locale). */
export function formatCount(n: number): string {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `1 line` / `3 lines`: a count with its noun, plural when needed. */
export function plural(n: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${formatCount(n)} ${n === 1 ? noun : pluralNoun}`;
}
