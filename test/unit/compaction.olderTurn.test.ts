import { strict as assert } from 'node:assert';
import {
  DEFAULT_COMPACTION_SETTINGS,
  effectiveWindow,
  keepRecentTokensFor,
  KEEP_RECENT_MAX_ROOM_SHARE,
} from '../../src/core/compaction/policy';
import { planCompaction } from '../../src/core/compaction/plan';
import { isCutPoint, markRegions, pickRegions, protectedFrom } from '../../src/core/compaction/regions';
import { summariseRegions } from '../../src/core/compaction/summarise';
import { IN_TURN_NOTE, SUMMARY_ACK } from '../../src/core/compaction/summaryReplacement';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { ConversationState, Message } from '../../src/core/conversation/conversationModel';
import { testConfig } from './support/builders';
import { answer, Convo, summariseOpts, tokensOf } from './support/compactionFixtures';
import { ScriptedLlm } from './support/scriptedLlm';

/**
 * A finished long turn (`rounds` tool rounds of `resultChars` each), then a short new request
 * in progress (its words and one tool round whose result is not answered yet).
 */
function longOlderTurn(rounds: number, resultChars: number, config = testConfig()): ConversationState {
  const c = new Convo('ot');
  c.add({
    user: 'Port every selector in src/selectors to the new theme API',
    tools: Array.from({ length: rounds }, (_, i) => ({
      name: 'Read',
      input: { file_path: `src/selectors/s${i}.ts` },
      result: `${i}: ${'x'.repeat(resultChars)}`,
    })),
  });
  c.add({
    user: 'Thanks. Now run the tests',
    tools: [{ name: 'bash', input: { command: 'npm test' }, result: 'ok' }],
  });
  return c.state({ messages: c.messages.slice(0, -1), config });
}

const keep = (tokens: number) => ({ keepRecentTurns: 0, keepRecentTokens: tokens, tokensOf });

describe('compaction of a long older turn', () => {
  it('a token budget reaching into a long older turn protects only its newest rounds, not the whole turn', () => {
    const state = longOlderTurn(30, 2_000);
    const olderStart = 0;
    const newStart = state.messages.findIndex((m, i) => i > 0 && m.role === 'user' && m.turn === 2);
    const from = protectedFrom(state.messages, keep(5_000));
    assert.ok(from > olderStart && from < newStart, `the cut falls inside the older turn (${from} of ${newStart})`);
    assert.equal(state.messages[from]?.role, 'assistant', 'cut before one of its assistant messages');
    const kept = state.messages.slice(from).reduce((n, m) => n + tokensOf(m), 0);
    assert.ok(kept >= 5_000 && kept < 5_000 + 2_000, `about the budget is protected (${kept})`);
  });

  it('summarises the older turn up to the cut: its words first, the in-turn note, a valid history', async () => {
    const state = longOlderTurn(30, 2_000);
    const regions = pickRegions(markRegions(state, keep(5_000)), Infinity);
    assert.equal(regions.length, 1);
    assert.equal(regions[0]?.firstTurn, 1);
    assert.equal(regions[0]?.lastTurn, 1);
    const out = await summariseRegions(state, summariseOpts(regions, new ScriptedLlm([answer('Read s0–s26.')])));
    const first = out.state.messages[0] as Message;
    assert.ok(first.blocks[0]?.type === 'text' && first.blocks[0].text.startsWith('Port every selector'));
    assert.ok(first.blocks[1]?.type === 'summary' && first.blocks[1].text.includes(IN_TURN_NOTE));
    assert.equal(out.state.messages[1]?.role, 'assistant', 'the older turn goes on with its next tool round');
    assert.deepEqual(checkInvariants(out.state), []);
    assert.ok((out.records[0]?.tokensAfter ?? Infinity) < (out.records[0]?.tokensBefore ?? 0));
  });

  it('at the hard threshold the plan summarises inside the older turn instead of finding nothing to compact', () => {
    const config = testConfig({ contextWindow: 64_000, outputReserve: 16_000, keepRecentTurns: 3 });
    const state = longOlderTurn(28, 6_000, config);
    const p = planCompaction(state, {
      tokensOf,
      fixedTokens: 3_000,
      settings: { ...DEFAULT_COMPACTION_SETTINGS, maskToolResults: false },
      cacheWarm: true,
      mode: 'auto',
    });
    assert.equal(p.pressure.level, 'hard', `utilisation ${p.pressure.utilisation}`);
    assert.equal(p.action, 'summarise', p.reason);
    assert.ok(p.expectedAfter < config.hardThreshold * effectiveWindow(config), `${p.expectedAfter}`);
  });

  it("never cuts between two messages of one compaction's replacement", async () => {
    const state = longOlderTurn(6, 400);
    const c = new Convo('w');
    c.add({ user: 'one', answer: `a1 ${'x'.repeat(4_000)}` });
    c.add({ user: 'two', answer: `a2 ${'x'.repeat(4_000)}` });
    const whole = { ...state, messages: [...c.messages, ...state.messages.map((m) => ({ ...m, turn: m.turn + 2 }))] };
    const out = await summariseRegions(
      whole,
      summariseOpts(
        [
          {
            firstTurn: 1,
            lastTurn: 2,
            messageIds: c.messages.map((m) => m.id),
            tokens: c.messages.reduce((n, m) => n + tokensOf(m), 0),
          },
        ],
        new ScriptedLlm([answer('Turns one and two.')]),
      ),
    );
    const ack = out.state.messages.findIndex((m) => m.blocks.some((b) => b.type === 'text' && b.text === SUMMARY_ACK));
    assert.equal(ack, 1, 'summary, then its acknowledgement');
    assert.equal(isCutPoint(out.state.messages, ack), false, 'not between the summary and its acknowledgement');
    assert.equal(isCutPoint(out.state.messages, ack + 1), true, 'after the pair: the next turn starts');
  });
});

describe('keepRecentTokensFor', () => {
  const config = testConfig({ contextWindow: 64_000, outputReserve: 16_000, keepRecentTokens: 12_000 });
  const s = DEFAULT_COMPACTION_SETTINGS;
  const room = (fixed: number) => (config.hardThreshold - s.hardBuffer) * effectiveWindow(config) - fixed;

  it("keeps the config's figure when the fixed prompt leaves room", () => {
    assert.equal(keepRecentTokensFor(config, s, 2_000), 12_000);
  });

  it('caps the tail to a share of the room a large system prompt leaves', () => {
    const k = keepRecentTokensFor(config, s, 24_000);
    assert.equal(k, Math.floor(KEEP_RECENT_MAX_ROOM_SHARE * room(24_000)));
    assert.ok(k < 12_000 && k > 0);
  });

  it('is 0 when the fixed prompt alone fills the room, never negative', () => {
    assert.equal(keepRecentTokensFor(config, s, 60_000), 0);
  });

  it('is what the plan protects with', () => {
    const state = longOlderTurn(10, 2_000, config);
    const p = planCompaction(state, { tokensOf, fixedTokens: 24_000, settings: s, cacheWarm: true, mode: 'auto' });
    assert.equal(p.keepRecentTokens, keepRecentTokensFor(config, s, 24_000));
  });
});
