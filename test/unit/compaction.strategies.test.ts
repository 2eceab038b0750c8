import { strict as assert } from 'node:assert';
import { analyseConversation, hybrid, removalScore } from '../../src/core/compaction/hybrid';
import { middleRemoval } from '../../src/core/compaction/middleRemoval';
import { oldestRemoval } from '../../src/core/compaction/oldestRemoval';
import { LONG_MESSAGE_TOKENS, messagePriority, turnsOf } from '../../src/core/compaction/priority';
import { removalMarker, removalReplacement, type RemovalOptions } from '../../src/core/compaction/removeTurns';
import type { ConversationState, Message } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { Build, fakeClock } from './support/builders';
import {
  assertSoundRemoval,
  buildConversation,
  conversation,
  filler,
  tokensOf,
  type TurnSpec,
} from './support/removalConversations';

function options(overrides: Partial<RemovalOptions> = {}): RemovalOptions {
  return {
    tokensToFree: 1e9,
    tokensOf,
    clock: fakeClock(),
    ids: counterIds('x'),
    keepRecentTurns: 1,
    keepRecentTokens: 0,
    ...overrides,
  };
}

/** Which spec turns (by index) lost their messages. */
function removedTurns(turns: readonly Message[][], after: ConversationState): number[] {
  const present = new Set(after.messages);
  return turns.flatMap((t, k) => (t.every((m) => !present.has(m)) ? [k] : []));
}

/** Net tokens freed by removing these messages alone (with the given marker label). */
function isolatedGain(messages: readonly Message[], label: string): number {
  const sum = (ms: readonly Message[]) => ms.reduce((n, m) => n + tokensOf(m), 0);
  return sum(messages) - sum(removalReplacement(messages, label, fakeClock(), counterIds('g')));
}

const plain = (n: number): TurnSpec[] =>
  Array.from({ length: n }, (_, k) => ({ words: `please do step ${k + 1}`, answer: 400 }));

describe('message priority', () => {
  const b = new Build('pr');
  const at = (m: Message, tokens: number, isFirst = false, isLast = false) =>
    messagePriority(m, { isFirst, isLast, tokens });

  it('system is critical; tool calls, tool results, start, end and long messages are high', () => {
    const sys = b.text('rules', 'system');
    assert.equal(at(b.message('user', [sys, b.text('hi')], 1), 5), 'critical');
    const use = b.toolUse('read_file');
    assert.equal(at(b.message('assistant', [use], 1), 10), 'high');
    assert.equal(at(b.message('user', [b.toolResult(use.id, 'x')], 1), 10), 'high');
    assert.equal(at(b.message('user', [b.text('ok')], 1), 5, true), 'high');
    assert.equal(at(b.message('assistant', [b.text('ok', 'assistant')], 1), 5, false, true), 'high');
    assert.equal(at(b.message('assistant', [b.text('long', 'assistant')], 1), LONG_MESSAGE_TOKENS + 1), 'high');
    assert.equal(at(b.message('assistant', [b.text('long', 'assistant')], 1), LONG_MESSAGE_TOKENS), 'normal');
  });

  it('short messages without a question are low; with a question, or longer, normal', () => {
    assert.equal(at(b.message('user', [b.text('thanks, go on')], 1), 10), 'low');
    assert.equal(at(b.message('user', [b.text('why did it fail?')], 1), 10), 'normal');
    assert.equal(at(b.message('assistant', [b.text(filler(400), 'assistant')], 1), 104), 'normal');
  });

  it('turns run from one message with user words to the next; tool results typed over stay with their calls', () => {
    const { state, turns } = buildConversation([
      { words: 'start', rounds: [{ tools: ['read_file'], result: 100 }], interrupt: 'stop, look at b.ts', answer: 100 },
      { words: 'thanks', answerText: 'ok' },
      { words: 'and now?', answer: 400 },
      { words: 'go', answer: 100 },
    ]);
    const t = turnsOf(state.messages, tokensOf);
    assert.deepEqual(
      t.map((x) => x.messages),
      turns,
    );
    assert.deepEqual(
      t.map((x) => [x.start, x.end]),
      [
        [0, 4],
        [4, 6],
        [6, 8],
        [8, 10],
      ],
    );
    assert.deepEqual(
      t.map((x) => x.priority),
      ['high', 'low', 'normal', 'high'],
    );
    assert.equal(
      t[0]?.tokens,
      turns[0]?.reduce((n, m) => n + tokensOf(m), 0),
    );
  });
});

