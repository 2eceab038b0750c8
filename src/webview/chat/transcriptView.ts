import type { ChatItem } from '../../protocol/chatItems';
import { el } from '../shared/dom';
import { renderItem, type ItemHandlers } from './itemView';
import { RenderedNodes, replaceNode, setSpacer, spacer, type Slot } from './renderedNodes';
import { routeLinks } from './markdown';
import { SlotEstimates } from './slotEstimates';
import { SlotLayouts } from './turnLayout';
import { computeWindow, HeightIndex } from './virtualWindow';
import { FollowEnd } from './followEnd';
import { appendToBody } from './streamingMarkdown';

/** Rendered beyond the viewport, above and below: one viewport height, at least MIN_OVERSCAN_PX. */
const MIN_OVERSCAN_PX = 300;
/**
 * Transcripts up to this many items are rendered whole (no windowing), so find-in-page and
 * Tab reach every message of an ordinary session; longer ones render only what is visible.
 */
const RENDER_ALL_UP_TO = 150;

/**
 * The transcript, virtualised: every item is kept as data (id → item, plus the order), but
 * only the items in and near the viewport are in the DOM, between two spacers that stand for
 * the heights of the others. Heights are estimated until an item is rendered, then measured
 * (ResizeObserver), so Markdown, images and expanded <details> are accounted for. While the
 * user is at the bottom, new items and streamed text keep the view at the end; otherwise
 * height changes above the viewport are compensated so the content does not jump.
 * Items scrolled out stay in a small LRU of nodes (renderedNodes.ts); an upsert or delta
 * invalidates its node. Item rendering lives in itemView.ts; item nodes keep their `data-id`
 * and get aria-posinset / aria-setsize, since the `log` region holds only some of them.
 */
export class TranscriptView {
  readonly root = el('div', {
    class: 'transcript',
    role: 'log',
    'aria-label': 'Conversation',
    'data-testid': 'transcript',
  });
  private readonly topSpacer = spacer();
  private readonly bottomSpacer = spacer();
  private readonly slots = new Map<string, Slot>();
  private order: string[] = [];
  private readonly heights = new HeightIndex();
  /** Nodes in the DOM: exactly the items [range.start, range.end). */
  private readonly rendered: RenderedNodes;
  private range = { start: 0, end: 0 };
  /** Items not rendered whose content changed: their estimates are redone on the next frame. */
  private readonly stale = new Set<number>();
  private readonly estimates = new SlotEstimates();
  private readonly observer: ResizeObserver | undefined;
  private scroller: HTMLElement | undefined;
  private readonly follow = new FollowEnd();
  /** A reading position to scroll to on the next layout. */
  private restoreTo: { id: string; offset: number } | undefined;
  private frame = 0;
  private sizeChanged = false;
  private busyUntilNextFrame = false;
  /** Items that existed at the last layout: rendering one of them again is not news. */
  private known = 0;
  private readonly layouts = new SlotLayouts();

  constructor(handlers: Omit<ItemHandlers, 'expandRun'>) {
    routeLinks(this.root, handlers.markdown);
    this.root.append(this.topSpacer, this.bottomSpacer);
    this.observer =
      typeof ResizeObserver === 'function' ? new ResizeObserver((entries) => this.onResize(entries)) : undefined;
    const own: ItemHandlers = { ...handlers, expandRun: (run, open) => this.expandRun(run, open) };
    this.rendered = new RenderedNodes((slot) => renderItem(slot.item, own, slot.layout), this.observer);
  }

  /** Replaces everything, and follows the end again. */
  reset(items: readonly ChatItem[]): void {
    this.root.replaceChildren(this.topSpacer, this.bottomSpacer);
    this.rendered.clear();
    this.slots.clear();
    this.stale.clear();
    this.order = [];
    this.range = { start: 0, end: 0 };
    for (const item of items) {
      const known = this.slots.get(item.id);
      if (!known) this.order.push(item.id);
      this.slots.set(item.id, { item, index: known?.index ?? this.order.length - 1, raw: 0, measured: false });
    }
    const all = this.order.flatMap((id) => this.slots.get(id) ?? []);
    this.layouts.apply(all);
    this.heights.reset(all.map((slot) => this.estimates.estimate(slot)));
    this.known = this.order.length;
    this.follow.stuck = true;
    this.sizeChanged = true;
    this.schedule();
  }

