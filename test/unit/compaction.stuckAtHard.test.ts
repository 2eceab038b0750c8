import { strict as assert } from 'node:assert';
import { DEFAULT_COMPACTION_SETTINGS, minSoftSavingTokens } from '../../src/core/compaction/policy';
import { HARD_WAIT_LIMIT, planCompaction } from '../../src/core/compaction/plan';
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
 * When what must stay (a system prompt and tools of 70–80k tokens here) leaves little room
 * under the hard threshold, a compaction there frees a few thousand tokens and the next
 * request is over it again: summarising on every request was a loop (the Claude Code session
 * at a 40k window, with its 24k-token system prompt: 116 summaries in 157 requests). Now such
 * an edit waits until it frees a worthwhile amount or the prompt nears the window.
 */
describe('compaction when what must stay leaves little room under the hard threshold', () => {
  const eff = effectiveWindow(turn(1).config);
  const minSaving = minSoftSavingTokens(DEFAULT_COMPACTION_SETTINGS, eff);

  it('does not summarise a few thousand tokens over and over while the prompt still fits', () => {
    const p = plan(turn(4), 80_000);
    assert.equal(p.pressure.level, 'hard');
    assert.ok(p.tokensBefore <= eff, `${p.tokensBefore} fits ${eff}`);
    assert.equal(p.action, 'none');
    assert.equal(p.nextCompactionAt, Math.floor(HARD_WAIT_LIMIT * eff), 'the budget panel marks where it will run');
    assert.match(
      p.reason,
      /over the hard threshold \(90 %\), but compacting now would free only [\d,]+ tokens — the system prompt and tools take 80,000, and pinned content and the newest tokens stay — so the next requests would be over it again; compaction waits until it frees at least 9,000 tokens or the prompt nears the window \(87,300 tokens\)\./,
    );
  });

  it('waits too when the compaction would leave the threshold but frees little (it is back over it at once)', () => {
    const p = plan(turn(9), 73_000);
    assert.equal(p.pressure.level, 'hard');
    assert.ok(p.tokensBefore <= HARD_WAIT_LIMIT * eff, `${p.tokensBefore}`);
    assert.equal(p.action, 'none', p.reason);
    const q = planCompaction(turn(9), {
      tokensOf,
      fixedTokens: 73_000,
      settings: { ...DEFAULT_COMPACTION_SETTINGS, maskToolResults: false },
      cacheWarm: true,
      mode: 'manual',
    });
    assert.equal(q.action, 'summarise', 'Compact Now still compacts what there is');
    assert.ok(q.expectedAfter < 0.9 * eff && q.expectedSaving < minSaving, `${q.expectedAfter} / ${q.expectedSaving}`);
  });

  it('summarises once the prompt nears the window, or once it frees a worthwhile amount', () => {
    const over = plan(turn(12), 80_000);
    assert.ok(over.tokensBefore > HARD_WAIT_LIMIT * eff, `${over.tokensBefore} nears ${eff}`);
    assert.equal(over.action, 'summarise', over.reason);
    const worthwhile = plan(turn(13), 72_000);
    assert.ok(
      worthwhile.tokensBefore <= HARD_WAIT_LIMIT * eff && worthwhile.expectedSaving >= minSaving,
      worthwhile.reason,
    );
    assert.equal(worthwhile.action, 'summarise', worthwhile.reason);
  });

  it('still summarises at the hard threshold as always when the compaction leaves it', () => {
    const p = plan(turn(70), 10_000);
    assert.equal(p.pressure.level, 'hard');
    assert.equal(p.action, 'summarise', p.reason);
    assert.ok(p.expectedAfter < 0.9 * eff);
  });

  it('a compaction waiting past the soft threshold names the hard threshold as where it will run at the latest', () => {
    const p = plan(turn(16), 50_000);
    assert.equal(p.pressure.level, 'soft');
    assert.equal(p.action, 'none');
    assert.match(p.reason, /over the soft threshold; compacting now would not yet pay back/);
    assert.equal(p.nextCompactionAt, Math.round(0.9 * eff), 'not the soft threshold it has already passed');
  });
});