describe('middle removal', () => {
  it('keeps the first N and last M messages (as whole turns) and drops the middle', () => {
    const { state, turns } = buildConversation(plain(10));
    const r = middleRemoval(state, options({ keepFirst: 4, keepLast: 4 }));
    assert.deepEqual(removedTurns(turns, r.state), [2, 3, 4, 5, 6, 7]);
    assert.equal(r.records.length, 1);
    const marker = r.state.messages[4]?.blocks[0];
    assert.equal(marker?.type === 'text' && marker.text, removalMarker(3, 8, 'middle removal'));
    assert.equal(
      marker?.type === 'text' && marker.text,
      '[Turns 3–8 were removed to save context (middle removal); they can be restored from the Compactions view.]',
    );
    assert.equal(r.records[0]?.strategy, 'middle-removal');
    assertSoundRemoval(state, r.state, r.records, 'middle-removal');
  });

  it('drops the turn nearest the centre first, and stops once enough is freed', () => {
    const { state, turns } = buildConversation(plain(10));
    const r = middleRemoval(state, options({ tokensToFree: 50 }));
    assert.deepEqual(removedTurns(turns, r.state), [4]);
    assert.ok(r.tokensFreed >= 50);
    assertSoundRemoval(state, r.state, r.records, 'middle-removal');
  });

  it('drops low-priority turns before normal ones, then normal before high', () => {
    const specs = plain(10);
    specs[1] = { words: 'fine', answer: 170 };
    const { state, turns } = buildConversation(specs);
    assert.equal(turnsOf(state.messages, tokensOf)[1]?.priority, 'low');
    const low = isolatedGain(turns[1] ?? [], 'middle removal');
    assert.ok(low > 0);
    assert.deepEqual(removedTurns(turns, middleRemoval(state, options({ tokensToFree: low })).state), [1]);
    const more = middleRemoval(state, options({ tokensToFree: low + 1 }));
    assert.deepEqual(removedTurns(turns, more.state), [1, 4]);
    assert.equal(more.records.length, 2);
    assertSoundRemoval(state, more.state, more.records, 'middle-removal');
  });

  it('removes nothing when nothing has to be freed', () => {
    const state = conversation(plain(6));
    for (const tokensToFree of [0, -5]) {
      const r = middleRemoval(state, options({ tokensToFree }));
      assert.equal(r.state, state);
      assert.deepEqual(r.records, []);
    }
  });
});

describe('oldest removal', () => {
  const specs = (): TurnSpec[] => {
    const s = plain(7);
    s[2] = { words: 'fine', answer: 170 };
    s[4] = { words: 'good', answer: 170 };
    return s;
  };

  it('removes the oldest low-priority turn first, then the next low, then the oldest normal', () => {
    const { state, turns } = buildConversation(specs());
    const low = isolatedGain(turns[2] ?? [], 'oldest removal');
    assert.deepEqual(removedTurns(turns, oldestRemoval(state, options({ tokensToFree: low })).state), [2]);
    assert.deepEqual(removedTurns(turns, oldestRemoval(state, options({ tokensToFree: low + 1 })).state), [2, 4]);
    const r = oldestRemoval(state, options({ tokensToFree: low * 2 + 5 }));
    assert.deepEqual(removedTurns(turns, r.state), [1, 2, 4]);
    assert.deepEqual(
      r.records.map((x) => [x.regions[0]?.firstTurn, x.regions[0]?.lastTurn]),
      [
        [2, 3],
        [5, 5],
      ],
    );
    assertSoundRemoval(state, r.state, r.records, 'oldest-removal');
  });

  it('skips a turn too small to pay for its marker, and takes it once a neighbour is gone', () => {
    const specs = plain(5);
    specs[1] = { words: 'ok', answerText: 'Done.' };
    const { state, turns } = buildConversation(specs);
    assert.ok(isolatedGain(turns[1] ?? [], 'oldest removal') <= 0);
    const alone = oldestRemoval(state, options({ keepFirst: 2, tokensToFree: 1 }));
    assert.deepEqual(removedTurns(turns, alone.state), [2], 'the tiny low turn is passed over');
    const r = oldestRemoval(state, options({ keepFirst: 2 }));
    assert.deepEqual(removedTurns(turns, r.state), [1, 2, 3]);
    assert.equal(r.records.length, 1);
    assertSoundRemoval(state, r.state, r.records, 'oldest-removal');
  });

  it('takes the first turn too unless told to keep it', () => {
    const { state, turns } = buildConversation(plain(6));
    assert.deepEqual(removedTurns(turns, oldestRemoval(state, options()).state), [0, 1, 2, 3, 4]);
    assert.deepEqual(removedTurns(turns, oldestRemoval(state, options({ keepFirst: 1 })).state), [1, 2, 3, 4]);
  });
});

