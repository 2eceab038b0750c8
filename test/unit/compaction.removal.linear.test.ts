/**
 * The removal strategies do linear work (issue 10, #15): counted, not timed — the messages
 * and blocks `tokensOf` is asked about stay proportional to the conversation at 16 000
 * messages — and they still choose exactly what the plain greedy (every candidate re-scanned
 * on every pass, each run's marker counted whole, records applied one by one) chose.
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { applyRecord } from '../../src/core/compaction/apply';
import { hybrid } from '../../src/core/compaction/hybrid';
import { MIDDLE_KEEP_FIRST_DEFAULT, middleOrder, middleRemoval } from '../../src/core/compaction/middleRemoval';
import { OLDEST_KEEP_FIRST_DEFAULT, oldestOrder, oldestRemoval } from '../../src/core/compaction/oldestRemoval';
import { protectionOf, turnsOf, type Turn } from '../../src/core/compaction/priority';
import {
  removalRecord,
  removalReplacement,
  type RemovalKind,
  type RemovalOptions,
  type RemovalOrder,
  type RemovalResult,
} from '../../src/core/compaction/removeTurns';
import type { CompactionRecord } from '../../src/core/compaction/types';
import type { ConversationState, Message } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { fakeClock } from './support/builders';
import { conversation, filler, tokensOf, type TurnSpec } from './support/removalConversations';

/** `tokensOf`, counting the calls and the blocks of the messages it is asked about. */
function countingTokens(): { tokensOf: (m: Message) => number; calls: number; blocks: number } {
  const counter = {
    calls: 0,
    blocks: 0,
    tokensOf: (m: Message): number => {
      counter.calls++;
      counter.blocks += m.blocks.length;
      return tokensOf(m);
    },
  };
  return counter;
}

const options = (over: Partial<RemovalOptions>): RemovalOptions => ({
  tokensToFree: 0,
  tokensOf,
  clock: fakeClock(),
  ids: counterIds('lin'),
  keepRecentTurns: 2,
  keepRecentTokens: 0,
  ...over,
});
const totalOf = (ms: readonly Message[]) => ms.reduce((n, m) => n + tokensOf(m), 0);

/** The plain greedy the strategies used before, kept here as the reference for their choices. */
function referenceRemoveTurns(
  state: ConversationState,
  opts: RemovalOptions,
  kind: RemovalKind,
  order: RemovalOrder,
  keepFirstDefault: number,
): RemovalResult {
  const turns = turnsOf(state.messages, opts.tokensOf);
  const protection = protectionOf(turns, {
    keepFirst: opts.keepFirst ?? keepFirstDefault,
    keepLast: opts.keepLast ?? 0,
    keepRecentTurns: opts.keepRecentTurns,
    keepRecentTokens: opts.keepRecentTokens,
  });
  const candidates = order(turns.filter((t) => protection[t.ordinal] === undefined));
  const selected = turns.map(() => false);
  const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
  const gain = (a: number, b: number): number => {
    const run = turns.slice(a, b + 1).flatMap((t: Turn) => t.messages);
    return (
      sum(turns.slice(a, b + 1).map((t) => t.tokens)) -
      sum(removalReplacement(run, kind.label, opts.clock, counterIds('ref')).map(opts.tokensOf))
    );
  };
  let freed = 0;
  let changed = true;
  while (changed && freed < opts.tokensToFree) {
    changed = false;
    for (const t of candidates) {
      if (freed >= opts.tokensToFree) break;
      const k = t.ordinal;
      if (selected[k]) continue;
      let a = k;
      let b = k;
      while (a > 0 && selected[a - 1]) a--;
      while (b < turns.length - 1 && selected[b + 1]) b++;
      const increment = gain(a, b) - (a < k ? gain(a, k - 1) : 0) - (b > k ? gain(k + 1, b) : 0);
      if (increment <= 0) continue;
      selected[k] = true;
      freed += increment;
      changed = true;
    }
  }
  let next = state;
  const records: CompactionRecord[] = [];
  for (let k = 0; k < turns.length; k++) {
    if (!selected[k] || selected[k - 1]) continue;
    let b = k;
    while (selected[b + 1]) b++;
    const record = removalRecord(state.messages.slice(turns[k]?.start ?? 0, turns[b]?.end ?? 0), kind, opts);
    const applied = applyRecord(next, record);
    assert.ok(applied.ok);
    next = applied.state;
    records.push(record);
  }
  return { state: next, records, tokensFreed: sum(records.map((r) => r.tokensBefore - r.tokensAfter)) };
}

