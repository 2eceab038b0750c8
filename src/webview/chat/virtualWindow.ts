/**
 * The pure part of the virtualised transcript: item heights with prefix sums, the window of
 * items to render for a scroll position, height estimates (calibrated by what was measured)
 * and a small LRU. No DOM access, so it runs (and is tested) under plain Node.
 *
 * Heights are "slots": whatever the caller counts per item (its measured border-box height
 * plus the gap after it, say). Offsets are measured from the top of the first slot.
 */
import type { ChatItem } from '../../protocol/chatItems';

/**
 * Heights of a list of items with O(log n) prefix sums, single-height updates, appends and
 * offset → index search (a Fenwick tree over the heights).
 */
export class HeightIndex {
  private values: number[] = [];
  /** Fenwick tree, 1-based: tree[k] = sum of values (k - lowbit(k), k]. */
  private tree: number[] = [0];

  /** Starts with `heights` (each clamped to ≥ 0). */
  constructor(heights: readonly number[] = []) {
    this.reset(heights);
  }

  /** Number of items. */
  get length(): number {
    return this.values.length;
  }

  /** Replaces every height (O(n)). */
  reset(heights: readonly number[]): void {
    this.values = heights.map(clampHeight);
    const n = this.values.length;
    this.tree = new Array<number>(n + 1).fill(0);
    for (let k = 1; k <= n; k++) {
      this.tree[k] = (this.tree[k] ?? 0) + (this.values[k - 1] ?? 0);
      const parent = k + lowbit(k);
      if (parent <= n) this.tree[parent] = (this.tree[parent] ?? 0) + (this.tree[k] ?? 0);
    }
  }

  /** Height of item `i` (0 outside the list). */
  get(i: number): number {
    return this.values[i] ?? 0;
  }

  /** Sets the height of item `i` (O(log n)); ignored outside the list. Returns the change. */
  set(i: number, height: number): number {
    if (!Number.isInteger(i) || i < 0 || i >= this.values.length) return 0;
    const h = clampHeight(height);
    const delta = h - (this.values[i] ?? 0);
    if (delta === 0) return 0;
    this.values[i] = h;
    for (let k = i + 1; k < this.tree.length; k += lowbit(k)) this.tree[k] = (this.tree[k] ?? 0) + delta;
    return delta;
  }

  /** Appends an item of this height (O(log n)). */
  push(height: number): void {
    const h = clampHeight(height);
    this.values.push(h);
    const k = this.values.length;
    // tree[k] covers (k - lowbit(k), k]: the new value plus the sum of the ones before it in that range.
    this.tree.push(h + this.prefix(k - 1) - this.prefix(k - lowbit(k)));
  }

  /** Sum of the heights of items [0, i) (O(log n)); `i` is clamped to [0, length]. */
  prefix(i: number): number {
    let sum = 0;
    for (let k = Math.min(Math.max(Math.floor(i), 0), this.values.length); k > 0; k -= lowbit(k))
      sum += this.tree[k] ?? 0;
    return sum;
  }

  /** Sum of all heights. */
  total(): number {
    return this.prefix(this.values.length);
  }

  /**
   * The largest i in [0, length] with prefix(i) ≤ offset: the number of items that end at or
   * before `offset`, so (when < length) the index of the item that contains `offset`.
   */
  countAtOrBefore(offset: number): number {
    let pos = 0;
    let rest = offset;
    for (let step = highestPowerOfTwo(this.values.length); step > 0; step >>= 1) {
      const next = pos + step;
      const node = this.tree[next];
      if (next <= this.values.length && node !== undefined && node <= rest) {
        pos = next;
        rest -= node;
      }
    }
    return pos;
  }

  /** The smallest i in [0, length] with prefix(i) ≥ offset (length when the total is below it). */
  countToReach(offset: number): number {
    if (offset <= 0) return 0;
    let pos = 0;
    let rest = offset;
    // Largest pos with prefix(pos) < offset, then one more.
    for (let step = highestPowerOfTwo(this.values.length); step > 0; step >>= 1) {
      const next = pos + step;
      const node = this.tree[next];
      if (next <= this.values.length && node !== undefined && node < rest) {
        pos = next;
        rest -= node;
      }
    }
    return Math.min(pos + 1, this.values.length);
  }

  /** The index of the item containing `offset`, clamped to [0, length − 1] (−1 when empty). */
  indexAt(offset: number): number {
    if (this.values.length === 0) return -1;
    return Math.min(this.countAtOrBefore(offset), this.values.length - 1);
  }
}

/** Items [start, end) to render, and the heights of the spacers above and below them. */
export interface WindowRange {
  readonly start: number;
  readonly end: number;
  /** Sum of the heights of the items before `start`. */
  readonly topSpacer: number;
  /** Sum of the heights of the items from `end` on. */
  readonly bottomSpacer: number;
}

/** Where the user looks: offsets in the same unit as the heights, from the top of the first item. */
export interface Viewport {
  readonly scrollTop: number;
  readonly height: number;
  /** Extra distance rendered above and below the viewport, so a scroll shows ready content. */
  readonly overscan: number;
}

/**
 * The items to render so that [scrollTop − overscan, scrollTop + height + overscan] (clamped
 * to the list) is covered: every item that intersects it, and at least one item when the
 * list is not empty. topSpacer + rendered heights + bottomSpacer = total height.
 */
