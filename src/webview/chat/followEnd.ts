/** Within this many pixels of the end the view counts as "at the bottom" and follows new content. */
export const STICK_PX = 8;

/**
 * Whether a scroller follows its end (new content and a shrinking viewport keep it there),
 * telling the scrolls the view makes itself from the user's: a scroll event at the position
 * the view last set is its own; any other leaves the end only when it moved up (a viewport
 * that shrank, or content that grew under a view at the end, is not the user's doing) and
 * comes back to it when it reaches the end.
 */
export class FollowEnd {
  /** Whether the view follows the end. */
  stuck = true;
  /** The scrollTop the view last set (its scroll event is not the user's), and the last one seen. */
  private expectedTop = Number.NaN;
  private lastTop = 0;

  /** Scrolls to `top` as the view's own scroll. */
  scrollTo(scroller: HTMLElement, top: number): void {
    scroller.scrollTop = top;
    this.lastTop = this.expectedTop = scroller.scrollTop;
  }

  /** Scrolls to the end as the view's own scroll. */
  scrollToEnd(scroller: HTMLElement): void {
    this.scrollTo(scroller, scroller.scrollHeight);
  }

  /** A scroll event of `scroller`: updates whether the view follows the end. */
  scrolled(scroller: HTMLElement): void {
    const top = scroller.scrollTop;
    // NaN (no scroll of the view's own pending) never compares: every such event is weighed.
    if (!(Math.abs(top - this.expectedTop) < 1))
      this.stuck =
        scroller.scrollHeight - top - scroller.clientHeight <= STICK_PX || (this.stuck && top >= this.lastTop - 1);
    this.lastTop = top;
    this.expectedTop = Number.NaN;
  }
}
