import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { ChatItem } from '../../src/protocol/chatItems';
import {
  computeWindow,
  EstimateCalibration,
  estimateItemHeight,
  estimateTextRows,
  HeightIndex,
  LruCache,
} from '../../src/webview/chat/virtualWindow';

/** Reference prefix sum, the slow way. */
function naivePrefix(heights: readonly number[], i: number): number {
  return heights.slice(0, Math.max(0, i)).reduce((a, b) => a + b, 0);
}

const heightsArb = fc.array(fc.integer({ min: 0, max: 600 }), { maxLength: 300 });
const positiveHeightsArb = fc.array(fc.integer({ min: 1, max: 600 }), { minLength: 1, maxLength: 300 });

describe('virtual transcript window: height index', () => {
  it('prefix sums, totals and lookups match a plain array', () => {
    const index = new HeightIndex([10, 20, 0, 5]);
    assert.equal(index.length, 4);
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => index.prefix(i)),
      [0, 10, 30, 30, 35],
    );
    assert.equal(index.total(), 35);
    assert.equal(index.indexAt(0), 0);
    assert.equal(index.indexAt(9.9), 0);
    assert.equal(index.indexAt(10), 1);
    assert.equal(index.indexAt(30), 3, 'the zero-height item is skipped: offset 30 lies in item 3');
    assert.equal(index.indexAt(1000), 3, 'clamped to the last item');
    assert.equal(new HeightIndex().indexAt(0), -1);
    assert.equal(index.countToReach(30), 2);
    assert.equal(index.countToReach(31), 4);
    assert.equal(index.countToReach(36), 4);
  });

  it('set returns the change, ignores bad indices and clamps bad heights to 0', () => {
    const index = new HeightIndex([10, 20]);
    assert.equal(index.set(1, 25), 5);
    assert.equal(index.set(5, 1), 0);
    assert.equal(index.set(-1, 1), 0);
    assert.equal(index.set(0, Number.NaN), -10);
    assert.equal(index.set(0, -3), 0);
    assert.equal(index.total(), 25);
  });

  it('after any sequence of pushes and sets, every prefix sum equals the naive one (property)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('push' as const), h: fc.integer({ min: 0, max: 1000 }) }),
      fc.record({ kind: fc.constant('set' as const), at: fc.nat(), h: fc.integer({ min: 0, max: 1000 }) }),
    );
    fc.assert(
      fc.property(heightsArb, fc.array(op, { maxLength: 200 }), (initial, ops) => {
        const index = new HeightIndex(initial);
        const model = [...initial];
        for (const o of ops) {
          if (o.kind === 'push') {
            index.push(o.h);
            model.push(o.h);
          } else if (model.length > 0) {
            const i = o.at % model.length;
            assert.equal(index.set(i, o.h), o.h - (model[i] ?? 0));
            model[i] = o.h;
          }
        }
        assert.equal(index.length, model.length);
        for (let i = 0; i <= model.length; i++) assert.equal(index.prefix(i), naivePrefix(model, i));
        model.forEach((h, i) => assert.equal(index.get(i), h));
      }),
    );
  });

  it('indexAt finds the item containing an offset (property)', () => {
    fc.assert(
      fc.property(positiveHeightsArb, fc.double({ min: 0, max: 1, noNaN: true }), (heights, f) => {
        const index = new HeightIndex(heights);
        const offset = f * index.total();
        const i = index.indexAt(offset);
        assert.ok(index.prefix(i) <= offset);
        assert.ok(offset < index.prefix(i + 1) || i === heights.length - 1);
      }),
    );
  });
});

