import type { ChatItem } from '../../protocol/chatItems';
import { el } from '../shared/dom';
import { keepThinkingOpen } from './thinkingView';
import { keepStreamedBody } from './streamingMarkdown';
import type { ItemLayout } from './turnLayout';
import { LruCache } from './virtualWindow';

/** Rendered nodes kept (detached) after they scroll out, so scrolling back is cheap. */
const NODE_CACHE_SIZE = 200;

/** One transcript item as data: its position, its raw height estimate and whether its height was measured. */
export interface Slot {
  item: ChatItem;
  index: number;
  raw: number;
  measured: boolean;
  /** How the item shows in its turn (turnLayout.ts); none: as the item says. */
  layout?: ItemLayout;
}

/**
 * The DOM nodes of a virtualised transcript's items: those in the DOM (each observed by the
 * ResizeObserver, with `aria-posinset` / `aria-setsize`), and a small LRU of nodes that
 * scrolled out, reused only while their item is unchanged.
 */
export class RenderedNodes {
  private readonly rendered = new Map<string, HTMLElement>();
  private readonly cache = new LruCache<string, { item: ChatItem; node: HTMLElement }>(NODE_CACHE_SIZE);
  private readonly idOf = new WeakMap<Element, string>();

  constructor(
    private readonly renderItem: (slot: Slot) => HTMLElement,
    private readonly observer: ResizeObserver | undefined,
  ) {}

  /** The node in the DOM for an item id. */
  get(id: string): HTMLElement | undefined {
    return this.rendered.get(id);
  }

  /** Whether the item is in the DOM. */
  has(id: string): boolean {
    return this.rendered.has(id);
  }

  /** The item id of a node this adopted (for ResizeObserver entries), if it is the one in the DOM now. */
  idOfNode(node: Element): string | undefined {
    const id = this.idOf.get(node);
    return id !== undefined && this.rendered.get(id) === node ? id : undefined;
  }

  /** Forgets every node (the caller empties the DOM). */
  clear(): void {
    for (const node of this.rendered.values()) this.observer?.unobserve(node);
    this.rendered.clear();
    this.cache.clear();
  }

  /** The item changed: its cached node must not be reused. */
  invalidate(id: string): void {
    this.cache.delete(id);
  }

  /** Sets `aria-setsize` on every node in the DOM. */
  setSize(size: number): void {
    for (const node of this.rendered.values()) node.setAttribute('aria-setsize', String(size));
  }

  /** Nodes for the slots, in order: cached ones whose item is unchanged, else freshly rendered. */
  fragment(slots: readonly Slot[], size: number): DocumentFragment {
    const fragment = document.createDocumentFragment();
    for (const slot of slots) {
      const cached = this.cache.get(slot.item.id);
      this.cache.delete(slot.item.id);
      fragment.append(
        cached && cached.item === slot.item ? this.adopt(slot, cached.node, size) : this.render(slot, size),
      );
    }
    return fragment;
  }

  /** A fresh node for the slot's item (the caller puts it where the old one was). */
  render(slot: Slot, size: number): HTMLElement {
    const old = this.rendered.get(slot.item.id);
    if (old) this.observer?.unobserve(old);
    return this.adopt(slot, this.renderItem(slot), size);
  }

  /** Takes the slot's node out of the DOM into the cache. */
  detach(slot: Slot): void {
    const node = this.rendered.get(slot.item.id);
    if (!node) return;
    this.observer?.unobserve(node);
    node.remove();
    this.rendered.delete(slot.item.id);
    this.cache.set(slot.item.id, { item: slot.item, node });
  }

  private adopt(slot: Slot, node: HTMLElement, size: number): HTMLElement {
    node.setAttribute('aria-posinset', String(slot.index + 1));
    node.setAttribute('aria-setsize', String(size));
    this.idOf.set(node, slot.item.id);
    this.rendered.set(slot.item.id, node);
    // The border box: what is measured (a padding or border change alone resizes the item too).
    this.observer?.observe(node, { box: 'border-box' });
    return node;
  }
}

/** A spacer standing for the heights of items not in the DOM. */
export function spacer(): HTMLElement {
  const node = el('div', { class: 'transcript-spacer', 'aria-hidden': 'true', hidden: '' });
  node.style.flexShrink = '0';
  return node;
}

/** Shows a spacer at `height` pixels, or hides it. */
export function setSpacer(node: HTMLElement, shown: boolean, height: number): void {
  node.hidden = !shown;
  node.style.height = `${Math.max(0, shown ? height : 0)}px`;
}

/**
 * Puts an item's new node where its old one was, keeping what the user had: an open thinking
 * disclosure stays open, a finished answer keeps its streamed body when it renders the same,
 * and focus inside the old node stays in the item (on the control of the same `data-testid`,
 * else on the item itself), so answering an approval by keyboard leaves focus on its card and
 * Tab goes on from there.
 */
export function replaceNode(old: HTMLElement, next: HTMLElement): void {
  const focused = document.activeElement;
  const hadFocus = focused instanceof HTMLElement && old.contains(focused);
  const testid = hadFocus ? focused.getAttribute('data-testid') : null;
  old.replaceWith(keepStreamedBody(old, keepThinkingOpen(old, next)));
  if (!hadFocus) return;
  const same = testid ? next.querySelector<HTMLElement>(`[data-testid="${CSS.escape(testid)}"]`) : null;
  if (same && !same.matches(':disabled')) return same.focus();
  if (!next.hasAttribute('tabindex')) next.setAttribute('tabindex', '-1');
  next.focus();
}
