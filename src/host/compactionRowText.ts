/**
 * The words of a compaction's row in the Compactions view: tokens before → after, how often
 * the agent recalled from it, and whether it was restored or is orphaned. Plain text (no
 * `vscode`), so it is unit-tested.
 */
import type { CompactionEntryState } from '../core/agent/agentSession';
import { recalledLabel } from '../core/recall/recallTool';

/** Description suffix of a compaction kept only for its originals (its messages were lost). */
export const ORPHANED_DESCRIPTION = 'orphaned — originals only';

/** `12,400 → 1,900 · recalled 2× · restored`: the row's description. */
export function compactionDescription(entry: CompactionEntryState): string {
  const r = entry.record;
  const recalled = recalledLabel(entry.recalled);
  const state = entry.orphaned ? ORPHANED_DESCRIPTION : entry.active ? '' : 'restored';
  return [`${fmt(r.tokensBefore)} → ${fmt(r.tokensAfter)}`, ...(recalled ? [recalled] : []), ...(state ? [state] : [])].join(' · ');
}

/** The tooltip's sentence on recalls, or undefined when the agent never recalled from it. */
export function recalledTooltip(entry: CompactionEntryState): string | undefined {
  const n = entry.recalled ?? 0;
  if (n <= 0) return undefined;
  return `The agent recalled from this compaction's originals or summary ${n === 1 ? 'once' : `${fmt(n)} times`} (recall tool).`;
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