  /** Adds an item at the end, or replaces the one with the same id in place. */
  upsert(item: ChatItem): void {
    this.rendered.invalidate(item.id);
    const slot = this.slots.get(item.id);
    if (!slot) {
      const added = { item, index: this.order.length, raw: this.estimates.raw(item), measured: false };
      this.slots.set(item.id, added);
      this.order.push(item.id);
      this.heights.push(this.estimates.estimated(added.item.kind, added.raw));
      this.relayout();
      this.sizeChanged = true;
      // The user's own new message, and a question waiting for their answer, bring them back to the end.
      if (item.kind === 'user' || (item.kind === 'approval' && item.state === 'pending')) this.follow.stuck = true;
      this.schedule();
      return;
    }
    slot.item = item;
    if (!this.relayout().has(item.id)) this.redo(slot);
  }

  /** A slot's item or layout changed: a new node when in the DOM, a new estimate on the next frame unless measured. */
  private redo(slot: Slot): void {
    this.rendered.invalidate(slot.item.id);
    const old = this.rendered.get(slot.item.id);
    if (old) replaceNode(old, this.rendered.render(slot, this.order.length));
    // A hidden node (display: none) is never measured.
    if (old && !slot.layout?.hidden) return;
    this.stale.add(slot.index);
    this.schedule();
  }

  /**
   * Appends streamed text (or thinking) to an assistant item, no re-render (the answer's Markdown
   * renders only its live tail again) — except the first thinking, which adds its disclosure.
   */
  append(id: string, text: string, part: 'text' | 'thinking' = 'text'): void {
    const slot = this.slots.get(id);
    if (!slot || slot.item.kind !== 'assistant') return;
    const had = slot.item.thinking !== undefined;
    slot.item =
      part === 'text'
        ? { ...slot.item, text: slot.item.text + text }
        : { ...slot.item, thinking: { ...slot.item.thinking, text: (slot.item.thinking?.text ?? '') + text } };
    this.rendered.invalidate(id);
    const node = this.rendered.get(id);
    const body = part === 'text' || had ? node?.querySelector(part === 'text' ? '.text' : '.thinking-text') : undefined;
    if (body)
      appendToBody(body, text); // the ResizeObserver sees the growth and keeps the end in view
    else if (node) replaceNode(node, this.rendered.render(slot, this.order.length));
    else {
      this.stale.add(slot.index);
      this.schedule();
    }
  }

  /**
   * Applies the turn layout (turnLayout.ts) again: the items whose layout changed are redone. Returns their ids.
   */
  private relayout(): Set<string> {
    const changed = this.layouts.apply(this.order.flatMap((id) => this.slots.get(id) ?? []));
    for (const slot of changed) this.redo(slot);
    return new Set(changed.map((slot) => slot.item.id));
  }

  /** Expands a folded run of calls, or folds it again (focus then goes to its "more" control). */
  private expandRun(run: string, open: boolean): void {
    this.layouts.expand(run, open);
    this.relayout();
    const control = open ? undefined : this.layouts.control(this.slots.values(), run);
    if (control) this.rendered.get(control.item.id)?.querySelector('button')?.focus();
  }

  /** Whether the transcript has no items. */
  isEmpty(): boolean {
    return this.slots.size === 0;
  }

  /**
   * Where the user is reading: the item at the top of the viewport and how far into it, or
   * undefined while the view follows the end (for the view state, so a hidden view comes back there).
   */
  readingPosition(): { id: string; offset: number } | undefined {
    const scroller = this.scroller;
    if (!scroller || this.follow.stuck || this.order.length === 0) return undefined;
    const top = this.viewTop(scroller);
    const index = this.heights.indexAt(top);
    const id = this.order[index];
    return id === undefined ? undefined : { id, offset: Math.max(0, Math.round(top - this.heights.prefix(index))) };
  }

  /** Scrolls to a position from readingPosition() on the next frame (to the end if its item is gone). */
  restoreReadingPosition(pos: { id: string; offset: number }): void {
    this.restoreTo = pos;
    this.follow.stuck = false;
    this.schedule();
  }

