import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { applyRecord } from '../../src/core/compaction/apply';
import { hybrid, removalScore } from '../../src/core/compaction/hybrid';
import { MIDDLE_KEEP_FIRST_DEFAULT, middleRemoval } from '../../src/core/compaction/middleRemoval';
import { OLDEST_KEEP_FIRST_DEFAULT, oldestRemoval } from '../../src/core/compaction/oldestRemoval';
import { protectionOf, turnsOf } from '../../src/core/compaction/priority';
import { removalReplacement, type RemovalOptions, type RemovalResult } from '../../src/core/compaction/removeTurns';
import type { CompactionRecord } from '../../src/core/compaction/types';
import type { ConversationState, Message } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { fakeClock } from './support/builders';
import {
  assertSoundRemoval,
  buildConversation,
  filler,
  restoreAll,
  tokensOf,
  type TurnSpec,
} from './support/removalConversations';

type Strategy = 'middle' | 'oldest' | 'hybrid';

// Not 0 or the bounds: fast-check biases integers towards them.
const rare = fc.integer({ min: 1, max: 10 }).map((n) => n === 5);
const words = fc.oneof(
  fc.constantFrom('ok', 'go on', 'why does this fail?', 'fix the parser in src/parse.ts'),
  fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim().length > 0),
  fc.integer({ min: 1, max: 2000 }).map(filler),
);
const round = fc.record({
  tools: fc.array(fc.constantFrom('read_file', 'edit_file', 'run_command', 'search'), { minLength: 1, maxLength: 2 }),
  result: fc.integer({ min: 0, max: 3000 }),
});
const turnSpec: fc.Arbitrary<TurnSpec> = fc.record({
  words,
  rounds: fc.array(round, { maxLength: 3 }),
  answer: fc.integer({ min: 1, max: 4000 }),
  pinned: rare,
  summary: rare,
  system: rare,
  interrupt: fc.option(fc.constant('wait — also check the lexer'), { nil: undefined }),
  pending: fc.boolean(),
});
const knobs = fc.record({
  strategy: fc.constantFrom<Strategy>('middle', 'oldest', 'hybrid'),
  // Share of the conversation to free, -0.1..1.2 (fc.double clusters near 0).
  share: fc.integer({ min: -10, max: 120 }).map((n) => n / 100),
  keepRecentTurns: fc.integer({ min: 0, max: 3 }),
  keepRecentTokens: fc.integer({ min: 0, max: 4000 }),
  keepFirst: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
  keepLast: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
});
type Knobs = typeof knobs extends fc.Arbitrary<infer K> ? K : never;

const total = (ms: readonly Message[]) => ms.reduce((n, m) => n + tokensOf(m), 0);

function run(
  state: ConversationState,
  k: Knobs,
  tag: string,
): { result: RemovalResult; opts: RemovalOptions; label: string; keepFirst: number } {
  const opts: RemovalOptions = {
    tokensToFree: Math.floor(k.share * total(state.messages)),
    tokensOf,
    clock: fakeClock(),
    ids: counterIds(tag),
    keepRecentTurns: k.keepRecentTurns,
    keepRecentTokens: k.keepRecentTokens,
    keepFirst: k.keepFirst,
    keepLast: k.keepLast,
  };
  if (k.strategy === 'middle')
    return {
      result: middleRemoval(state, opts),
      opts,
      label: 'middle removal',
      keepFirst: k.keepFirst ?? MIDDLE_KEEP_FIRST_DEFAULT,
    };
  if (k.strategy === 'oldest')
    return {
      result: oldestRemoval(state, opts),
      opts,
      label: 'oldest removal',
      keepFirst: k.keepFirst ?? OLDEST_KEEP_FIRST_DEFAULT,
    };
  const h = hybrid(state, opts);
  const n = state.messages.length;
  for (const s of Object.values(h.scores)) assert.ok(s >= 0 && s <= 1);
  assert.equal(h.scores[h.chosen], removalScore(h, opts.tokensToFree, n));
  if (h.byScore) assert.ok(h.scores[h.chosen] >= Math.max(...Object.values(h.scores)));
  const middle = h.chosen === 'middle-removal';
  return {
    result: h,
    opts,
    label: `hybrid: ${middle ? 'middle' : 'oldest'} removal`,
    keepFirst: k.keepFirst ?? (middle ? MIDDLE_KEEP_FIRST_DEFAULT : OLDEST_KEEP_FIRST_DEFAULT),
  };
}