describe('protected turns', () => {
  const specs = (): TurnSpec[] => {
    const s = plain(10);
    s[3] = { words: 'look at this', answer: 400, pinned: true };
    s[5] = { words: 'continue', answer: 400, summary: true };
    s[6] = { words: 'rules changed', answer: 400, system: true };
    return s;
  };

  for (const [name, run, layer] of [
    ['middle', middleRemoval, 'middle-removal'],
    ['oldest', oldestRemoval, 'oldest-removal'],
    ['hybrid', hybrid, 'hybrid'],
  ] as const) {
    it(`${name}: pinned, summary, critical and recent turns are never removed`, () => {
      const { state, turns } = buildConversation(specs());
      const recentTokens = (turns[9] ?? []).concat(turns[8] ?? []).reduce((n, m) => n + tokensOf(m), 0) + 1;
      const r = run(state, options({ keepRecentTurns: 2, keepRecentTokens: recentTokens }));
      const removed = removedTurns(turns, r.state);
      for (const k of [3, 5, 6, 7, 8, 9]) assert.ok(!removed.includes(k), `turn ${k} kept`);
      assert.ok(removed.includes(1) && removed.includes(2) && removed.includes(4));
      assertSoundRemoval(state, r.state, r.records, layer);
    });
  }

  it('the newest turn stays even with keepRecentTurns 0, mid tool loop', () => {
    const specs: TurnSpec[] = [
      ...plain(4),
      { words: 'run it', rounds: [{ tools: ['run_command'], result: 10 }], pending: true },
    ];
    const { state, turns } = buildConversation(specs);
    const r = oldestRemoval(state, options({ keepRecentTurns: 0 }));
    assert.deepEqual(removedTurns(turns, r.state), [0, 1, 2, 3]);
    assert.equal(r.state.messages.at(-1), state.messages.at(-1));
    assertSoundRemoval(state, r.state, r.records, 'oldest-removal');
  });
});