/** 16 000 messages: tool turns, with short low-priority turns scattered so removal makes many runs. */
function longConversation(messages: number): ConversationState {
  const specs: TurnSpec[] = [];
  for (let k = 0, count = 0; count < messages; k++) {
    const low = k % 3 === 1;
    if (low)
      specs.push({ words: 'ok', answerText: 'fine' }); // 2 messages, low priority
    else
      specs.push({
        words: `step ${k}: why does the parser fail?`,
        rounds: [{ tools: ['read_file'], result: 200 }],
        answer: 120,
      }); // 4 messages
    count += low ? 2 : 4;
  }
  return conversation(specs, 'long');
}

describe('removal strategies: linear work', () => {
  const state = longConversation(16_000);
  const n = state.messages.length;
  const blocks = state.messages.reduce((s, m) => s + m.blocks.length, 0);
  const total = totalOf(state.messages);

  for (const share of [0.02, 0.5, 2]) {
    it(`at ${n} messages, freeing ${share * 100} %: tokensOf sees each message a bounded number of times`, () => {
      for (const [name, strategy, runs] of [
        ['middle removal', middleRemoval, 1],
        ['oldest removal', oldestRemoval, 1],
        ['hybrid', hybrid, 3],
      ] as const) {
        const counter = countingTokens();
        const result = strategy(
          state,
          options({ tokensToFree: Math.floor(share * total), tokensOf: counter.tokensOf }),
        );
        assert.ok(result.records.length > 0, `${name} removed something`);
        // turnsOf once per message, the records once per original, a few probes per turn.
        assert.ok(counter.calls <= runs * 4 * n, `${name}: ${counter.calls} tokensOf calls for ${n} messages`);
        assert.ok(
          counter.blocks <= runs * 4 * blocks,
          `${name}: tokensOf saw ${counter.blocks} blocks for ${blocks} in the conversation`,
        );
      }
    });
  }

  it('many scattered runs: the same result as applying the records one by one', () => {
    const counter = countingTokens();
    const result = middleRemoval(state, options({ tokensToFree: Math.floor(0.2 * total), tokensOf: counter.tokensOf }));
    assert.ok(result.records.length > 200, `${result.records.length} runs`);
    assert.deepEqual(
      result,
      referenceRemoveTurns(
        state,
        options({ tokensToFree: Math.floor(0.2 * total) }),
        { layer: 'middle-removal', label: 'middle removal' },
        middleOrder,
        MIDDLE_KEEP_FIRST_DEFAULT,
      ),
    );
  });
});

describe('removal strategies: the same choices as the plain greedy', () => {
  const words = fc.oneof(
    fc.constantFrom('ok', 'go on', 'why does this fail?', 'fix the parser in src/parse.ts'),
    fc.integer({ min: 1, max: 600 }).map(filler),
  );
  const turnSpec: fc.Arbitrary<TurnSpec> = fc.record({
    words,
    rounds: fc.array(
      fc.record({
        tools: fc.constantFrom(['read_file'], ['edit_file', 'search']),
        result: fc.integer({ min: 0, max: 1500 }),
      }),
      { maxLength: 2 },
    ),
    answer: fc.integer({ min: 1, max: 1500 }),
    pinned: fc.integer({ min: 1, max: 10 }).map((x) => x === 5),
  });
  const knobs = fc.record({
    share: fc.integer({ min: 0, max: 110 }).map((x) => x / 100),
    keepRecentTurns: fc.integer({ min: 0, max: 3 }),
    keepFirst: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
    keepLast: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  });

  it('property: middle and oldest removal give the reference result, records and history alike', () => {
    fc.assert(
      fc.property(fc.array(turnSpec, { minLength: 1, maxLength: 14 }), knobs, (specs, k) => {
        const state = conversation(specs, 'eq');
        const opts = () =>
          options({
            tokensToFree: Math.floor(k.share * totalOf(state.messages)),
            keepRecentTurns: k.keepRecentTurns,
            keepFirst: k.keepFirst,
            keepLast: k.keepLast,
          });
        assert.deepEqual(
          middleRemoval(state, opts()),
          referenceRemoveTurns(
            state,
            opts(),
            { layer: 'middle-removal', label: 'middle removal' },
            middleOrder,
            MIDDLE_KEEP_FIRST_DEFAULT,
          ),
        );
        assert.deepEqual(
          oldestRemoval(state, opts()),
          referenceRemoveTurns(
            state,
            opts(),
            { layer: 'oldest-removal', label: 'oldest removal' },
            oldestOrder,
            OLDEST_KEEP_FIRST_DEFAULT,
          ),
        );
      }),
      { numRuns: 200 },
    );
  });
});