  /** The items matching `keep`, in order (e.g. approvals still waiting, to carry over a reset). */
  itemsWhere(keep: (item: ChatItem) => boolean): ChatItem[] {
    return this.order.flatMap((id) => {
      const item = this.slots.get(id)?.item;
      return item && keep(item) ? [item] : [];
    });
  }

  /** Finds the scroll container (the parent, see main.ts) once it exists, and listens to it. */
  private bind(): HTMLElement | undefined {
    if (this.scroller) return this.scroller;
    const scroller = this.root.parentElement ?? undefined;
    if (!scroller) return undefined;
    this.scroller = scroller;
    // This view anchors the content itself; the browser's own anchoring would apply every shift twice.
    scroller.style.overflowAnchor = 'none';
    scroller.addEventListener('scroll', () => this.onScroll(), { passive: true });
    this.observer?.observe(scroller);
    this.observer?.observe(this.root, { box: 'border-box' }); // a change no item's box shows (a margin)
    return scroller;
  }

  private schedule(): void {
    if (this.frame || typeof requestAnimationFrame !== 'function') return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.update();
    });
  }

  /** Lays out the window for the current scroll position (runs once per frame at most). */
  private update(): void {
    if (this.busyUntilNextFrame) {
      this.busyUntilNextFrame = false;
      this.root.removeAttribute('aria-busy');
    }
    const scroller = this.bind();
    // Hidden (or not laid out yet): keep the data; the scroller's resize brings us back.
    if (!scroller || scroller.clientHeight === 0) return;
    if (!this.estimates.hasMetrics) this.readMetrics();
    if (this.estimates.stale) this.reestimate(false);
    if (this.stale.size > 0) {
      this.anchored(() => {
        for (const i of this.stale) {
          const slot = this.slotAt(i);
          // A node in the DOM is measured, unless its layout hides it (display: none is never measured).
          if (!slot || (this.rendered.has(slot.item.id) && !slot.layout?.hidden)) continue;
          this.heights.set(i, this.estimates.estimate(slot));
        }
      });
      this.stale.clear();
    }
    const height = scroller.clientHeight;
    const restore = this.takeRestore();
    const scrollTop =
      restore !== undefined ? restore : this.follow.stuck ? this.heights.total() - height : this.viewTop(scroller);
    const w =
      this.order.length <= RENDER_ALL_UP_TO
        ? { start: 0, end: this.order.length }
        : computeWindow(this.heights, { scrollTop, height, overscan: Math.max(MIN_OVERSCAN_PX, height) });
    this.reconcile(w.start, w.end);
    if (restore !== undefined) this.follow.scrollTo(scroller, restore + scroller.scrollTop - this.viewTop(scroller));
    else if (this.follow.stuck) this.follow.scrollToEnd(scroller);
  }

  /** The pending restore's offset in transcript coordinates, once (undefined when none or its item is gone). */
  private takeRestore(): number | undefined {
    const pos = this.restoreTo;
    this.restoreTo = undefined;
    if (!pos) return undefined;
    const index = this.slots.get(pos.id)?.index;
    if (index === undefined) {
      this.follow.stuck = true;
      return undefined;
    }
    return this.heights.prefix(index) + pos.offset;
  }

  /** Makes the DOM hold exactly the items [start, end), reusing the nodes already there. */
  private reconcile(start: number, end: number): void {
    const old = this.range;
    const overlap = old.start < old.end && old.start < end && start < old.end;
    for (let i = old.start; i < old.end; i++) if (!overlap || i < start || i >= end) this.detach(i);
    // Nodes added again for the user's scrolling (or a reset) are not news: screen readers should not read them out.
    const firstAdded = !overlap || start < old.start ? start : old.end;
    if (firstAdded < Math.min(end, this.known)) this.markBusy();
    this.known = this.order.length;
    if (!overlap) this.root.insertBefore(this.nodes(start, end), this.bottomSpacer);
    else {
      if (start < old.start)
        this.root.insertBefore(
          this.nodes(start, old.start),
          this.rendered.get(this.order[old.start] ?? '') ?? this.bottomSpacer,
        );
      if (end > old.end) this.root.insertBefore(this.nodes(old.end, end), this.bottomSpacer);
    }
    this.range = { start, end };
    if (this.sizeChanged) {
      this.sizeChanged = false;
      this.rendered.setSize(this.order.length);
    }
    this.layoutSpacers();
  }

  /** Spacer heights: the flex gap already separates each shown spacer from its neighbour. */
  private layoutSpacers(): void {
    const gap = this.estimates.gap;
    const { start, end } = this.range;
    setSpacer(this.topSpacer, start > 0, this.heights.prefix(start) - gap);
    setSpacer(this.bottomSpacer, end < this.order.length, this.heights.total() - this.heights.prefix(end) - gap);
  }

  private nodes(from: number, to: number): DocumentFragment {
    const slots: Slot[] = [];
    for (let i = from; i < to; i++) {
      const slot = this.slotAt(i);
      if (slot) slots.push(slot);
    }
    return this.rendered.fragment(slots, this.order.length);
  }

  private detach(i: number): void {
    const slot = this.slotAt(i);
    if (slot) this.rendered.detach(slot);
  }

  /** Measured sizes of rendered items (and of the scroller): new heights, content kept in place. */
  private onResize(entries: readonly ResizeObserverEntry[]): void {
    const scroller = this.scroller;
    if (!scroller || scroller.clientHeight === 0) return;
    const measured: Array<[number, number]> = [];
    let keepEnd = false; // the viewport, or the transcript as a whole, changed size
    for (const entry of entries) {
      if (entry.target === scroller || entry.target === this.root) {
        keepEnd = true;
        if (entry.target === scroller) this.readMetrics();
        continue;
      }
      const id = this.rendered.idOfNode(entry.target);
      const slot = id === undefined ? undefined : this.slots.get(id);
      if (!slot) continue;
      const box = entry.borderBoxSize?.[0]?.blockSize ?? entry.target.getBoundingClientRect().height;
      if (!slot.measured) {
        // First measurement: teaches the estimates of its kind.
        slot.measured = true;
        this.estimates.learn(slot.item.kind, slot.raw, box);
      }
      measured.push([slot.index, this.estimates.slot(box)]);
    }
    if (measured.some(([i, h]) => Math.abs(this.heights.get(i) - h) >= 0.5)) {
      this.anchored(() => {
        for (const [i, h] of measured) this.heights.set(i, h);
      });
    }
    // The viewport or the content changed: stay at the end in this frame, before a later resize races a scroll event.
    if (keepEnd && this.follow.stuck) this.follow.scrollToEnd(scroller);
    this.schedule();
  }

  /** Heights change in `mutate`; the item at the top of the viewport stays where it is on screen. */
  private anchored(mutate: () => void): void {
    const scroller = this.scroller;
    if (!scroller || this.follow.stuck) {
      mutate();
      this.layoutSpacers();
      if (scroller && this.follow.stuck) this.follow.scrollToEnd(scroller);
      return;
    }
    const top = this.viewTop(scroller);
    const anchor = this.heights.indexAt(top);
    const offset = top - this.heights.prefix(anchor);
    mutate();
    this.layoutSpacers();
    if (anchor < 0) return;
    const shift = this.heights.prefix(anchor) + offset - top;
    if (Math.abs(shift) >= 0.5) this.follow.scrollTo(scroller, scroller.scrollTop + shift);
  }

  private onScroll(): void {
    if (!this.scroller) return;
    this.follow.scrolled(this.scroller);
    this.schedule();
  }

  /** The scroller's top edge in transcript coordinates (0 = top of the first item). */
  private viewTop(scroller: HTMLElement): number {
    return scroller.getBoundingClientRect().top + scroller.clientTop - this.root.getBoundingClientRect().top;
  }

  private markBusy(): void {
    this.root.setAttribute('aria-busy', 'true');
    this.busyUntilNextFrame = true;
    this.schedule();
  }

  private slotAt(i: number): Slot | undefined {
    const id = this.order[i];
    return id === undefined ? undefined : this.slots.get(id);
  }

  /** Re-estimates the items never measured (content kept in place); `rescan`: their raw estimates too. */
  private reestimate(rescan: boolean): void {
    this.estimates.markApplied();
    const slots = this.order.flatMap((id) => this.slots.get(id) ?? []);
    this.anchored(() => this.estimates.redo(slots, this.heights, (id) => this.rendered.has(id), rescan));
  }

  /** Reads the page's metrics; a change re-estimates every item not on screen. */
  private readMetrics(): void {
    if (this.estimates.readMetrics(this.root, this.scroller?.clientWidth)) this.reestimate(true);
  }
}
