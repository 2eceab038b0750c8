import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { restoreRecord } from '../../src/core/compaction/apply';
import { budgetTarget, budgetTrim, trimText } from '../../src/core/compaction/budgetTrim';
import type { Message, SummaryBlock } from '../../src/core/conversation/conversationModel';
import { assertReversible, Convo, layerCtx, lines, results, text } from './support/compactionBuilders';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const NOTICE = /\n?\[… ([\d,]+) characters trimmed to save context; run the tool again for the full output …\]\n/;

/** A user turn with `n` tool rounds of `size`-character outputs (100-character lines), then an answer. */
function convo(n: number, size = 40_000): Convo {
  const c = new Convo().user();
  for (let i = 0; i < n; i++)
    c.call('run_command', { command: `cmd ${i}` }, lines(Math.ceil(size / 100), 99, `out${i}`).slice(0, size));
  return c.say();
}

/** Head, tail and trimmed count of a trimmed text. */
function parts(out: string): { head: string; tail: string; trimmed: number } {
  const m = NOTICE.exec(out);
  assert.ok(m, 'a trim notice');
  return {
    head: out.slice(0, m.index),
    tail: out.slice(m.index + m[0].length),
    trimmed: Number(m[1]?.replace(/,/g, '')),
  };
}

describe('compaction guards: budget trim', () => {
  it('does nothing below 50 %; trims to 30 000 from 50 % and to 15 000 from 70 % (inclusive)', () => {
    assert.equal(budgetTarget(0.49), undefined);
    assert.equal(budgetTarget(0.5), 30_000);
    assert.equal(budgetTarget(0.69), 30_000);
    assert.equal(budgetTarget(0.7), 15_000);
    assert.equal(budgetTarget(0.99), 15_000);
    const state = convo(6).state();
    const low = budgetTrim(state, layerCtx(0.45));
    assert.equal(low.state, state);
    assert.equal(low.record, undefined);
    for (const [u, max] of [
      [0.55, 30_000],
      [0.75, 15_000],
    ] as const) {
      const r = budgetTrim(state, layerCtx(u));
      assertReversible(state, r, 'budget-trim', 'budget');
      const after = results(r.state);
      after
        .slice(0, 3)
        .forEach((b) => assert.ok(text(b).length <= max && text(b).length > max - 500, `${text(b).length} for ${max}`));
      after.slice(3).forEach((b, i) => assert.equal(b, results(state)[3 + i], 'the 3 most recent results are kept'));
    }
  });

  it('cuts head + tail at line breaks, with a notice counting what was trimmed', () => {
    const state = convo(4).state();
    const r = budgetTrim(state, layerCtx(0.8));
    const original = text(results(state)[0]);
    const out = text(results(r.state)[0]);
    const { head, tail, trimmed } = parts(out);
    assert.ok(original.startsWith(head) && original.endsWith(tail));
    assert.ok(
      original[head.length] === 'o' &&
        original[head.length - 1] === '\n' &&
        original[original.length - tail.length - 1] === '\n',
      'cut at line breaks',
    );
    assert.equal(trimmed, original.length - head.length - tail.length);
    assert.match(
      out,
      /\n\[… [\d,]+ characters trimmed to save context; run the tool again for the full output …\]\nout0 /,
    );
  });

  it('is idempotent: a second run at the same utilisation changes nothing and makes no record', () => {
    for (const u of [0.55, 0.75]) {
      const once = budgetTrim(convo(6).state(), layerCtx(u));
      const twice = budgetTrim(once.state, layerCtx(u));
      assert.equal(twice.state, once.state);
      assert.equal(twice.record, undefined);
    }
  });

  it('tightens a trimmed result from 30 000 to 15 000, counting everything trimmed since the original', () => {
    const state = convo(4, 80_000).state();
    const first = budgetTrim(state, layerCtx(0.55));
    const second = budgetTrim(first.state, layerCtx(0.75));
    assertReversible(first.state, second, 'budget-trim', 'budget');
    const original = text(results(state)[0]);
    const out = text(results(second.state)[0]);
    assert.ok(out.length <= 15_000);
    const { head, tail, trimmed } = parts(out);
    assert.equal(out.match(/characters trimmed/g)?.length, 1, 'one notice');
    assert.ok(original.startsWith(head) && original.endsWith(tail));
    assert.equal(trimmed, original.length - head.length - tail.length);
    // Restoring both records, newest first, gives the original conversation back.
    assert.ok(second.record && first.record);
    const back1 = restoreRecord(second.state, second.record);
    assert.ok(back1.ok);
    const back2 = restoreRecord(back1.state, first.record);
    assert.ok(back2.ok);
    assert.deepEqual(back2.state.messages, state.messages);
    back2.state.messages.forEach((m, i) => assert.equal(m, state.messages[i]));
  });

  it('never touches pinned results, results of pinned calls, user words or summaries; keeps isError', () => {
    const big = lines(500, 99);
    const c = new Convo().user('x'.repeat(50_000));
    c.call('run_command', {}, big, { pinned: true })
      .call('run_command', {}, big, { pinUse: true })
      .call('run_command', {}, big, { isError: true });
    c.call('run_command', {}, 'a').call('run_command', {}, 'b').call('run_command', {}, 'c').say();
    const summary: SummaryBlock = {
      type: 'summary',
      text: 's'.repeat(40_000),
      compactionId: 'cmp_0',
      turnRange: [0, 0],
      meta: { id: 'sum', tier: 0, source: 'compactor', createdAt: 0, pinned: false, compactable: false },
    };
    const first = c.messages[0] as Message;
    c.messages[0] = { ...first, blocks: [summary, ...first.blocks] };
    const state = c.state();
    const r = budgetTrim(state, layerCtx(0.9));
    assertReversible(state, r, 'budget-trim', 'budget');
    const [pinned, pinnedUse, error] = results(r.state);
    assert.equal(pinned, results(state)[0]);
    assert.equal(pinnedUse, results(state)[1]);
    assert.equal(error?.isError, true);
    assert.ok(text(error).length <= 15_000);
    assert.equal(r.state.messages[0], state.messages[0], 'user words and summary untouched');
    assert.equal(r.record?.regions.length, 1);
  });

  it('trims only the text parts of array results', () => {
    const image = { type: 'image' as const, mediaType: 'image/png' as const, data: 'iVBORw0KGgo=' };
    const state = new Convo()
      .user()
      .call('screenshot', {}, [{ type: 'text', text: lines(500, 99) }, image])
      .call('a', {}, 'a')
      .call('b', {}, 'b')
      .call('c', {}, 'c')
      .say()
      .state();
    const r = budgetTrim(state, layerCtx(0.9));
    assertReversible(state, r, 'budget-trim', 'budget');
    const content = results(r.state)[0]?.content;
    assert.ok(Array.isArray(content));
    assert.equal(content[1], image);
    assert.ok(content[0]?.type === 'text' && content[0].text.length <= 15_000);
  });

  it('never splits a surrogate pair, stays within the size, and re-trims consistently (property)', () => {
    const text = fc
      .array(
        fc.oneof(
          fc.constantFrom('😀', '👩‍💻', '𝒳', '\n', 'a', '\r\n', '😀😀😀😀😀😀'),
          fc.string({ unit: 'grapheme', maxLength: 8 }),
        ),
        { minLength: 100, maxLength: 1500 },
      )
      .map((p) => p.join(''));
    fc.assert(
      fc.property(text, fc.integer({ min: 400, max: 4_000 }), fc.integer({ min: 300, max: 3_000 }), (s, a, b) => {
        const once = trimText(s, a);
        assert.ok(once.length <= a && !LONE_SURROGATE.test(once));
        assert.equal(trimText(once, a), once, 'idempotent');
        const twice = trimText(once, Math.min(a, b));
        assert.ok(twice.length <= Math.min(a, b) && !LONE_SURROGATE.test(twice));
        if (twice === s) return;
        const { head, tail, trimmed } = parts(twice);
        assert.ok(s.startsWith(head) && s.endsWith(tail), 'head and tail come from the original');
        assert.equal(trimmed, s.length - head.length - tail.length);
      }),
      { numRuns: 200 },
    );
  });
});
