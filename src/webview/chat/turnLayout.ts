/**
 * How the transcript's items show as turns, worked out from the items in order (pure, no DOM):
 * one Claude header per turn — an answer after the turn's first one shows no header, and one
 * with no words at all (a tool-only round) shows nothing, its tokens and Pin carried by the
 * first call of its round — an abandoned empty answer (a request that failed before any word)
 * shows nothing, and a long run of consecutive finished calls collapses after its first few
 * into an "N more calls…" control until the user expands it.
 */
import type { ChatItem } from '../../protocol/chatItems';
import type { Slot } from './renderedNodes';
import { lastTurnActions, type LastTurnAction } from './lastTurn';

/** A run of more calls than this collapses (unless expanded). */
export const RUN_COLLAPSE_OVER = 5;
/** Calls of a collapsed run shown before its "more" control. */
export const RUN_SHOWN = 3;

/** The Pin and tokens of a tool-only answer, shown on its round's first call. */
export interface RoundActions {
  readonly messageId: string | undefined;
  readonly pinned: boolean;
  readonly tokens: number | undefined;
}

/** How one item shows. The default (`{}`) is as the item says. */
export interface ItemLayout {
  /** An answer: false when an earlier answer of the same turn already shows the Claude header. */
  readonly header?: boolean;
  /** Not shown at all (takes no height). */
  readonly hidden?: boolean;
  /** This call stands for the collapsed calls of its run: an "N more …" control in its place. */
  readonly more?: { readonly run: string; readonly count: number; readonly noun: 'reads' | 'calls' };
  /** This call ends an expanded run: it carries a "Show fewer" control. */
  readonly fewer?: { readonly run: string };
  /** The Pin and tokens of the hidden tool-only answer this call's round belongs to. */
  readonly round?: RoundActions;
  /** Retry (the last answer) or Edit (the user's last message): see lastTurn.ts. */
  readonly last?: LastTurnAction;
}

type Assistant = Extract<ChatItem, { kind: 'assistant' }>;
type Tool = Extract<ChatItem, { kind: 'tool' }>;

/** An answer that shows no words: a finished tool-only round, or an abandoned empty stream. */
function wordless(item: Assistant): boolean {
  return !item.streaming && !item.text && item.thinking === undefined;
}

/** A call that can be folded into its run's "more" control (not one still running or waiting for the user). */
function foldable(item: Tool): boolean {
  return item.status !== 'running' && item.status !== 'awaiting';
}

/**
 * The layout of each item, index for index. `expanded`: the runs the user expanded, by the id
 * of the run's first call (stable while the run grows).
 */
export function layoutTurns(items: readonly ChatItem[], expanded: ReadonlySet<string>): ItemLayout[] {
  const out: ItemLayout[] = items.map(() => ({}));
  let headerShown = false;
  let carried: RoundActions | undefined;
  items.forEach((item, i) => {
    if (item.kind === 'user') headerShown = false;
    if (item.kind === 'assistant') {
      carried = undefined;
      if (item.standIn === true && !item.streaming) return;
      if (wordless(item) && (item.messageId === undefined || headerShown)) {
        out[i] = { hidden: true };
        if (item.messageId !== undefined)
          carried = { messageId: item.messageId, pinned: item.pinned === true, tokens: item.tokens };
        return;
      }
      out[i] = { header: !headerShown };
      headerShown = true;
    } else if (item.kind === 'tool' && carried) {
      out[i] = { round: carried };
      carried = undefined;
    } else if (item.kind !== 'tool') carried = undefined;
  });
  for (const run of toolRuns(items, out)) foldRun(items, out, run, expanded);
  for (const [i, last] of lastTurnActions(items, (i) => !out[i]?.hidden)) out[i] = { ...out[i], last };
  return out;
}

/** Runs of consecutive calls (hidden items between them do not break a run), as indexes of their calls. */
function toolRuns(items: readonly ChatItem[], out: readonly ItemLayout[]): number[][] {
  const runs: number[][] = [];
  let run: number[] = [];
  items.forEach((item, i) => {
    if (item.kind === 'tool') run.push(i);
    else if (!out[i]?.hidden) {
      if (run.length) runs.push(run);
      run = [];
    }
  });
  if (run.length) runs.push(run);
  return runs;
}

function foldRun(
  items: readonly ChatItem[],
  out: ItemLayout[],
  run: readonly number[],
  expanded: ReadonlySet<string>,
): void {
  if (run.length <= RUN_COLLAPSE_OVER) return;
  const first = items[run[0] ?? -1];
  if (!first) return;
  const key = first.id;
  if (expanded.has(key)) {
    const last = run.at(-1) ?? -1;
    out[last] = { ...out[last], fewer: { run: key } };
    return;
  }
  const folded = run.slice(RUN_SHOWN).filter((i) => {
    const item = items[i];
    return item?.kind === 'tool' && foldable(item);
  });
  if (folded.length < 2) return;
  const reads = folded.every((i) => {
    const item = items[i];
    return item?.kind === 'tool' && item.summary.startsWith('Read ');
  });
  folded.forEach((i, n) => {
    out[i] =
      n === 0
        ? { ...out[i], more: { run: key, count: folded.length, noun: reads ? 'reads' : 'calls' } }
        : { ...out[i], hidden: true };
  });
}

/** The words of a run's "more" control: "12 more reads…". */
export function moreLabel(more: NonNullable<ItemLayout['more']>): string {
  return `${more.count} more ${more.noun}…`;
}

/** A layout as a string, to tell whether an item's layout changed. */
export function layoutKey(layout: ItemLayout | undefined): string {
  return layout ? JSON.stringify(layout) : '{}';
}

/** The turn layout of a transcript's slots, and the runs of calls the user expanded. */
export class SlotLayouts {
  /** Runs the user expanded, by the id of their first call. */
  private readonly expanded = new Set<string>();

  /** Sets each slot's layout (`slots` in transcript order); returns the slots whose layout changed. */
  apply(slots: readonly Slot[]): Slot[] {
    const layouts = layoutTurns(
      slots.map((slot) => slot.item),
      this.expanded,
    );
    return slots.filter((slot, i) => {
      const next = layouts[i];
      if (layoutKey(next) === layoutKey(slot.layout)) return false;
      slot.layout = next;
      return true;
    });
  }

  /** Expands a run of calls (by its first call's id), or folds it again. */
  expand(run: string, open: boolean): void {
    if (open) this.expanded.add(run);
    else this.expanded.delete(run);
  }

  /** The slot showing a folded run's "more" control. */
  control(slots: Iterable<Slot>, run: string): Slot | undefined {
    for (const slot of slots) if (slot.layout?.more?.run === run) return slot;
    return undefined;
  }
}
