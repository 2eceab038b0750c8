import { strict as assert } from 'node:assert';
import { FollowEnd } from '../../src/webview/chat/followEnd';

/** A scroller's numbers, with scrollTop clamped as the browser clamps it. */
function fakeScroller(scrollHeight: number, clientHeight: number) {
  let top = 0;
  const s = {
    scrollHeight,
    clientHeight,
    get scrollTop() {
      return top;
    },
    set scrollTop(v: number) {
      top = Math.max(0, Math.min(v, s.scrollHeight - s.clientHeight));
    },
  };
  return s;
}

describe('the transcript follows its end', () => {
  it('stays at the end when the viewport shrinks under it and a stray scroll event comes', () => {
    const f = new FollowEnd();
    const s = fakeScroller(194_191, 625);
    f.scrollToEnd(s as unknown as HTMLElement);
    f.scrolled(s as unknown as HTMLElement); // the view's own scroll
    assert.equal(f.stuck, true);
    // The header and composer settle: the viewport loses 57 px, scrollTop stays.
    s.clientHeight = 568;
    f.scrolled(s as unknown as HTMLElement); // an event the view did not expect, at the same position
    assert.equal(f.stuck, true, 'not the user: the view goes back to the end on its next frame');
  });

  it('leaves the end when the user scrolls up, and follows again once they reach it', () => {
    const f = new FollowEnd();
    const s = fakeScroller(10_000, 600);
    f.scrollToEnd(s as unknown as HTMLElement);
    f.scrolled(s as unknown as HTMLElement);
    s.scrollTop = 9_000;
    f.scrolled(s as unknown as HTMLElement);
    assert.equal(f.stuck, false, 'a move up');
    s.scrollTop = 9_200;
    f.scrolled(s as unknown as HTMLElement);
    assert.equal(f.stuck, false, 'down, but not to the end');
    s.scrollTop = 9_400;
    f.scrolled(s as unknown as HTMLElement);
    assert.equal(f.stuck, true, 'at the end');
  });

  it("the view's own scroll never changes whether it follows", () => {
    const f = new FollowEnd();
    const s = fakeScroller(10_000, 600);
    f.stuck = false;
    f.scrollTo(s as unknown as HTMLElement, 2_000);
    f.scrolled(s as unknown as HTMLElement);
    assert.equal(f.stuck, false);
  });
});
