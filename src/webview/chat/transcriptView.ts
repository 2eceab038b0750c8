import type { ChatItem } from '../../protocol/chatItems';
import { el } from '../shared/dom';
import { renderItem, type ItemHandlers } from './itemView';
import { routeLinks } from './markdown';

/**
 * The transcript: one DOM node per item, keyed by id, so an upsert replaces one node and
 * a streamed delta appends text to one node. Item rendering lives in itemView.ts.
 */
export class TranscriptView {
  readonly root = el('div', { class: 'transcript', role: 'log', 'aria-label': 'Conversation', 'data-testid': 'transcript' });
  private readonly nodes = new Map<string, HTMLElement>();
  private readonly items = new Map<string, ChatItem>();

  constructor(private readonly handlers: ItemHandlers) {
    routeLinks(this.root, handlers.markdown);
  }

  /** Replaces everything. */
  reset(items: readonly ChatItem[]): void {
    this.root.replaceChildren();
    this.nodes.clear();
    this.items.clear();
    for (const item of items) this.upsert(item);
  }

  /** Adds an item, or replaces the one with the same id in place. */
  upsert(item: ChatItem): void {
    const node = renderItem(item, this.handlers);
    const old = this.nodes.get(item.id);
    if (old) old.replaceWith(node);
    else this.root.append(node);
    this.nodes.set(item.id, node);
    this.items.set(item.id, item);
    this.scrollToEnd();
  }

  /** Appends streamed text to an assistant item. */
  append(id: string, text: string): void {
    const item = this.items.get(id);
    if (!item || item.kind !== 'assistant') return;
    const next = { ...item, text: item.text + text };
    this.items.set(id, next);
    const body = this.nodes.get(id)?.querySelector('.text');
    if (body) body.textContent = next.text;
    this.scrollToEnd();
  }

  /** Whether the transcript has no items. */
  isEmpty(): boolean {
    return this.items.size === 0;
  }

  private scrollToEnd(): void {
    const scroller = this.root.parentElement;
    if (scroller) scroller.scrollTop = scroller.scrollHeight;
  }
}