describe('virtual transcript window: computeWindow', () => {
  it('renders nothing for an empty list and something for a non-empty one', () => {
    assert.deepEqual(computeWindow(new HeightIndex(), { scrollTop: 0, height: 500, overscan: 100 }), {
      start: 0,
      end: 0,
      topSpacer: 0,
      bottomSpacer: 0,
    });
    const w = computeWindow(new HeightIndex([0, 0, 0]), { scrollTop: 0, height: 0, overscan: 0 });
    assert.ok(w.end > w.start);
  });

  it('at the top, in the middle and at the end of 2 000 items of 50 px', () => {
    const index = new HeightIndex(Array.from({ length: 2000 }, () => 50));
    assert.deepEqual(computeWindow(index, { scrollTop: 0, height: 500, overscan: 250 }), {
      start: 0,
      end: 15,
      topSpacer: 0,
      bottomSpacer: 1985 * 50,
    });
    assert.deepEqual(computeWindow(index, { scrollTop: 50_000, height: 500, overscan: 250 }), {
      start: 995,
      end: 1015,
      topSpacer: 995 * 50,
      bottomSpacer: 985 * 50,
    });
    const end = computeWindow(index, { scrollTop: 100_000 - 500, height: 500, overscan: 250 });
    assert.deepEqual(end, { start: 1985, end: 2000, topSpacer: 1985 * 50, bottomSpacer: 0 });
    // Scrolled past the end (a stale scrollTop): still the last items, never an empty window.
    assert.equal(computeWindow(index, { scrollTop: 1e9, height: 500, overscan: 0 }).end, 2000);
    assert.equal(computeWindow(index, { scrollTop: -50, height: 500, overscan: 0 }).start, 0);
  });

  it('the rendered range covers the viewport plus overscan, and spacers + rendered = total (property)', () => {
    fc.assert(
      fc.property(
        heightsArb.filter((h) => h.length > 0),
        fc.double({ min: -0.2, max: 1.2, noNaN: true }),
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 0, max: 1000 }),
        (heights, f, height, overscan) => {
          const index = new HeightIndex(heights);
          const total = index.total();
          const scrollTop = f * total;
          const w = computeWindow(index, { scrollTop, height, overscan });
          assert.ok(
            w.start >= 0 && w.start < w.end && w.end <= heights.length,
            `range ${w.start}..${w.end} of ${heights.length}`,
          );
          const rendered = naivePrefix(heights, w.end) - naivePrefix(heights, w.start);
          assert.equal(w.topSpacer + rendered + w.bottomSpacer, total);
          assert.equal(w.topSpacer, naivePrefix(heights, w.start));
          // Coverage: the rendered items span [top, bottom] of the (clamped) viewport and overscan.
          const clamped = Math.min(Math.max(scrollTop, 0), total);
          const top = Math.max(0, clamped - overscan);
          const bottom = Math.min(total, clamped + height + overscan);
          assert.ok(w.topSpacer <= top, `top spacer ${w.topSpacer} > ${top}`);
          assert.ok(w.topSpacer + rendered >= bottom, `rendered end ${w.topSpacer + rendered} < ${bottom}`);
          // Minimality: the first and last rendered items intersect the covered span (zero heights aside).
          if (heights[w.start]! > 0)
            assert.ok(naivePrefix(heights, w.start + 1) > top || w.start === heights.length - 1);
          if (w.end - 1 > w.start) assert.ok(naivePrefix(heights, w.end - 1) < bottom);
        },
      ),
    );
  });

  it('after updating heights, the window still covers the viewport and sums stay consistent (property)', () => {
    fc.assert(
      fc.property(
        positiveHeightsArb,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 2000 })), { maxLength: 50 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (heights, updates, f) => {
          const index = new HeightIndex(heights);
          const model = [...heights];
          for (const [at, h] of updates) {
            const i = at % model.length;
            index.set(i, h);
            model[i] = h;
          }
          const total = naivePrefix(model, model.length);
          assert.equal(index.total(), total);
          const w = computeWindow(index, { scrollTop: f * total, height: 400, overscan: 200 });
          assert.equal(w.topSpacer + (index.prefix(w.end) - index.prefix(w.start)) + w.bottomSpacer, total);
          assert.ok(index.prefix(w.end) >= Math.min(total, f * total + 600));
        },
      ),
    );
  });
});

