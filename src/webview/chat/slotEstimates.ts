import type { ChatItem } from '../../protocol/chatItems';
import type { Slot } from './renderedNodes';
import type { ItemLayout } from './turnLayout';
import { EstimateCalibration, estimateItemHeight, type HeightIndex, type TextMetrics } from './virtualWindow';

/** Re-estimate unmeasured items when a kind's learned factor moved by more than this. */
const RECALIBRATE_DRIFT = 0.05;
const DEFAULT_METRICS: Metrics = { charsPerLine: 60, lineHeight: 19, gap: 0 };

/** Text metrics and the gap between items, from the page's styles. */
interface Metrics extends TextMetrics {
  readonly gap: number;
}

/**
 * The transcript's height estimates: the page's text metrics, raw estimates per item, the
 * per-kind calibration learned from measured heights, and whether the estimates already made
 * are stale (the factors drifted, or the metrics changed). Slot heights include the gap.
 */
export class SlotEstimates {
  private metrics: Metrics | undefined;
  private readonly calibration = new EstimateCalibration();
  /** The calibration factors the current estimates were made with. */
  private readonly applied = new Map<string, number>();
  /** A kind's factor drifted since the estimates were made: redo the unmeasured ones. */
  stale = false;

  /** Whether the page's metrics were read yet. */
  get hasMetrics(): boolean {
    return this.metrics !== undefined;
  }

  /** The gap between items, px. */
  get gap(): number {
    return this.metrics?.gap ?? 0;
  }

  /**
   * An item's raw (uncalibrated) height estimate with the current metrics: 0 for an item its
   * turn layout hides (turnLayout.ts), one line for the "N more calls…" control standing in
   * for a folded run.
   */
  raw(item: ChatItem, layout?: ItemLayout): number {
    if (layout?.hidden) return 0;
    const metrics = this.metrics ?? DEFAULT_METRICS;
    return layout?.more ? metrics.lineHeight : estimateItemHeight(item, metrics);
  }

  /** A slot's new raw estimate (its height unmeasured again), and its slot height. */
  estimate(slot: Slot): number {
    slot.raw = this.raw(slot.item, slot.layout);
    slot.measured = false;
    return this.estimated(slot.item.kind, slot.raw);
  }

  /**
   * Redoes the heights of the slots never measured with the current factors; `rescan`: their
   * raw estimates too (new metrics), and of those measured but not `onScreen`, since a height
   * measured at the old width is stale (the ResizeObserver measures those on screen again).
   */
  redo(slots: readonly Slot[], heights: HeightIndex, onScreen: (id: string) => boolean, rescan: boolean): void {
    for (const slot of slots) {
      if (slot.measured) {
        if (!rescan || onScreen(slot.item.id)) continue;
        slot.measured = false;
      }
      if (rescan) slot.raw = this.raw(slot.item, slot.layout);
      heights.set(slot.index, this.estimated(slot.item.kind, slot.raw));
    }
  }

  /** The slot height of an unmeasured item: its raw estimate, calibrated by what its kind measured (0 stays 0). */
  estimated(kind: ChatItem['kind'], raw: number): number {
    return this.slot(raw * this.calibration.factor(kind));
  }

  /** The slot height of a measured border box; a box of no height (a hidden item, display: none) has no gap either. */
  slot(box: number): number {
    return box > 0 ? box + this.gap : 0;
  }

  /** First measurement of an item of `kind`: teaches the calibration; may mark the estimates stale. */
  learn(kind: ChatItem['kind'], raw: number, box: number): void {
    if (raw <= 0 || box <= 0) return;
    this.calibration.learn(kind, raw, box);
    const was = this.applied.get(kind) ?? 1;
    if (Math.abs(this.calibration.factor(kind) - was) > RECALIBRATE_DRIFT * was) this.stale = true;
  }

  /** The estimates are being redone with the current factors. */
  markApplied(): void {
    this.stale = false;
    for (const kind of this.calibration.kinds()) this.applied.set(kind, this.calibration.factor(kind));
  }

  /** Reads the metrics from the list's styles and width; true when they changed (every estimate is then stale). */
  readMetrics(list: HTMLElement, fallbackWidth: number | undefined): boolean {
    const style = getComputedStyle(list);
    const fontSize = Number.parseFloat(style.fontSize) || 13;
    const width = list.clientWidth || fallbackWidth || 300;
    const next: Metrics = {
      charsPerLine: Math.max(10, Math.floor((width - 20) / (fontSize * 0.55))),
      lineHeight: fontSize * 1.45,
      gap: Number.parseFloat(style.rowGap) || 0,
    };
    const prev = this.metrics;
    this.metrics = next;
    return (
      !prev || prev.charsPerLine !== next.charsPerLine || prev.gap !== next.gap || prev.lineHeight !== next.lineHeight
    );
  }
}
