import { strict as assert } from 'node:assert';
import {
  DEFAULT_COMPACTION_SETTINGS,
  hardTargetTokens,
  type CompactionSettings,
} from '../../src/core/compaction/policy';
import { planCompaction, STACKED_FOLD_NOTE } from '../../src/core/compaction/plan';
import { expectedSaving, markRegions } from '../../src/core/compaction/regions';
import type { ConversationState, Message } from '../../src/core/conversation/conversationModel';
import { testConfig } from './support/builders';
import { Convo, tokensOf } from './support/compactionFixtures';

const FIXED = 10_000;
const config = testConfig({
  contextWindow: 100_000,
  outputReserve: 10_000,
  keepRecentTurns: 0,
  keepRecentTokens: 4_000,
});
const stacked: CompactionSettings = {
  ...DEFAULT_COMPACTION_SETTINGS,
  summaryPolicy: 'stacked',
  maskToolResults: false,
};

/** Two stacked summaries of `summaryChars` characters each, then `turns` turns of tool rounds. */
function history(summaryChars: number, turns: number): ConversationState {
  const c = new Convo('sf');
  const messages: Message[] = [];
  for (let k = 1; k <= 2; k++) {
    const meta = {
      id: `sum${k}`,
      tier: 2 as const,
      source: 'compactor' as const,
      createdAt: 0,
      pinned: false,
      compactable: true,
    };
    messages.push(
      {
        id: `s${k}`,
        role: 'user',
        turn: k,
        blocks: [
          {
            type: 'summary',
            text: `Summary ${k}. ${'s'.repeat(summaryChars)}`,
            compactionId: `cmp${k}`,
            turnRange: [k, k],
            meta,
          },
        ],
      },
      {
        id: `a${k}`,
        role: 'assistant',
        turn: k,
        blocks: [{ type: 'text', text: 'Understood.', meta: { ...meta, id: `ack${k}` } }],
      },
    );
  }
  for (let t = 0; t < turns; t++)
    c.add({
      user: `Step ${t}: check the next module`,
      tools: Array.from({ length: 3 }, (_, i) => ({
        name: 'Read',
        input: { file_path: `m${t}_${i}.ts` },
        result: 'r'.repeat(4_000),
      })),
    });
  return { ...c.state({ config }), messages: [...messages, ...c.messages.map((m) => ({ ...m, turn: m.turn + 2 }))] };
}

const plan = (state: ConversationState, settings = stacked) =>
  planCompaction(state, { tokensOf, fixedTokens: FIXED, settings, cacheWarm: true, mode: 'auto' });

const regionSaving = (state: ConversationState, policy: 'stacked' | 'rolling') =>
  markRegions(state, { keepRecentTurns: 0, keepRecentTokens: 4_000, tokensOf, summaryPolicy: policy }).reduce(
    (n, r) => n + Math.max(0, expectedSaving(r)),
    0,
  );

describe('stacked summaries at the hard threshold', () => {
  it('are folded into the new summary when what is left could not take the prompt under the threshold', () => {
    const state = history(120_000, 5);
    const p = plan(state);
    assert.equal(p.pressure.level, 'hard');
    const target = hardTargetTokens(config, stacked);
    assert.ok(
      p.tokensBefore - regionSaving(state, 'stacked') > target,
      'without the summaries, no compaction could bring the prompt under the target',
    );
    assert.equal(p.action, 'summarise');
    const ids = new Set(p.regions.flatMap((r) => r.messageIds));
    assert.ok(ids.has('s1') && ids.has('s2'), 'both earlier summaries are in the region');
    assert.ok(p.expectedAfter <= target, `${p.expectedAfter} ≤ ${target}`);
    assert.ok(p.reason.endsWith(STACKED_FOLD_NOTE), p.reason);
  });

  it('stay when the rest is enough, and rolling folds them as it always does', () => {
    const state = history(20_000, 22);
    const p = plan(state);
    assert.equal(p.pressure.level, 'hard');
    assert.equal(p.action, 'summarise');
    const ids = new Set(p.regions.flatMap((r) => r.messageIds));
    assert.ok(!ids.has('s1') && !ids.has('s2'), 'the stacked summaries are left alone');
    assert.ok(!p.reason.includes(STACKED_FOLD_NOTE), p.reason);
    const rolling = plan(state, { ...stacked, summaryPolicy: 'rolling' });
    assert.ok(new Set(rolling.regions.flatMap((r) => r.messageIds)).has('s1'));
  });
});
