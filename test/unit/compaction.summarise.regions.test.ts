import { strict as assert } from 'node:assert';
import { expectedSaving, markRegions, pickRegions, type CandidateRegion } from '../../src/core/compaction/regions';
import { DEFAULT_COMPACTION_SETTINGS, pressureOf } from '../../src/core/compaction/policy';
import { previewCompaction } from '../../src/core/compaction/preview';
import { summariseRegions } from '../../src/core/compaction/summarise';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { Message } from '../../src/core/conversation/conversationModel';
import { Build, emptyState, testConfig } from './support/builders';
import { answer, Convo, plainTurns, summariseOpts, tokensOf } from './support/compactionFixtures';
import { ScriptedLlm } from './support/scriptedLlm';

const keep = (turns: number, tokens = 0) => ({ keepRecentTurns: turns, keepRecentTokens: tokens, tokensOf });
const turnsOf = (regions: readonly CandidateRegion[]) => regions.map((r) => [r.firstTurn, r.lastTurn]);

/** t1 plain; t2 ends with a tool call answered by t3's first message (tool result + new user words); t4, t5 plain. */
function glued(pin?: 2 | 3): Message[] {
  const b = new Build('g');
  const words = (text: string, turn: number) => {
    const t = b.text(text);
    return turn === pin ? { ...t, meta: { ...t.meta, pinned: true } } : t;
  };
  const use = b.toolUse('read_file', { path: 'src/a.ts' });
  return [
    b.message('user', [words('one', 1)], 1),
    b.message('assistant', [b.text('a1', 'assistant')], 1),
    b.message('user', [words('two', 2)], 2),
    b.message('assistant', [use], 2),
    b.message('user', [b.toolResult(use.id, 'contents'), words('three', 3)], 3),
    b.message('assistant', [b.text('a3', 'assistant')], 3),
    b.message('user', [b.text('four')], 4),
    b.message('assistant', [b.text('a4', 'assistant')], 4),
    b.message('user', [b.text('five')], 5),
    b.message('assistant', [b.text('a5', 'assistant')], 5),
  ];
}