describe('virtual transcript window: estimates and the node cache', () => {
  it('estimateTextRows counts wrapped rows, at least one per line', () => {
    assert.equal(estimateTextRows('', 80), 1);
    assert.equal(estimateTextRows('hello', 80), 1);
    assert.equal(estimateTextRows('x'.repeat(81), 80), 2);
    assert.equal(estimateTextRows('a\n\nb', 80), 3);
    assert.equal(estimateTextRows(`${'y'.repeat(160)}\nz`, 80), 3);
    assert.equal(estimateTextRows('abc', 0), 3, 'a width below 1 counts one character per row');
  });

  it('estimateItemHeight grows with the text, counts chips and code blocks, and keeps cards collapsed', () => {
    const m = { charsPerLine: 40, lineHeight: 20 };
    const user = (text: string, chips = 0): ChatItem => ({
      kind: 'user',
      id: 'u',
      text,
      turn: 1,
      injected: Array.from({ length: chips }, () => ({ tag: 'ide_selection', label: 'a.ts:1-2', text: 'x' })),
    });
    const answer = (text: string): ChatItem => ({ kind: 'assistant', id: 'a', text, streaming: false });
    assert.ok(estimateItemHeight(user('x'.repeat(400)), m) > estimateItemHeight(user('x'), m));
    assert.ok(estimateItemHeight(user('hi', 1), m) > estimateItemHeight(user('hi'), m), 'a chip row');
    assert.equal(estimateItemHeight(answer('a\nb'), m) - estimateItemHeight(answer('a'), m), 20, 'one more row');
    assert.ok(
      estimateItemHeight(answer('```\ncode\n```'), m) > estimateItemHeight(answer('\ncode\n'), m),
      'a code block adds its padding',
    );
    const tool: ChatItem = {
      kind: 'tool',
      id: 't',
      name: 'read_file',
      summary: 'Read a.ts',
      input: '{}'.repeat(500),
      status: 'done',
      result: 'r'.repeat(5000),
    };
    assert.equal(estimateItemHeight(tool, m), 24, 'a tool card starts collapsed: one line');
    for (const item of [user(''), answer(''), tool]) assert.ok(estimateItemHeight(item, m) > 0);
    // An approval card is shown open: its diff lines count.
    const approval = (lines: number): ChatItem => ({
      kind: 'approval',
      id: 'p',
      tool: 'edit_file',
      subject: 'a.ts',
      detail: 'edit',
      state: 'pending',
      diff: Array.from({ length: lines }, () => ({ op: '+' as const, text: 'x' })),
    });
    assert.equal(
      estimateItemHeight(approval(30), m) - estimateItemHeight(approval(10), m),
      20 * 20,
      'twenty more diff rows',
    );
    assert.ok(estimateItemHeight(approval(0), m) > 3 * 20, 'header, reason field and buttons');
  });

  it('EstimateCalibration scales by measured / raw per kind, after enough samples, clamped', () => {
    const c = new EstimateCalibration(2);
    assert.equal(c.factor('user'), 1);
    c.learn('user', 100, 80);
    assert.equal(c.factor('user'), 1, 'one sample is not enough');
    c.learn('user', 100, 60);
    assert.equal(c.factor('user'), 0.7);
    assert.equal(c.factor('assistant'), 1, 'kinds are separate');
    c.learn('assistant', 10, 1000);
    c.learn('assistant', 10, 1000);
    assert.equal(c.factor('assistant'), 4, 'clamped');
    c.learn('tool', 0, 50);
    c.learn('tool', Number.NaN, 50);
    c.learn('tool', 10, -1);
    assert.equal(c.factor('tool'), 1, 'unusable samples are ignored');
    assert.deepEqual(c.kinds().sort(), ['assistant', 'user']);
  });

  it('the LRU keeps at most its capacity, evicting the least recently used', () => {
    const lru = new LruCache<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    assert.equal(lru.get('a'), 1, 'a is now the most recent');
    assert.deepEqual(lru.set('c', 3), [['b', 2]]);
    assert.equal(lru.size, 2);
    assert.ok(lru.has('a') && lru.has('c') && !lru.has('b'));
    assert.equal(lru.delete('a'), true);
    assert.equal(lru.get('a'), undefined);
    lru.clear();
    assert.equal(lru.size, 0);
    assert.deepEqual(new LruCache<string, number>(0).set('x', 1), [['x', 1]]);
  });

  it('the LRU never holds more than its capacity and keeps the most recent keys (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 }),
        fc.array(fc.tuple(fc.constantFrom('get', 'set', 'delete'), fc.integer({ min: 0, max: 15 })), {
          maxLength: 100,
        }),
        (capacity, ops) => {
          const lru = new LruCache<number, number>(capacity);
          let recent: number[] = [];
          for (const [op, k] of ops) {
            if (op === 'set') {
              lru.set(k, k * 10);
              recent = [...recent.filter((x) => x !== k), k];
              if (recent.length > capacity) recent = recent.slice(recent.length - capacity);
            } else if (op === 'get') {
              const v = lru.get(k);
              assert.equal(v, recent.includes(k) ? k * 10 : undefined);
              if (v !== undefined) recent = [...recent.filter((x) => x !== k), k];
            } else {
              assert.equal(lru.delete(k), recent.includes(k));
              recent = recent.filter((x) => x !== k);
            }
            assert.ok(lru.size <= capacity);
            assert.equal(lru.size, recent.length);
          }
        },
      ),
    );
  });
});