const layerOf = (s: Strategy): CompactionRecord['layer'] =>
  s === 'middle' ? 'middle-removal' : s === 'oldest' ? 'oldest-removal' : 'hybrid';

/** Spec turns that must survive, computed from the specs, independently of the strategies. */
function mustKeep(specs: readonly TurnSpec[], turns: readonly Message[][], k: Knobs, keepFirst: number): Set<number> {
  const keep = new Set<number>();
  const count = turns.reduce((n, t) => n + t.length, 0);
  let start = 0;
  let recent = 0;
  const starts = turns.map((t) => ((start += t.length), start - t.length));
  for (let i = turns.length - 1; i >= 0; i--) {
    const spec = specs[i];
    const t = turns[i] ?? [];
    const at = starts[i] ?? 0;
    const fromEnd = turns.length - 1 - i;
    if (fromEnd === 0 || fromEnd < k.keepRecentTurns || recent < k.keepRecentTokens) keep.add(i);
    if (spec?.pinned || spec?.summary || spec?.system || at < keepFirst || at + t.length > count - (k.keepLast ?? 0))
      keep.add(i);
    recent += total(t);
  }
  return keep;
}

describe('removal strategies (property)', () => {
  it('keep invariants, user words, protected turns; free enough or all they can; undo exactly — twice over', function () {
    this.timeout(120_000);
    const seen = { runs: 0, removed: 0, severalRuns: 0, short: 0, byScore: 0 };
    fc.assert(
      fc.property(
        fc.array(turnSpec, { minLength: 1, maxLength: 16, size: 'medium' }),
        knobs,
        knobs,
        (specs, k1, k2) => {
          const { state, turns } = buildConversation(specs, 'pp');
          const first = run(state, k1, 'a');
          const { result } = first;
          assertSoundRemoval(state, result.state, result.records, layerOf(k1.strategy));
          seen.runs++;
          if (result.records.length > 0) seen.removed++;
          if (result.records.length > 1) seen.severalRuns++;
          if (result.tokensFreed < first.opts.tokensToFree) seen.short++;
          if ('byScore' in result && result.byScore === true) seen.byScore++;

          let replayed = state;
          for (const r of result.records) {
            const a = applyRecord(replayed, r);
            assert.ok(a.ok);
            replayed = a.state;
          }
          assert.deepEqual(replayed.messages, result.state.messages, 'the records replay to the same state');
          assert.equal(result.tokensFreed, total(state.messages) - total(result.state.messages));

          const present = new Set(result.state.messages);
          for (const i of mustKeep(specs, turns, k1, first.keepFirst)) {
            for (const m of turns[i] ?? []) assert.ok(present.has(m), `protected turn ${i} kept`);
          }
          if (first.opts.tokensToFree <= 0) assert.equal(result.records.length, 0);
          if (result.tokensFreed < first.opts.tokensToFree) {
            // Stopped short: no removable turn left would free anything on its own.
            const all = turnsOf(state.messages, tokensOf);
            const prot = protectionOf(all, {
              keepFirst: first.keepFirst,
              keepLast: k1.keepLast ?? 0,
              keepRecentTurns: k1.keepRecentTurns,
              keepRecentTokens: k1.keepRecentTokens,
            });
            for (const t of all) {
              if (prot[t.ordinal] !== undefined || !t.messages.every((m) => present.has(m))) continue;
              const gain = t.tokens - total(removalReplacement(t.messages, first.label, fakeClock(), counterIds('g')));
              assert.ok(gain <= 0, `turn ${t.ordinal} could still free ${gain} tokens`);
            }
          }

          const second = run(result.state, k2, 'b');
          assertSoundRemoval(result.state, second.result.state, second.result.records, layerOf(k2.strategy));
          const back = restoreAll(second.result.state, [...result.records, ...second.result.records]);
          assert.deepEqual(back.messages, state.messages, 'both rounds undo to the original');
        },
      ),
      { numRuns: 500 },
    );
    // The generator must exercise the interesting cases, not only tiny conversations.
    assert.ok(seen.removed > seen.runs * 0.3, `removed something in ${seen.removed}/${seen.runs} runs`);
    assert.ok(seen.severalRuns > 10 && seen.short > 10 && seen.byScore > 10, JSON.stringify(seen));
  });
});
