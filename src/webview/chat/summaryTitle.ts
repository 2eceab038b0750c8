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
