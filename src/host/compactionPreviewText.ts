import type { CompactionPreview } from '../core/compaction/compactor';

/**
 * What Compact Now would do, in a sentence: the turns, their tokens → the expected size of
 * what replaces them (the figures the Compactions view then shows for the records), the saving,
 * and the whole prompt before → after.
 */
export function previewSentence(preview: CompactionPreview): string {
  const turns = preview.regions.map((r) => (r.firstTurn === r.lastTurn ? `turn ${r.firstTurn}` : `turns ${r.firstTurn}–${r.lastTurn}`)).join(', ');
  const before = preview.regions.reduce((n, r) => n + r.tokens, 0);
  const after = preview.regions.reduce((n, r) => n + r.expectedTokensAfter, 0);
  return `Would compact ${turns}: about ${fmt(before)} → ${fmt(after)} tokens (saves ~${fmt(preview.expectedSaving)}). The whole prompt: about ${fmt(preview.tokensBefore)} → ${fmt(preview.expectedAfter)} tokens.`;
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