describe('compaction regions (summarise)', () => {
  it('marks one region of whole turns, keeping the newest turns out', () => {
    const state = plainTurns(8).state();
    const regions = markRegions(state, keep(2));
    assert.deepEqual(turnsOf(regions), [[1, 6]]);
    const r = regions[0] as CandidateRegion;
    assert.equal(r.messageIds.length, 12);
    assert.equal(r.messageIds[0], state.messages[0]?.id);
    assert.equal(
      r.tokens,
      state.messages.slice(0, 12).reduce((n, m) => n + tokensOf(m), 0),
    );
    assert.ok(r.userTokens > 0 && r.userTokens < r.tokens);
  });

  it('keeps the newest tokens out, cutting an older turn only before one of its answers', () => {
    const state = plainTurns(8).state();
    const perTurn = tokensOf(state.messages[0] as Message) + tokensOf(state.messages[1] as Message);
    const regions = markRegions(state, keep(1, perTurn * 3 + 1));
    assert.deepEqual(turnsOf(regions), [[1, 5]], 'a token budget reaching into turn 5 protects its answer only');
    assert.equal(regions[0]?.messageIds.at(-1), state.messages[8]?.id, "the region ends with turn 5's words");
    assert.deepEqual(turnsOf(markRegions(state, keep(1, 10_000_000))), []);
  });

  it('always keeps the last turn, even when asked to keep none', () => {
    assert.deepEqual(turnsOf(markRegions(plainTurns(3).state(), keep(0))), [[1, 2]]);
  });

  it('splits regions at pinned messages and never includes them', () => {
    const c = new Convo();
    for (let i = 1; i <= 8; i++) c.add({ user: `u${i}`, pinned: i === 3 });
    const regions = markRegions(c.state(), keep(2));
    assert.deepEqual(
      turnsOf(regions),
      [
        [1, 2],
        [3, 6],
      ],
      'the pinned words of turn 3 stay; its answer may be summarised with what follows',
    );
    const pinnedIds = c.messages.filter((m) => m.blocks.some((b) => b.meta.pinned)).map((m) => m.id);
    for (const r of regions) for (const id of pinnedIds) assert.ok(!r.messageIds.includes(id));
  });

  it('never includes a summary again: summaries split regions', async () => {
    const state = plainTurns(10).state();
    const first = markRegions(state, keep(7));
    assert.deepEqual(turnsOf(first), [[1, 3]]);
    const out = await summariseRegions(
      state,
      summariseOpts(first, new ScriptedLlm([answer('Turns 1 to 3 happened.')])),
    );
    assert.equal(out.records.length, 1);
    const again = markRegions(out.state, keep(2));
    assert.deepEqual(turnsOf(again), [[4, 8]], 'the summary pair is its own turn and is left alone');
    const summaryIds = out.records[0]?.replacement.map((m) => m.id) ?? [];
    for (const id of summaryIds) assert.ok(!again.some((r) => r.messageIds.includes(id)));
  });

  it('keeps a tool result that opens a turn in the same region as its tool call', () => {
    assert.deepEqual(checkInvariants({ messages: glued() }), []);
    assert.deepEqual(turnsOf(markRegions({ messages: glued() }, keep(1))), [[1, 4]]);
    const afterPin = markRegions({ messages: glued(2) }, keep(1));
    assert.deepEqual(
      turnsOf(afterPin),
      [
        [1, 1],
        [2, 4],
      ],
      "the pinned words of turn 2 stay; turn 2's tool call goes with turn 3's result that answers it",
    );
    assert.equal(afterPin[1]?.messageIds[0], glued(2)[3]?.id, 'the second region starts at the tool call');
    assert.deepEqual(
      turnsOf(markRegions({ messages: glued(3) }, keep(1))),
      [
        [1, 2],
        [3, 4],
      ],
      "turn 2's tool call is answered by the pinned turn 3: the region ends before the call, the next starts after the pin",
    );
  });

  it('starts every region at a user message and ends it at an assistant message', () => {
    const c = new Convo();
    for (let i = 1; i <= 6; i++)
      c.add({ user: `u${i}`, tools: [{ name: 'read_file', input: { path: `f${i}.ts` }, result: 'r'.repeat(50) }] });
    const state = c.state();
    for (const r of markRegions(state, keep(1))) {
      const msgs = state.messages.filter((m) => r.messageIds.includes(m.id));
      assert.equal(msgs[0]?.role, 'user');
      assert.equal(msgs.at(-1)?.role, 'assistant');
    }
  });

  it('returns nothing for an empty or one-turn conversation', () => {
    assert.deepEqual(markRegions(emptyState(), keep(1)), []);
    assert.deepEqual(markRegions(plainTurns(1).state(), keep(1)), []);
  });

  it('picks the biggest regions first until the target is met, in conversation order', () => {
    const region = (tokens: number, i: number): CandidateRegion => ({
      firstTurn: i,
      lastTurn: i,
      messageIds: [`m${i}`],
      tokens,
      userTokens: 0,
      startIndex: i,
    });
    const regions = [region(100, 1), region(5000, 2), region(3000, 3), region(800, 4)];
    assert.deepEqual(
      pickRegions(regions, 3000).map((r) => r.firstTurn),
      [2],
    );
    assert.deepEqual(
      pickRegions(regions, 5000).map((r) => r.firstTurn),
      [2, 3],
      'returned in conversation order',
    );
    assert.deepEqual(
      pickRegions(regions, Infinity).map((r) => r.firstTurn),
      [2, 3, 4],
      'a region a summary would not shrink is never picked',
    );
    assert.deepEqual(pickRegions(regions, 0), []);
    assert.ok(expectedSaving(region(100, 1)) < 0);
    assert.equal(expectedSaving({ ...region(5000, 1), userTokens: 300 }), 5000 - 1000 - 300 - 40);
  });

  it('previews the regions and the expected saving (summary ~1/5 plus the user words)', () => {
    const state = plainTurns(10, 2000).state();
    const p = previewCompaction(state, { tokensToFree: 'all', ...keep(2), fixedTokens: 1000 });
    assert.deepEqual(
      p.regions.map((r) => [r.firstTurn, r.lastTurn]),
      [[1, 8]],
    );
    const r = p.regions[0];
    assert.ok(r);
    assert.equal(r.expectedTokensAfter, Math.round(r.tokens / 5) + r.userTokens + 40);
    assert.equal(p.tokensBefore, 1000 + state.messages.reduce((n, m) => n + tokensOf(m), 0));
    assert.equal(p.expectedSaving, r.tokens - r.expectedTokensAfter);
    assert.equal(p.expectedAfter, p.tokensBefore - p.expectedSaving);
    assert.deepEqual(previewCompaction(state, { tokensToFree: 0, ...keep(2) }).regions, []);
  });

  it('computes what the thresholds ask to free: soft and hard down to 50 % of the effective window', () => {
    const config = testConfig({ contextWindow: 200_000, outputReserve: 32_000, hardThreshold: 0.9 });
    assert.deepEqual(pressureOf(120_000, config, DEFAULT_COMPACTION_SETTINGS), {
      level: 'soft',
      utilisation: 120_000 / 168_000,
      tokensToFree: 120_000 - 84_000,
    });
    assert.deepEqual(pressureOf(155_000, config, DEFAULT_COMPACTION_SETTINGS), {
      level: 'hard',
      utilisation: 155_000 / 168_000,
      tokensToFree: 155_000 - 84_000,
    });
    assert.equal(pressureOf(50_000, config, DEFAULT_COMPACTION_SETTINGS).tokensToFree, 0);
    assert.equal(pressureOf(50_000, config, DEFAULT_COMPACTION_SETTINGS).level, 'ok');
  });
});
