/**
 * The words of a compaction's row in the Compactions view: tokens before → after, how often
 * the agent recalled from it, and whether it was restored or is orphaned. Plain text (no
 * `vscode`), so it is unit-tested.
 */
import type { CompactionEntryState } from '../core/agent/agentSession';
import { recalledLabel } from '../core/recall/recallTool';
import { LAYER_LABEL, TRIGGER_LABEL } from '../core/compaction/labels';

export { LAYER_LABEL, TRIGGER_LABEL } from '../core/compaction/labels';

/** The label of a rewind by what made it (core/compaction/rewind.ts). */
const REWIND_LABEL: Readonly<Record<string, string>> = {
  retry: 'Retry',
  edit: 'Edit',
  restore: 'Answer set aside by a restore',
};

/**
 * `Auto (soft) · 10:42:07`, `Server compaction · 10:42:07` for the API's compaction, `Retry ·
 * 10:42:07` for a rewind; `time`: the record's time as shown.
 */
export function compactionLabel(entry: CompactionEntryState, time: string): string {
  const r = entry.record;
  const what =
    r.layer === 'server-compact'
      ? 'Server compaction'
      : r.layer === 'rewind'
        ? (REWIND_LABEL[r.strategy] ?? TRIGGER_LABEL.rewind)
        : TRIGGER_LABEL[r.trigger];
  return `${what} · ${time}`;
}

/**
 * The row's `contextValue` (package.json menus): `compaction-active` offers Restore;
 * `compaction-server` (the API's compaction, which cannot be undone: the API ignores what
 * stands before its summary), `compaction-restored` and `compaction-orphaned` do not. All
 * start with `compaction`, so Copy Summary and Show in Budget stay offered.
 */
export function compactionContextValue(
  entry: CompactionEntryState,
): 'compaction-orphaned' | 'compaction-server' | 'compaction-active' | 'compaction-restored' {
  if (entry.orphaned) return 'compaction-orphaned';
  if (entry.record.layer === 'server-compact') return 'compaction-server';
  return entry.active ? 'compaction-active' : 'compaction-restored';
}

/** Description suffix of a compaction kept only for its originals (its messages were lost). */
export const ORPHANED_DESCRIPTION = 'orphaned — originals only';

/** `12,400 → 1,900 · summary · recalled 2× · restored`: the row's description (the API's own compaction says its kind in the label). */
export function compactionDescription(entry: CompactionEntryState): string {
  const r = entry.record;
  const recalled = recalledLabel(entry.recalled);
  const state = entry.orphaned ? ORPHANED_DESCRIPTION : entry.active ? '' : 'restored';
  return [
    `${fmt(r.tokensBefore)} → ${fmt(r.tokensAfter)}`,
    ...(r.layer === 'server-compact' ? [] : [LAYER_LABEL[r.layer]]),
    ...(recalled ? [recalled] : []),
    ...(state ? [state] : []),
  ].join(' · ');
}

/** The tooltip's sentence on recalls, or undefined when the agent never recalled from it. */
export function recalledTooltip(entry: CompactionEntryState): string | undefined {
  const n = entry.recalled ?? 0;
  if (n <= 0) return undefined;
  return `The agent recalled from this compaction's originals or summary ${n === 1 ? 'once' : `${fmt(n)} times`} (recall tool).`;
}

/** `turn 3` or `turns 3–7`: a region's turns, in lower case (the preview sentence and the view's rows). */
export function turnRangeText(firstTurn: number, lastTurn: number): string {
  return firstTurn === lastTurn ? `turn ${firstTurn}` : `turns ${firstTurn}–${lastTurn}`;
}

/** `Turn 3` or `Turns 3–7`: a replaced region's row in the Compactions view. */
export function turnRangeLabel(firstTurn: number, lastTurn: number): string {
  const text = turnRangeText(firstTurn, lastTurn);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
