import { strict as assert } from 'node:assert';
import { markRegions } from '../../src/core/compaction/regions';
import { settledSpend, type StoppedSpend } from '../../src/core/compaction/stoppedSpend';
import { summariseRegions } from '../../src/core/compaction/summarise';
import { requestCostUsd } from '../../src/core/llm/cost';
import { cutCostUsd } from '../../src/core/llm/cutRequest';
import type { CutUsage, LlmError, LlmResult } from '../../src/core/llm/llmClient';
import { plainTurns, summariseOpts, tokensOf } from './support/compactionFixtures';
import { ScriptedLlm } from './support/scriptedLlm';
import { LateSummariser } from './support/lateSummariser';
import { writeHandoff } from '../../src/core/handoff/writeHandoff';
import { Convo as HandoffConvo } from './support/compactionBuilders';
import { follow } from '../../src/core/agent/subagentRun';
import { startedFigures } from '../../src/core/subagents/subagentRecord';
import type { CompactionRecord } from '../../src/core/compaction/types';

const SMALL = 'claude-haiku-4-5';
const USAGE = { input_tokens: 40_000, output_tokens: 900, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
/** What a summariser attempt had used when it was cut: its prompt, and 1,400 characters of answer. */
const CUT: CutUsage = {
  model: SMALL,
  streamedChars: 1400,
  usage: { input_tokens: 40_000, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
};
const keep = (turns: number) => ({ keepRecentTurns: turns, keepRecentTokens: 0, tokensOf });

/** Lets `llm`'s held call settle, and waits until what follows it (its late pricing, no I/O) has run. */
async function settle(llm: LateSummariser): Promise<void> {
  llm.settle.open();
  await llm.settle.wait();
  await new Promise((r) => setImmediate(r));
}

/** Runs a summary of six turns with `llm`, stops it once the call waits, and collects what is reported as stopped spend. */
async function stopMidSummary(
  llm: LateSummariser,
): Promise<{ spends: StoppedSpend[]; aborted: boolean; records: number }> {
  const state = plainTurns(6, 3000).state();
  const stop = new AbortController();
  const spends: StoppedSpend[] = [];
  const run = summariseRegions(
    state,
    summariseOpts(markRegions(state, keep(2)), new ScriptedLlm([]), {
      summariser: llm,
      signal: stop.signal,
      onStoppedSpend: (s) => void spends.push(s),
    }),
  );
  await llm.waiting.reached(1);
  stop.abort();
  const out = await run; // returns at the Stop: the call has not settled yet
  return { spends, aborted: out.aborted, records: out.records.length };
}

describe('a summary stopped before it was made: what it spent is still reported', () => {
  it('prices a settled call: a whole answer as its usage, a cut one as its cut attempt; nothing when the answer never began', () => {
    const result: LlmResult = { content: [], stopReason: 'end_turn', usage: USAGE, model: SMALL };
    assert.deepEqual(settledSpend({ ok: true, result }, SMALL, '5m'), {
      costUsd: requestCostUsd(SMALL, USAGE),
      model: SMALL,
    });
    const aborted: LlmError = { kind: 'aborted', message: 'Stopped.', retryable: false };
    assert.deepEqual(settledSpend({ ok: false, error: { ...aborted, cut: CUT } }, SMALL, '5m'), {
      costUsd: cutCostUsd(CUT, SMALL),
      model: SMALL,
    });
    assert.equal(settledSpend({ ok: false, error: aborted }, SMALL, '5m'), undefined);
    assert.deepEqual(settledSpend({ ok: true, result }, 'claude-some-future-model', '5m'), {
      costUsd: 0,
      costUnknown: true,
      model: 'claude-some-future-model',
    });
  });

  it('the run ends at the Stop; the cut attempts before it are reported then, the call in flight once it settles', async () => {
    const llm = new LateSummariser({ ok: false, cut: CUT }, CUT);
    const { spends, aborted, records } = await stopMidSummary(llm);
    assert.equal(aborted, true);
    assert.equal(records, 0, 'no record holds this money');
    const cutUsd = cutCostUsd(CUT, SMALL) ?? NaN;
    assert.deepEqual(spends, [{ costUsd: cutUsd, model: SMALL }], 'the retried cut attempt, at the Stop');
    await settle(llm);
    assert.deepEqual(spends, [
      { costUsd: cutUsd, model: SMALL },
      { costUsd: cutUsd, model: SMALL },
    ]);
  });

  it('a client that ignores the abort and answers in full later: its whole answer is billed', async () => {
    const llm = new LateSummariser({ ok: true, usage: USAGE });
    const { spends, aborted } = await stopMidSummary(llm);
    assert.equal(aborted, true);
    assert.deepEqual(spends, [], 'nothing had been spent that is known yet');
    await settle(llm);
    assert.deepEqual(spends, [{ costUsd: requestCostUsd(SMALL, USAGE), model: SMALL }]);
  });

  it('a call stopped before its answer began bills nothing', async () => {
    const llm = new LateSummariser({ ok: false });
    const { spends } = await stopMidSummary(llm);
    await settle(llm);
    assert.deepEqual(spends, []);
  });
});

describe("a subagent's summaries are billed with its requests", () => {
  it('made or cut short, their cost goes into its figures; an unknown price makes its cost unknown', () => {
    const launcher = { describe: () => 'x' } as unknown as Parameters<typeof follow>[2];
    const start = startedFigures('child-1', 'explore', SMALL);
    const record = { costUsd: 0.002 } as unknown as CompactionRecord;
    const compacted = follow(start, { type: 'compaction_finished', records: [record], notices: [] }, launcher);
    assert.equal(compacted.compactions, 1);
    assert.equal(compacted.costUsd, 0.002);
    const cutShort = follow(compacted, { type: 'summary_spend', model: SMALL, costUsd: 0.003 }, launcher);
    assert.ok(Math.abs((cutShort.costUsd ?? NaN) - 0.005) < 1e-12);
    assert.equal(cutShort.compactions, 1, 'a summary cut short is no compaction');
    assert.equal(
      follow(cutShort, { type: 'summary_spend', model: SMALL, costUsd: undefined }, launcher).costUsd,
      undefined,
    );
    assert.equal(follow(start, { type: 'compaction_finished', records: [], notices: [] }, launcher), start);
  });
});

describe('a handoff note stopped while it is written', () => {
  it('writes no note, and reports what its request cost once it settles (billed to the session it summarises)', async () => {
    const c = new HandoffConvo();
    c.user('Fix the expiry check').read('src/auth.ts', 'export const ok = (t) => t.exp > Date.now();').say('Done.');
    const source = { sessionId: 's', title: 'Expiry', messages: c.messages, compactions: [] };
    const llm = new LateSummariser({ ok: false, cut: CUT }, CUT);
    const stop = new AbortController();
    const spends: StoppedSpend[] = [];
    const pending = writeHandoff(source, {
      llm,
      model: SMALL,
      signal: stop.signal,
      timeout: () => new Promise(() => undefined),
      onStoppedSpend: (s) => void spends.push(s),
    });
    await llm.waiting.reached(1);
    stop.abort();
    assert.deepEqual(await pending, { ok: false, stopped: true });
    const cutUsd = cutCostUsd(CUT, SMALL) ?? NaN;
    assert.deepEqual(spends, [{ costUsd: cutUsd, model: SMALL }], 'the retried cut attempt, at the Stop');
    await settle(llm);
    assert.deepEqual(spends, [
      { costUsd: cutUsd, model: SMALL },
      { costUsd: cutUsd, model: SMALL },
    ]);
  });
});
