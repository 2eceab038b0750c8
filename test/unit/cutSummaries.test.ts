import { strict as assert } from 'node:assert';
import type { CutUsage, LlmError } from '../../src/core/llm/llmClient';
import { requestCostUsd } from '../../src/core/llm/cost';
import { CutAttempts, cutBilledUsage } from '../../src/core/llm/cutRequest';
import { markRegions } from '../../src/core/compaction/regions';
import { summariseRegions } from '../../src/core/compaction/summarise';
import { writeHandoff } from '../../src/core/handoff/writeHandoff';
import { Convo as HandoffConvo } from './support/compactionBuilders';
import { answer, plainTurns, summariseOpts, tokensOf } from './support/compactionFixtures';
import { ScriptedLlm } from './support/scriptedLlm';

const SMALL = 'claude-haiku-4-5';
const USAGE = { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

/** An attempt of the summariser cut after 700 characters of its answer. */
const CUT: CutUsage = {
  model: SMALL,
  streamedChars: 700,
  usage: { input_tokens: 9000, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
};
const cutUsd = requestCostUsd(SMALL, cutBilledUsage(CUT)) ?? NaN;
const keep = (turns: number) => ({ keepRecentTurns: turns, keepRecentTokens: 0, tokensOf });

describe('requests cut mid-answer that a record pays for (a summary, a handoff note)', () => {
  it('counts the retried attempts and the failed one, each at its price; an unpriced model makes the cost unknown', () => {
    const cuts = new CutAttempts();
    cuts.onEvent({
      type: 'retrying',
      attempt: 1,
      waitMs: 1,
      error: { kind: 'network', message: 'x', retryable: true, cut: CUT },
    });
    cuts.onEvent({
      type: 'retrying',
      attempt: 2,
      waitMs: 1,
      error: { kind: 'overloaded', message: 'x', retryable: true },
    });
    const failed: LlmError = { kind: 'network', message: 'x', retryable: true, cut: CUT };
    cuts.failed(failed);
    assert.deepEqual(cuts.cost(SMALL), { usd: 2 * cutUsd, unknown: false });
    const unpriced = new CutAttempts();
    unpriced.failed({ ...failed, cut: { ...CUT, model: '' } });
    assert.deepEqual(unpriced.cost('claude-some-future-model'), { usd: 0, unknown: true });
  });

  it('a summary whose first attempt was cut costs that attempt too', async () => {
    const state = plainTurns(6, 3000).state();
    const llm = new ScriptedLlm([{ ...answer('The user asked to look at src/mod1/file1.ts.', USAGE), cutBefore: CUT }]);
    const out = await summariseRegions(state, summariseOpts(markRegions(state, keep(2)), llm));
    const rec = out.records[0];
    assert.ok(rec && rec.layer === 'summarise');
    const answered = requestCostUsd(SMALL, USAGE) ?? NaN;
    assert.ok(Math.abs(rec.costUsd - (answered + cutUsd)) < 1e-12, `${rec.costUsd} = ${answered} + ${cutUsd}`);
  });

  it('a summariser that fails mid-answer: the drop marker that stands in for the summary records what it cost', async () => {
    const state = plainTurns(6, 3000).state();
    const cutOff: LlmError = {
      kind: 'network',
      message: 'The connection closed mid-answer.',
      retryable: true,
      cut: CUT,
    };
    const out = await summariseRegions(
      state,
      summariseOpts(markRegions(state, keep(2)), new ScriptedLlm([{ error: cutOff }])),
    );
    assert.equal(out.failed, true);
    assert.equal(out.records[0]?.layer, 'fallback-drop');
    assert.equal(out.records[0]?.costUsd, cutUsd);
  });

  it('a handoff note whose first attempt was cut costs that attempt too', async () => {
    const c = new HandoffConvo();
    c.user('Fix the expiry check').read('src/auth.ts', 'export const ok = (t) => t.exp > Date.now();').say('Done.');
    const source = { sessionId: 's', title: 'Expiry', messages: c.messages, compactions: [] };
    const note = '## Goal\nFix the expiry check.\n## Decisions made\n- none\n## Open questions\n- none';
    const r = await writeHandoff(source, {
      llm: new ScriptedLlm([{ content: [{ type: 'text', text: note }], usage: USAGE, cutBefore: CUT }]),
      model: SMALL,
      signal: new AbortController().signal,
      timeout: () => new Promise(() => undefined),
    });
    assert.ok(r.ok);
    assert.ok(Math.abs(r.content.costUsd - ((requestCostUsd(SMALL, USAGE) ?? NaN) + cutUsd)) < 1e-12);
  });
});
