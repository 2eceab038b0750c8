import { strict as assert } from 'node:assert';
import { DEFAULT_COMPACTION_SETTINGS, minSoftSavingTokens } from '../../src/core/compaction/policy';
import { planCompaction } from '../../src/core/compaction/plan';
import type { ConversationState } from '../../src/core/conversation/conversationModel';
import { effectiveWindow } from '../../src/core/pipeline/window';
import { testConfig } from './support/builders';
import { Convo, tokensOf } from './support/compactionFixtures';

/** One request in progress in a 100k window (10k reserve): the user's words, then `rounds` reads of ~1 000 tokens. */
function turn(rounds: number): ConversationState {
  const c = new Convo('st');
  c.add({
    user: 'Audit every handler in src/handlers',
    tools: Array.from({ length: rounds }, (_, i) => ({
      name: 'Read',
      input: { file_path: `src/handlers/h${i}.ts` },
      result: `${i}: ${'x'.repeat(4_000)}`,
    })),
  });
  const config = testConfig({ contextWindow: 100_000, outputReserve: 10_000, keepRecentTurns: 0 });
  return c.state({ messages: c.messages.slice(0, -1), config });
}

const plan = (state: ConversationState, fixedTokens: number) =>
  planCompaction(state, {
    tokensOf,
    fixedTokens,
    settings: { ...DEFAULT_COMPACTION_SETTINGS, maskToolResults: false },
    cacheWarm: true,
    mode: 'auto',
    growthPerRequest: 1_000,
  });

/**
 * When what must stay (a system prompt and tools of 80k tokens here) leaves no room under the
 * hard threshold, no compaction can leave it: summarising the little history there is on
 * every request was a loop (a 64k-token system prompt in a 100k window: 83 summaries in 157
 * requests). Now such an edit waits until it frees a worthwhile amount or the prompt would
 * not fit the window.
 */
describe('compaction when what must stay leaves no room under the hard threshold', () => {
  const eff = effectiveWindow(turn(1).config);
  const minSaving = minSoftSavingTokens(DEFAULT_COMPACTION_SETTINGS, eff);

  it('does not summarise a few thousand tokens over and over while the prompt still fits', () => {
    const p = plan(turn(4), 80_000);
    assert.equal(p.pressure.level, 'hard');
    assert.ok(p.tokensBefore <= eff, `${p.tokensBefore} fits ${eff}`);
    assert.equal(p.action, 'none');
    assert.match(
      p.reason,
      /over the hard threshold \(90 %\), but what must stay — the system prompt and tools \(80,000 tokens\), pinned content and the newest tokens — leaves too little under it: compacting now would free only [\d,]+ tokens and the next request would be over it again, so compaction waits until it frees at least 9,000 tokens or the prompt would not fit \(90,000 tokens\)\./,
    );
  });

  it('summarises once the prompt would not fit the window, or once it frees a worthwhile amount', () => {
    const over = plan(turn(12), 80_000);
    assert.ok(over.tokensBefore > eff, `${over.tokensBefore} > ${eff}`);
    assert.equal(over.action, 'summarise', over.reason);
    const worthwhile = plan(turn(12), 76_000);
    assert.ok(worthwhile.tokensBefore <= eff && worthwhile.expectedSaving >= minSaving, worthwhile.reason);
    assert.equal(worthwhile.action, 'summarise', worthwhile.reason);
  });

  it('still summarises at the hard threshold as always when the compaction leaves it', () => {
    const p = plan(turn(70), 10_000);
    assert.equal(p.pressure.level, 'hard');
    assert.equal(p.action, 'summarise', p.reason);
    assert.ok(p.expectedAfter < 0.9 * eff);
  });
});
