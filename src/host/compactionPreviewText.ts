import type { CompactionPreview } from '../core/compaction/compactor';
import { describeChoice } from '../core/compaction/summariserRoute';
import type { ReattachedFile } from '../core/compaction/types';
import { turnRangeText } from './compactionRowText';

/**
 * What Compact Now would do, in a sentence: the turns, their tokens → the expected size of
 * what replaces them (the figures the Compactions view then shows for the records) and the
 * saving; then the plan it would carry, the files it would re-attach fresh from disk, those it would list without
 * their content (no room left, too large, gone) and how many others it would name by path
 * (the file index), with the reminder's tokens as read now; then the whole prompt
 * before → after, that reminder included; then who would write the summaries, with the
 * expected cost of both routes ("summariser: claude-opus-4-6 from cache, est. $0.04 vs
 * claude-haiku-4-5 $0.09").
 */
export function previewSentence(preview: CompactionPreview): string {
  const turns = preview.regions.map((r) => turnRangeText(r.firstTurn, r.lastTurn)).join(', ');
  const before = preview.regions.reduce((n, r) => n + r.tokens, 0);
  const after = preview.regions.reduce((n, r) => n + r.expectedTokensAfter, 0);
  const sentence = `Would compact ${turns}: about ${fmt(before)} → ${fmt(after)} tokens (saves ~${fmt(preview.expectedSaving)}).`;
  const withContent = preview.reattached.filter((f) => f.attached === 'content').map((f) => f.path);
  const plan = preview.carriedPlan;
  const then = [
    ...(plan ? [`carries the plan (${plan.completed} of ${plan.steps} done)`] : []),
    ...(withContent.length > 0 ? [`re-attaches ${withContent.join(', ')} (read fresh from disk)`] : []),
    ...withoutContent(preview.reattached),
    ...(preview.named.length > 0
      ? [
          `names ${preview.named.length} other file${preview.named.length === 1 ? '' : 's'} read or edited earlier by path`,
        ]
      : []),
  ];
  const reattach =
    then.length > 0
      ? ` Then ${[then.slice(0, -1).join(', '), then.at(-1)].filter(Boolean).join(' and ')}: ~${fmt(preview.reattachTokens)} tokens${then.length > (plan ? 1 : 0) ? ' as the files are now' : ''}.`
      : '';
  const whole = ` The whole prompt: about ${fmt(preview.tokensBefore)} → ${fmt(preview.expectedAfter)} tokens.`;
  const summariser = preview.summariser ? ` ${capitalised(describeChoice(preview.summariser))}.` : '';
  return `${sentence}${reattach}${whole}${summariser}`;
}

/** "lists a, b without their content (why)", or each file with its own reason when they differ. */
function withoutContent(files: readonly ReattachedFile[]): string[] {
  const listed = files
    .filter((f) => f.attached === 'reference')
    .map((f) => ({ path: f.path, why: (f.reason ?? '').split(';')[0]?.trim() || 'not attached' }));
  if (listed.length === 0) return [];
  const reasons = new Set(listed.map((f) => f.why));
  return reasons.size === 1
    ? [`lists ${listed.map((f) => f.path).join(', ')} without their content (${[...reasons][0]})`]
    : [`lists ${listed.map((f) => `${f.path} (${f.why})`).join(', ')} without their content`];
}

function capitalised(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
