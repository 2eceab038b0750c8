/**
 * The words of a compaction's row in the Compactions view: tokens before → after, how often
 * the agent recalled from it, and whether it was restored or is orphaned. Plain text (no
 * `vscode`), so it is unit-tested.
 */
import type { CompactionEntryState } from '../core/agent/agentSession';
import type { CompactionRecord } from '../core/compaction/types';
import type { Message } from '../core/conversation/conversationModel';
import { recalledLabel } from '../core/recall/recallTool';
import { LAYER_LABEL, TRIGGER_LABEL } from '../core/compaction/labels';

export { LAYER_LABEL, TRIGGER_LABEL } from '../core/compaction/labels';

/** The label of a rewind by what made it (core/compaction/rewind.ts). */
const REWIND_LABEL: Readonly<Record<string, string>> = {
  retry: 'Retry',
  edit: 'Edit',
  restore: 'Answer set aside by a restore',
  to: 'Rewind to here',
  files: 'Files rewound',
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

/** What stands in place of a compaction's originals, as its row in the view names it: `Summary`, `Tool results cleared`. */
export const REPLACEMENT_LABEL: Record<CompactionRecord['layer'], string> = {
  'tool-result-guard': 'Tool result cut on arrival',
  'budget-trim': 'Tool results trimmed',
  snip: 'Stale results removed',
  microcompact: 'Old tool results cleared',
  mask: 'Tool results cleared',
  summarise: 'Summary',
  'fallback-drop': 'Turns dropped (summary failed)',
  'middle-removal': 'Middle turns removed',
  'oldest-removal': 'Oldest turns removed',
  hybrid: 'Turns removed',
  'server-compact': 'Summary by the API',
  'tail-guard': 'Cut to fit the window',
  'overflow-cut': 'Tool results cut to fit the window',
  rewind: 'Nothing (taken back)',
};

/** `Summary · turns 1–2`: the title of the document showing what stands in place of a record's originals. */
export function replacementTitle(r: CompactionRecord): string {
  const first = Math.min(...r.regions.map((g) => g.firstTurn));
  const last = Math.max(...r.regions.map((g) => g.lastTurn));
  const turns = r.regions.length > 0 ? ` · ${turnRangeText(first, last)}` : '';
  return `${REPLACEMENT_LABEL[r.layer]}${turns}`;
}

/**
 * The turn a compaction ran in: the newest turn among the messages (the conversation as it
 * stands and the record's originals) with a block created by the record's time; the newest
 * turn it replaced when no block says.
 */
export function compactionTurn(r: CompactionRecord, messages: readonly Message[]): number {
  let turn = 0;
  for (const m of [...messages, ...r.originals])
    if (m.turn > turn && m.blocks.some((b) => b.meta.createdAt > 0 && b.meta.createdAt <= r.at)) turn = m.turn;
  return turn > 0 ? turn : Math.max(0, ...r.originals.map((m) => m.turn));
}

/** A top-level row of the view: one compaction, or the automatic compactions of one turn. */
export type CompactionGroup =
  | { readonly kind: 'compaction'; readonly entry: CompactionEntryState }
  | { readonly kind: 'turn'; readonly turn: number; readonly entries: readonly CompactionEntryState[] };

/**
 * The view's top level, newest first: manual compactions on their own, and the automatic ones
 * grouped by the turn they ran in (`turnOf`), a group where a turn has two or more (a lone one
 * stays on its own). A group stands where its newest compaction would; its entries newest first.
 */
export function groupCompactions(
  entries: readonly CompactionEntryState[],
  turnOf: (r: CompactionRecord) => number,
): CompactionGroup[] {
  const turns = new Map<CompactionEntryState, number>();
  const byTurn = new Map<number, CompactionEntryState[]>();
  for (const e of entries)
    if (e.record.trigger !== 'manual') {
      const turn = turnOf(e.record);
      turns.set(e, turn);
      byTurn.set(turn, [...(byTurn.get(turn) ?? []), e]);
    }
  const out: CompactionGroup[] = [];
  const placed = new Set<number>();
  for (const e of [...entries].reverse()) {
    if (e.record.trigger === 'manual') {
      out.push({ kind: 'compaction', entry: e });
      continue;
    }
    const turn = turns.get(e) ?? 0;
    const group = byTurn.get(turn) ?? [];
    if (group.length < 2) out.push({ kind: 'compaction', entry: e });
    else if (!placed.has(turn)) {
      placed.add(turn);
      out.push({ kind: 'turn', turn, entries: [...group].reverse() });
    }
  }
  return out;
}

/** `Turn 3 · 4 automatic compactions`: a group's row. */
export function turnGroupLabel(turn: number, count: number): string {
  return `Turn ${turn} · ${fmt(count)} automatic compaction${count === 1 ? '' : 's'}`;
}

/**
 * A group's description: what its compactions did, by their layers' words — `summary` when all
 * did the same, else each with its count, the most frequent first (`results cleared ×14 ·
 * summary ×2`). Their tokens before → after are each compaction's own; the group's tooltip sums
 * what they took out ({@link turnGroupSaved}).
 */
export function turnGroupDescription(entries: readonly CompactionEntryState[]): string {
  const counts = new Map<string, number>();
  for (const e of entries) counts.set(LAYER_LABEL[e.record.layer], (counts.get(LAYER_LABEL[e.record.layer]) ?? 0) + 1);
  if (counts.size === 1) return [...counts.keys()].join('');
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([label, n]) => `${label} ×${fmt(n)}`)
    .join(' · ');
}

/** The tokens a group's compactions took out of the prompt together: the sum of each one's before − after. */
export function turnGroupSaved(entries: readonly CompactionEntryState[]): number {
  return entries.reduce((n, e) => n + Math.max(0, e.record.tokensBefore - e.record.tokensAfter), 0);
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
