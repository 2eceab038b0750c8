import { strict as assert } from 'node:assert';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import { planCompaction } from '../../src/core/compaction/plan';
import { markRegions, protectedFrom } from '../../src/core/compaction/regions';
import type { ConversationState } from '../../src/core/conversation/conversationModel';
import { testConfig } from './support/builders';
import { Convo, tokensOf, type ToolStep } from './support/compactionFixtures';

const KEEP = 12_000;
const keep = { keepRecentTurns: 0, keepRecentTokens: KEEP, tokensOf };

/** A small tool round: a read of ~1k tokens. */
const small = (i: number): ToolStep => ({
  name: 'Read',
  input: { file_path: `src/m${i}.ts` },
  result: `${i}: ${'y'.repeat(4_000)}`,
});

/**
 * A turn in progress whose first tool round is one huge call (`hugeChars` of input, a Write
 * of a generated file), then `after` small rounds; the last result is not answered yet.
 */
function hugeRoundTurn(hugeChars: number, after: number): ConversationState {
  const c = new Convo('hr');
  c.add({
    user: 'Generate the fixtures, then check every module that reads them',
    tools: [
      { name: 'Write', input: { file_path: 'fixtures/all.json', content: 'z'.repeat(hugeChars) }, result: 'written' },
      ...Array.from({ length: after }, (_, i) => small(i)),
    ],
  });
  return c.state({
    messages: c.messages.slice(0, -1),
    config: testConfig({ contextWindow: 100_000, outputReserve: 25_000, keepRecentTurns: 1 }),
  });
}

const tailTokens = (s: ConversationState, from: number) => s.messages.slice(from).reduce((n, m) => n + tokensOf(m), 0);

describe('a huge tool round inside the turn in progress', () => {
  it('is not protected for the budget’s sake: the protected tail starts after it', () => {
    const state = hugeRoundTurn(240_000, 9);
    const from = protectedFrom(state.messages, keep);
    assert.equal(from, 3, 'the cut is before the first round after the huge one (its call at 1, its result at 2)');
    assert.equal(state.messages[from]?.role, 'assistant');
    const kept = tailTokens(state, from);
    assert.ok(kept < KEEP, `a little under the budget is protected (${kept}), not the huge round`);
  });

  it('a round up to twice the budget is still protected whole, as before', () => {
    const state = hugeRoundTurn(4 * 14_000, 9);
    const from = protectedFrom(state.messages, keep);
    assert.equal(from, 1, 'the cut goes back before the big call');
    assert.ok(tailTokens(state, from) > KEEP);
  });

  it('the last tool round stays protected however big it is', () => {
    const state = hugeRoundTurn(240_000, 0);
    assert.equal(protectedFrom(state.messages, keep), 1, 'the huge call is the last round: it stays');
  });

  it('at the hard threshold the plan summarises the huge round instead of finding nothing to compact', () => {
    const state = hugeRoundTurn(240_000, 9);
    assert.equal(markRegions(state, keep).length, 1, 'one region: the words and the huge round');
    const p = planCompaction(state, {
      tokensOf,
      fixedTokens: 3_000,
      settings: { ...DEFAULT_COMPACTION_SETTINGS, maskToolResults: false },
      cacheWarm: true,
      mode: 'auto',
    });
    assert.equal(p.pressure.level, 'hard', `utilisation ${p.pressure.utilisation}`);
    assert.equal(p.action, 'summarise', p.reason);
    assert.ok(p.expectedSaving > 40_000, `the huge round goes (${p.expectedSaving})`);
  });
});