export function computeWindow(index: HeightIndex, viewport: Viewport): WindowRange {
  const n = index.length;
  if (n === 0) return { start: 0, end: 0, topSpacer: 0, bottomSpacer: 0 };
  const total = index.total();
  const overscan = Math.max(0, finiteOr(viewport.overscan, 0));
  const scrollTop = clamp(finiteOr(viewport.scrollTop, 0), 0, total);
  const height = Math.max(0, finiteOr(viewport.height, 0));
  const from = clamp(scrollTop - overscan, 0, total);
  const to = clamp(scrollTop + height + overscan, 0, total);
  const start = Math.min(index.countAtOrBefore(from), n - 1);
  const end = Math.min(n, Math.max(start + 1, index.countToReach(to)));
  const topSpacer = index.prefix(start);
  return { start, end, topSpacer, bottomSpacer: Math.max(0, total - index.prefix(end)) };
}

/**
 * Rows a text takes when wrapped at `charsPerLine` characters: each line of the text takes at
 * least one row. An estimate for items not measured yet (proportional fonts wrap differently).
 */
export function estimateTextRows(text: string, charsPerLine: number): number {
  const width = Math.max(1, Math.floor(charsPerLine));
  let rows = 0;
  let lineStart = 0;
  for (;;) {
    const nl = text.indexOf('\n', lineStart);
    const len = (nl < 0 ? text.length : nl) - lineStart;
    rows += Math.max(1, Math.ceil(len / width));
    if (nl < 0) return rows;
    lineStart = nl + 1;
  }
}

/** What an item estimate needs to know about the page. */
export interface TextMetrics {
  /** Characters of body text per row. */
  readonly charsPerLine: number;
  /** Height of a row of body text, px. */
  readonly lineHeight: number;
}

/**
 * Raw estimate of an item's border-box height before anything was measured: its text wrapped
 * at `charsPerLine`, plus its header line and padding; cards that start collapsed (tool calls,
 * summaries, and kinds this function does not know) take one line.
 */
export function estimateItemHeight(item: ChatItem, m: TextMetrics): number {
  const rows = (text: string) => estimateTextRows(text, m.charsPerLine) * m.lineHeight;
  const who = m.lineHeight + 2;
  switch (item.kind) {
    case 'user':
      return (
        who + rows(item.text) + 14 + (item.injected.length > 0 ? m.lineHeight + 4 : 0) + (item.images?.length ? 104 : 0)
      );
    case 'assistant':
      // Code fences add a block's padding and a toolbar line.
      return who + rows(item.text) + Math.floor((item.text.split('```').length - 1) / 2) * (m.lineHeight + 16);
    case 'notice':
      return rows(item.text);
    case 'error':
      return rows(item.text) + 14;
    case 'approval':
      // Header, the diff (or the command), the reason field and the buttons.
      return (
        who +
        ((item.diff?.length ?? 0) + (item.tool === 'run_command' ? 2 : 1)) * m.lineHeight +
        3 * (m.lineHeight + 10)
      );
    default:
      return m.lineHeight + 4;
  }
}

/**
 * Learns how raw estimates compare with measured heights, per kind of item, and scales raw
 * estimates by that factor: sum of measured / sum of raw over the items measured, once
 * `minSamples` of a kind were seen (1 before), clamped to [0.25, 4].
 */
export class EstimateCalibration {
  private readonly stats = new Map<string, { raw: number; measured: number; n: number }>();

  /** Factors are used once `minSamples` items of a kind were measured. */
  constructor(private readonly minSamples = 3) {}

  /** Records one item of `kind` whose raw estimate was `raw` and that measured `measured`. */
  learn(kind: string, raw: number, measured: number): void {
    if (!(raw > 0) || !Number.isFinite(measured) || measured < 0) return;
    const s = this.stats.get(kind) ?? { raw: 0, measured: 0, n: 0 };
    this.stats.set(kind, { raw: s.raw + raw, measured: s.measured + measured, n: s.n + 1 });
  }

  /** The factor raw estimates of `kind` are multiplied by. */
  factor(kind: string): number {
    const s = this.stats.get(kind);
    if (!s || s.n < this.minSamples || !(s.raw > 0)) return 1;
    return clamp(s.measured / s.raw, 0.25, 4);
  }

  /** Kinds seen so far. */
  kinds(): string[] {
    return [...this.stats.keys()];
  }
}

/**
 * A small least-recently-used map: `get` refreshes an entry, `set` beyond `capacity` evicts
 * the oldest. Iteration order of the underlying Map is the recency order.
 */
export class LruCache<K, V> {
  private readonly map = new Map<K, V>();

  /** `capacity` entries at most (at least 0). */
  constructor(readonly capacity: number) {}

  /** Entries held. */
  get size(): number {
    return this.map.size;
  }

  /** The value for `key` (now the most recent), or undefined. */
  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }

  /** Whether `key` is held (does not refresh it). */
  has(key: K): boolean {
    return this.map.has(key);
  }

  /** Stores `value` as the most recent entry; returns the evicted entries. */
  set(key: K, value: V): Array<[K, V]> {
    this.map.delete(key);
    this.map.set(key, value);
    const evicted: Array<[K, V]> = [];
    for (const [k, v] of this.map) {
      if (this.map.size <= Math.max(0, this.capacity)) break;
      this.map.delete(k);
      evicted.push([k, v]);
    }
    return evicted;
  }

  /** Removes `key`; returns whether it was held. */
  delete(key: K): boolean {
    return this.map.delete(key);
  }

  /** Removes everything. */
  clear(): void {
    this.map.clear();
  }
}

function lowbit(k: number): number {
  return k & -k;
}

function highestPowerOfTwo(n: number): number {
  let p = 1;
  while (p * 2 <= n) p *= 2;
  return n > 0 ? p : 0;
}

function clampHeight(h: number): number {
  return Number.isFinite(h) && h > 0 ? h : 0;
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(Math.max(x, lo), hi);
}

function finiteOr(x: number, fallback: number): number {
  return Number.isFinite(x) ? x : fallback;
}
