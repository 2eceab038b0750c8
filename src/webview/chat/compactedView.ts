/**
 * The compacted history in the chat: a compacted group (the rounds a compaction replaced,
 * collapsed beside its summary card) that asks the host for its items the first time the user
 * opens it, and a cleared tool result's "result cleared — click to see it", which asks for the
 * original. What came back is kept for the life of the view, and what the user opened stays
 * open when the transcript renders an item again (a scroll, a rebuilt history).
 */
import type { ChatItem } from '../../protocol/chatItems';
import { ownItemId } from '../../protocol/chatItems';
import { el } from '../shared/dom';
import { compactedLabel } from './compactedLabel';
import { renderItem, type ItemHandlers } from './itemView';
import { layoutTurns } from './turnLayout';

type Compacted = Extract<ChatItem, { kind: 'compacted' }>;

/** What the compacted history asks of the host. */
export interface CompactedRequests {
  /** The items of compaction `compactionId`'s group (answered with `compactedItems`). */
  compacted(compactionId: string): void;
  /** The original of a cleared result, by its call's id (answered with `clearedResult`). */
  clearedResult(toolUseId: string): void;
}

/** A result or a group as the host answered: its content, or why there is none. */
type Answer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/** See the file comment; `render` draws a group's items (the transcript's item renderer). */
export class CompactedView {
  private readonly groups = new Map<string, Answer<readonly ChatItem[]>>();
  private readonly openGroups = new Set<string>();
  private readonly results = new Map<string, Answer<string>>();
  private readonly shownResults = new Set<string>();

  constructor(
    private readonly ask: CompactedRequests,
    private readonly render: (items: readonly ChatItem[]) => HTMLElement[],
  ) {}

  /** A collapsed group titled by what it holds; opening it shows its items (asked for once). */
  group(item: Compacted): HTMLElement {
    const body = el('div', { class: 'compacted-items', 'data-compacted-for': item.compactionId });
    const node = el(
      'details',
      { class: 'item compacted-group', 'data-id': item.id, 'data-testid': 'compacted-group' },
      el(
        'summary',
        { title: 'The messages as they were before this compaction (the model reads the summary)' },
        compactedLabel(item),
      ),
      body,
    );
    if (this.openGroups.has(item.compactionId)) {
      node.open = true;
      this.fillGroup(body, item.compactionId);
    }
    node.addEventListener('toggle', () => {
      if (!node.open) {
        // Folded: its items leave the DOM (they are kept here), so nothing hidden is found by a search.
        this.openGroups.delete(item.compactionId);
        return void body.replaceChildren();
      }
      this.openGroups.add(item.compactionId);
      this.fillGroup(body, item.compactionId);
    });
    return node;
  }

  /**
   * The row's "result cleared — click to see it" and the place its original shows (`body`, in
   * the card under its placeholder), for the tool item `itemId` (in a group: prefixed).
   */
  clearedResult(itemId: string): { control: HTMLElement; body: HTMLElement } {
    const toolUseId = ownItemId(itemId);
    const body = el('div', { class: 'cleared-original', 'data-cleared-for': toolUseId });
    const control = el(
      'button',
      {
        class: 'link cleared',
        type: 'button',
        title:
          'Compaction cleared this result to save context (the model sees a placeholder); click to see the original.',
        'data-testid': 'cleared-result',
      },
      'result cleared — click to see it',
    );
    control.addEventListener('click', (e) => {
      e.preventDefault(); // inside the row's <summary>: opens the card instead of toggling it
      e.stopPropagation();
      const card = control.closest('details');
      if (card) card.open = true;
      this.shownResults.add(toolUseId);
      this.fillResult(body, toolUseId);
    });
    if (this.shownResults.has(toolUseId)) this.fillResult(body, toolUseId);
    return { control, body };
  }

  /** The host's answer to `compacted`: fills the group wherever it shows. */
  receivedGroup(compactionId: string, items: readonly ChatItem[], error?: string): void {
    this.groups.set(compactionId, error === undefined ? { ok: true, value: items } : { ok: false, error });
    for (const body of document.querySelectorAll<HTMLElement>('[data-compacted-for]'))
      if (body.dataset.compactedFor === compactionId) this.fillGroup(body, compactionId);
  }

  /** The host's answer to `clearedResult`: fills the original wherever its card shows. */
  receivedResult(toolUseId: string, text?: string, error?: string): void {
    this.results.set(toolUseId, text !== undefined ? { ok: true, value: text } : { ok: false, error: error ?? '' });
    for (const body of document.querySelectorAll<HTMLElement>('[data-cleared-for]'))
      if (body.dataset.clearedFor === toolUseId && this.shownResults.has(toolUseId)) this.fillResult(body, toolUseId);
  }

  private fillGroup(body: HTMLElement, compactionId: string): void {
    const got = this.groups.get(compactionId);
    if (!got) {
      body.replaceChildren(el('div', { class: 'muted' }, 'Loading…'));
      this.ask.compacted(compactionId);
      return;
    }
    if (!got.ok) return void body.replaceChildren(el('div', { class: 'muted' }, got.error));
    const nodes = this.render(got.value);
    // The originals are no longer in the conversation: nothing in them can be pinned.
    for (const node of nodes) for (const pin of node.querySelectorAll('.pin')) pin.remove();
    body.replaceChildren(...nodes);
  }

  private fillResult(body: HTMLElement, toolUseId: string): void {
    const got = this.results.get(toolUseId);
    if (!got) {
      body.replaceChildren(el('div', { class: 'muted' }, 'Loading the original result…'));
      this.ask.clearedResult(toolUseId);
      return;
    }
    body.replaceChildren(
      ...(got.ok
        ? [
            el('div', { class: 'label' }, 'Original result (before compaction)'),
            el('pre', { 'data-testid': 'cleared-original' }, got.value),
          ]
        : [el('div', { class: 'muted' }, got.error)]),
    );
  }
}

/**
 * A group's items as the transcript draws them, one Claude header per turn (turnLayout.ts);
 * a long run of calls is not folded here (the group is itself the folded view).
 */
export function renderCompactedItems(items: readonly ChatItem[], handlers: ItemHandlers): HTMLElement[] {
  const layouts = layoutTurns(items, new Set());
  return items.map((item, i) => {
    const { header, hidden, round } = layouts[i] ?? {};
    return renderItem(item, handlers, {
      ...(header !== undefined ? { header } : {}),
      ...(hidden !== undefined ? { hidden } : {}),
      ...(round !== undefined ? { round } : {}),
    });
  });
}
