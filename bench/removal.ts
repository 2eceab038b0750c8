/**
 * `npm run bench -- removal`: how long middle removal, oldest removal and hybrid take on
 * synthetic coding sessions of 1 000, 4 000 and 16 000 messages, freeing half of the history,
 * and how many times they ask for a message's tokens. The work must grow linearly (or
 * n log n): 4× the messages, about 4× the time and calls. Prints a table; asserts nothing
 * (test/unit/compaction.removal.linear.test.ts counts the work).
 */
import { performance } from 'node:perf_hooks';
import { hybrid } from '../src/core/compaction/hybrid';
import { middleRemoval } from '../src/core/compaction/middleRemoval';
import { oldestRemoval } from '../src/core/compaction/oldestRemoval';
import type { RemovalOptions, RemovalResult } from '../src/core/compaction/removeTurns';
import { resolveConfig } from '../src/core/pipeline/config';
import type { ConversationState, Message } from '../src/core/conversation/conversationModel';
import { counterIds } from '../src/core/platform/platformPorts';
import { messageRawTokens } from '../src/core/tokens/blockTokens';
import { chars4Tokenizer } from '../src/core/tokens/chars4';
import { addTurn, prng } from './syntheticHistory';

const SIZES = [1_000, 4_000, 16_000];
const STRATEGIES: ReadonlyArray<readonly [string, (s: ConversationState, o: RemovalOptions) => RemovalResult]> = [
  ['middle removal', middleRemoval],
  ['oldest removal', oldestRemoval],
  ['hybrid', hybrid],
];

/** A synthetic session of about `messages` messages (4 per turn: ask, tool call, result, answer). */
function session(messages: number): ConversationState {
  const config = resolveConfig({});
  if (!config.ok) throw new Error(config.error);
  let t = 1_700_000_000_000;
  const deps = { clock: { now: () => (t += 1000) }, ids: counterIds(`rm${messages}`) };
  const rand = prng(messages);
  let state: ConversationState = { system: [], tools: [], messages: [], pending: [], config: config.config };
  for (let turn = 1; state.messages.length < messages; turn++) state = addTurn(state, rand, deps, turn);
  return state;
}

/** Runs the bench and prints one row per size and strategy. */
export function runRemoval(): void {
  console.log('messages  strategy          ms   tokensOf calls   records   tokens freed');
  for (const size of SIZES) {
    const state = session(size);
    const tokensOf = (m: Message): number => {
      const raw = messageRawTokens(m, chars4Tokenizer);
      return raw.text + raw.fixed;
    };
    const total = state.messages.reduce((n, m) => n + tokensOf(m), 0);
    for (const [name, strategy] of STRATEGIES) {
      let calls = 0;
      const counted = (m: Message): number => (calls++, tokensOf(m));
      const t0 = performance.now();
      const result = strategy(state, {
        tokensToFree: Math.floor(total / 2),
        tokensOf: counted,
        clock: { now: () => 0 },
        ids: counterIds('bench'),
        keepRecentTurns: 2,
        keepRecentTokens: 0,
      });
      const ms = performance.now() - t0;
      console.log(
        `${String(state.messages.length).padStart(8)}  ${name.padEnd(15)} ${ms.toFixed(0).padStart(5)}   ${String(calls).padStart(14)}   ${String(result.records.length).padStart(7)}   ${String(Math.round(result.tokensFreed)).padStart(12)}`,
      );
    }
  }
}
