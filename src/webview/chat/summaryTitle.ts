/**
 * The one-line title of a summary card in the chat: which turns the summary stands for. A
 * summary that ends inside a turn (a long agent turn compacted while it runs) holds that
 * turn's earlier tool rounds, not the whole turn, and says so. Always ends with "were/was
 * compacted into a summary."
 */
export function summaryTitle(item: {
  readonly firstTurn: number;
  readonly lastTurn: number;
  readonly inTurn?: boolean;
}): string {
  const { firstTurn: a, lastTurn: b } = item;
  if (item.inTurn)
    return a >= b
      ? `Earlier tool rounds of turn ${b} were compacted into a summary.`
      : `Turns ${a}–${b - 1} and the earlier tool rounds of turn ${b} were compacted into a summary.`;
  return a >= b ? `Turn ${b} was compacted into a summary.` : `Turns ${a}–${b} were compacted into a summary.`;
}

/**
 * The card's sentence on what the summary did not carry, or '' when it carried everything:
 * "3 identifiers from the originals are not in the summary: a, b, c. The model can still recall them."
 */
export function lostSentence(parts: { readonly lost: readonly string[]; readonly lostMore?: number }): string {
  const extra = parts.lostMore ?? 0;
  const n = parts.lost.length + extra;
  if (n === 0) return '';
  const what = n === 1 ? '1 identifier from the originals is' : `${n} identifiers from the originals are`;
  const more = extra > 0 ? ` and ${extra} more` : '';
  return `${what} not in the summary: ${parts.lost.join(', ')}${more}. The model can still recall them.`;
}
