import { strict as assert } from 'node:assert';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import { planCompaction } from '../../src/core/compaction/plan';
import type { ConversationState } from '../../src/core/conversation/conversationModel';
import { testConfig } from './support/builders';
import { Convo, tokensOf } from './support/compactionFixtures';

const config = testConfig({
  contextWindow: 100_000,
  outputReserve: 10_000,
  keepRecentTurns: 0,
  keepRecentTokens: 3_000,
});

/** One request in progress: the user's words, then 16 tool rounds of ~2,000 tokens, the last result not yet answered. */
function longTurn(): ConversationState {
  const c = new Convo('mf');
  c.add({
    user: 'Please refactor every handler in src/handlers',
    tools: Array.from({ length: 16 }, (_, i) => ({
      name: i % 2 ? 'Read' : 'bash',
      input: i % 2 ? { file_path: `src/handlers/h${i}.ts` } : { command: `grep -n handler src/handlers/h${i}.ts` },
      result: `${i}: ${'x'.repeat(8_000)}`,
    })),
  });
  return c.state({ messages: c.messages.slice(0, -1), config });
}

/** The state with a pinned note in every assistant message: no region of it can be summarised. */
function withPinnedNotes(state: ConversationState): ConversationState {
  return {
    ...state,
    messages: state.messages.map((m) =>
      m.role !== 'assistant'
        ? m
        : {
            ...m,
            blocks: [
              ...m.blocks,
              {
                type: 'text',
                text: 'Pinned note.',
                meta: {
                  id: `${m.id}#pin`,
                  tier: 2,
                  source: 'assistant',
                  createdAt: 0,
                  pinned: true,
                  compactable: false,
                },
              },
            ],
          },
    ),
  };
}

const plan = (state: ConversationState, growthPerRequest: number) =>
  planCompaction(state, {
    tokensOf,
    fixedTokens: 50_000,
    settings: DEFAULT_COMPACTION_SETTINGS,
    cacheWarm: true,
    mode: 'auto',
    growthPerRequest,
  });

/**
 * At the hard threshold a mask used to go first whenever it left the threshold, paid back or
 * not; replayed on the Claude Code sessions at 100k, the summary then followed 6–19 requests
 * later: two cache rewrites where the summary alone is one. A mask now goes first there only
 * when it pays back within half its cycle, as everywhere else — or when no summary can run.
 */
describe('at the hard threshold a mask goes first only when it pays back', () => {
  it('masks when the prompt grows slowly enough for the mask to pay back its rewrite', () => {
    const p = plan(longTurn(), 500);
    assert.equal(p.pressure.level, 'hard');
    assert.equal(p.action, 'mask', p.reason);
  });

  it('summarises instead when the next compaction would come before the mask paid back', () => {
    const state = longTurn();
    const mask = plan(state, 500);
    const p = plan(state, 8_000);
    assert.ok(
      mask.paybackRequests > mask.expectedSaving / 8_000 / 2,
      'the mask would not pay back within half its cycle',
    );
    assert.equal(p.action, 'summarise', p.reason);
  });

  it('masks anyway when no summary can run', () => {
    const p = plan(withPinnedNotes(longTurn()), 8_000);
    assert.equal(p.pressure.level, 'hard');
    assert.equal(p.action, 'mask', p.reason);
  });
});