describe('hybrid', () => {
  const distinctRounds = (result: (k: number) => number): TurnSpec[] =>
    Array.from({ length: 8 }, (_, k) => ({
      words: `step ${k + 1}`,
      rounds: [{ tools: [`tool_${k}`], result: result(k) }],
      answer: 40,
    }));

  it('a long task statement: middle removal, which keeps the start', () => {
    const specs = plain(8);
    specs[0] = { words: filler(1200), answer: 400 };
    const state = conversation(specs);
    const r = hybrid(state, options({ tokensToFree: 300 }));
    assert.equal(r.analysis.suggestion, 'middle-removal');
    assert.equal(r.chosen, 'middle-removal');
    assert.equal(r.byScore, false);
    assert.equal(r.state.messages[0], state.messages[0]);
    assert.ok(r.records.every((x) => x.strategy === 'hybrid' && x.replacement[0]?.blocks[0]?.type === 'text'));
    assert.match(JSON.stringify(r.records[0]?.replacement[0]?.blocks[0]), /hybrid: middle removal/);
    assertSoundRemoval(state, r.state, r.records, 'hybrid');
  });

  it('many similar tool rounds: oldest removal', () => {
    const specs: TurnSpec[] = Array.from({ length: 8 }, (_, k) => ({
      words: `again ${k}`,
      rounds: [{ tools: ['read_file'], result: 800 }],
      answer: 40,
    }));
    const { state, turns } = buildConversation(specs);
    const r = hybrid(state, options({ tokensToFree: 300 }));
    assert.deepEqual(
      [r.analysis.toolRounds, r.analysis.dominantToolShare, r.analysis.suggestion],
      [8, 1, 'oldest-removal'],
    );
    assert.equal(r.chosen, 'oldest-removal');
    assert.deepEqual(removedTurns(turns, r.state), [0, 1]);
    assertSoundRemoval(state, r.state, r.records, 'hybrid');
  });

  /** The score arithmetic, recomputed from a separate run of the same strategy. */
  function expectedScore(state: ConversationState, which: 'middle' | 'oldest', opts: RemovalOptions): number {
    const run = which === 'middle' ? middleRemoval : oldestRemoval;
    const r = run(state, { ...opts, ids: counterIds('e') }, { layer: 'hybrid', label: `hybrid: ${which} removal` });
    const removed = r.records.reduce((n, x) => n + x.originals.length, 0);
    const n = state.messages.length;
    assert.equal(
      removalScore(r, opts.tokensToFree, n),
      0.6 * Math.min(1, r.tokensFreed / opts.tokensToFree) + 0.4 * ((n - removed) / n),
    );
    return 0.6 * Math.min(1, r.tokensFreed / opts.tokensToFree) + 0.4 * ((n - removed) / n);
  }

  it('when unsure, runs both and keeps the better score (oldest wins: one big old turn)', () => {
    const state = conversation(distinctRounds((k) => (k === 0 ? 6000 : 800)));
    const opts = options({ tokensToFree: 1200 });
    const r = hybrid(state, opts);
    assert.equal(r.analysis.suggestion, undefined);
    assert.equal(r.byScore, true);
    assert.equal(r.scores['middle-removal'], expectedScore(state, 'middle', opts));
    assert.equal(r.scores['oldest-removal'], expectedScore(state, 'oldest', opts));
    assert.equal(r.scores['oldest-removal'], 0.6 * 1 + 0.4 * (28 / 32));
    assert.ok(r.scores['oldest-removal'] > r.scores['middle-removal']);
    assert.equal(r.chosen, 'oldest-removal');
    assert.match(r.analysis.reason, /neither/);
    assertSoundRemoval(state, r.state, r.records, 'hybrid');
  });

  it('when unsure, runs both and keeps the better score (middle wins: big turns in the middle)', () => {
    const state = conversation(distinctRounds((k) => (k >= 3 && k <= 6 ? 4000 : 100)));
    const opts = options({ tokensToFree: 900 });
    const r = hybrid(state, opts);
    assert.equal(r.byScore, true);
    assert.equal(r.scores['middle-removal'], expectedScore(state, 'middle', opts));
    assert.equal(r.scores['oldest-removal'], expectedScore(state, 'oldest', opts));
    assert.equal(r.scores['middle-removal'], 0.6 + 0.4 * (28 / 32));
    assert.equal(r.chosen, 'middle-removal');
    assert.equal(r.records.length, 1);
    assertSoundRemoval(state, r.state, r.records, 'hybrid');
  });

  it('spends the session ids only on the run it keeps', () => {
    const state = conversation(distinctRounds(() => 800));
    const ids = counterIds('h');
    const r = hybrid(state, options({ tokensToFree: 500, ids }));
    assert.ok(r.records.length > 0);
    assert.equal(r.records[0]?.id, 'cmp_h1');
    assert.ok(r.records.flatMap((x) => x.replacement).every((m) => m.id.startsWith('msg_h')));
  });

  it('analysis: both signals, or none, means unsure', () => {
    const both = conversation([
      { words: filler(1200), answer: 40 },
      ...Array.from({ length: 7 }, (_, k) => ({
        words: `again ${k}`,
        rounds: [{ tools: ['read_file'], result: 100 }],
        answer: 40,
      })),
    ]);
    const a = analyseConversation(both.messages, tokensOf);
    assert.ok(a.taskStatementTokens >= 200);
    assert.equal(a.suggestion, undefined);
    assert.match(a.reason, /long task statement and a repetitive tool loop/);
    assert.equal(analyseConversation(conversation(plain(3)).messages, tokensOf).suggestion, undefined);
  });

  it('score: reduction capped at 1, full marks when nothing had to be freed', () => {
    assert.equal(removalScore({ records: [], tokensFreed: 0 }, 0, 10), 1);
    assert.equal(removalScore({ records: [], tokensFreed: 500 }, 100, 0), 1);
    assert.equal(removalScore({ records: [], tokensFreed: 50 }, 100, 10), 0.6 * 0.5 + 0.4);
  });
});
