import { strict as assert } from 'node:assert';
import type { ChatItem } from '../../src/protocol/chatItems';
import type { Slot } from '../../src/webview/chat/renderedNodes';
import { SlotEstimates } from '../../src/webview/chat/slotEstimates';
import { layoutTurns, moreLabel, RUN_SHOWN, SlotLayouts, type ItemLayout } from '../../src/webview/chat/turnLayout';

const user = (id: string): ChatItem => ({ kind: 'user', id, text: 'hi', injected: [], turn: 1 });
const answer = (id: string, text = '', extra: Partial<Extract<ChatItem, { kind: 'assistant' }>> = {}): ChatItem => ({
  kind: 'assistant',
  id,
  text,
  streaming: false,
  messageId: `m-${id}`,
  tokens: 38,
  ...extra,
});
const call = (id: string, summary = `Read src/${id}.ts`, status: 'done' | 'running' = 'done'): ChatItem => ({
  kind: 'tool',
  id,
  name: 'read_file',
  summary,
  input: '{}',
  status,
});

/** Tool-only rounds: an answer with no words, then its calls. */
function rounds(prefix: string, n: number, callsEach = 1): ChatItem[] {
  const out: ChatItem[] = [];
  for (let r = 0; r < n; r++) {
    out.push(answer(`${prefix}a${r}`));
    for (let c = 0; c < callsEach; c++) out.push(call(`${prefix}t${r}-${c}`));
  }
  return out;
}

const shown = (items: readonly ChatItem[], layout: readonly ItemLayout[]): string[] =>
  items.flatMap((item, i) => (layout[i]?.hidden ? [] : [item.id]));

describe('turnLayout', () => {
  it('shows one Claude header per turn: later answers of the turn show none, tool-only ones nothing', () => {
    const items = [user('u1'), ...rounds('', 3), answer('final', 'Done.'), user('u2'), answer('next', 'Hi.')];
    const layout = layoutTurns(items, new Set());
    const headers = items.filter((item, i) => item.kind === 'assistant' && layout[i]?.header === true).map((x) => x.id);
    assert.deepEqual(headers, ['a0', 'next']);
    assert.deepEqual(shown(items, layout), ['u1', 'a0', 't0-0', 't1-0', 't2-0', 'final', 'u2', 'next']);
    assert.equal(layout[items.findIndex((x) => x.id === 'final')]?.header, false);
  });

  it("carries a hidden tool-only answer's Pin and tokens to the first call of its round", () => {
    const items = [user('u1'), ...rounds('', 2, 2)];
    const layout = layoutTurns(items, new Set());
    const at = (id: string) => layout[items.findIndex((x) => x.id === id)];
    assert.equal(at('t0-0')?.round, undefined, 'the first round shows its own header');
    assert.deepEqual(at('t1-0')?.round, { messageId: 'm-a1', pinned: false, tokens: 38 });
    assert.equal(at('t1-1')?.round, undefined);
  });

  it('hides an abandoned empty answer (a failed request) instead of an empty Claude header above the error', () => {
    const items: ChatItem[] = [
      user('u1'),
      { kind: 'assistant', id: 'stream', text: '', streaming: false },
      { kind: 'error', id: 'e', text: 'Overloaded', retryable: true },
    ];
    assert.equal(layoutTurns(items, new Set())[1]?.hidden, true);
  });

  it('a stand-in answer neither takes nor needs the header', () => {
    const items = [user('u1'), answer('s', '[No answer…]', { standIn: true }), answer('real', 'Hello')];
    const layout = layoutTurns(items, new Set());
    assert.deepEqual(layout[1], {});
    assert.equal(layout[2]?.header, true);
  });

  it('collapses a long run of calls after the first few into one "more" control, and expands it', () => {
    const items = [user('u1'), ...rounds('', 15)];
    const layout = layoutTurns(items, new Set());
    const calls = items.filter((x) => x.kind === 'tool');
    const visibleCalls = calls.filter((c) => !layout[items.indexOf(c)]?.hidden);
    assert.equal(visibleCalls.length, RUN_SHOWN + 1, 'the first few, and the control');
    const control = layout[items.indexOf(visibleCalls[RUN_SHOWN]!)]?.more;
    assert.deepEqual(control, { run: 't0-0', count: 15 - RUN_SHOWN, noun: 'reads' });
    assert.equal(moreLabel(control!), '12 more reads…');

    const open = layoutTurns(items, new Set(['t0-0']));
    assert.ok(calls.every((c) => !open[items.indexOf(c)]?.hidden));
    assert.deepEqual(open[items.length - 1]?.fewer, { run: 't0-0' });
  });

  it('says "calls" for a mixed run, and never folds a call still running', () => {
    const items = [
      user('u1'),
      answer('a'),
      ...Array.from({ length: 7 }, (_, i) => call(`t${i}`, i === 4 ? 'Search "x"' : `Read ${i}`)),
      call('live', 'Read live', 'running'),
    ];
    const layout = layoutTurns(items, new Set());
    const more = layout.find((l) => l.more)?.more;
    assert.equal(more?.noun, 'calls');
    assert.equal(more?.count, 7 - RUN_SHOWN);
    assert.ok(!layout[items.length - 1]?.hidden);
  });

  it('leaves a run of five calls, and calls split by words, as they are', () => {
    const items = [user('u1'), ...rounds('x', 5), answer('mid', 'Looking further.'), ...rounds('y', 5)];
    assert.ok(layoutTurns(items, new Set()).every((l) => !l.more));
  });

  it('gives a hidden item no height (not even the gap) and the "more" control one line', () => {
    const items = [user('u1'), ...rounds('', 8)];
    const slots: Slot[] = items.map((item, index) => ({ item, index, raw: 0, measured: false }));
    const layouts = new SlotLayouts();
    assert.equal(layouts.apply(slots).length, slots.filter((s) => s.layout && Object.keys(s.layout).length).length);
    const estimates = new SlotEstimates();
    const heights = slots.map((slot) => estimates.estimate(slot));
    slots.forEach((slot, i) => assert.equal(heights[i] === 0, slot.layout?.hidden === true, slot.item.id));
    const control = layouts.control(slots, 't0-0');
    assert.ok(control && estimates.estimate(control) > 0 && estimates.estimate(control) < estimates.raw(control.item));
    assert.equal(estimates.slot(0), 0);

    layouts.expand('t0-0', true);
    const changed = layouts.apply(slots);
    assert.ok(changed.length > 0 && slots.every((s) => !s.layout?.hidden || s.item.kind === 'assistant'));
    assert.deepEqual(layouts.apply(slots), [], 'nothing changes twice');
  });
});
