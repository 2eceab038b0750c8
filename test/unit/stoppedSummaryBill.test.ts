import { strict as assert } from 'node:assert';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent, SessionSink } from '../../src/core/agent/events';
import { Compactor } from '../../src/core/compaction/compactor';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import type { CutUsage } from '../../src/core/llm/llmClient';
import { cutCostUsd } from '../../src/core/llm/cutRequest';
import { counterIds } from '../../src/core/platform/platformPorts';
import { encodeEntry, type SpendEntry } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import { migrateEntry } from '../../src/core/session/migrate';
import { SessionBill } from '../../src/app/sessionBill';
import { BudgetHistory, buildBudgetSnapshot } from '../../src/host/budget/budgetData';
import { TokenEstimator } from '../../src/core/tokens/estimator';
import { chars4Tokenizer } from '../../src/core/tokens/chars4';
import { fakeClock } from './support/builders';
import { Convo, tokensOf } from './support/compactionBuilders';
import { agentDeps } from './support/agentDeps';
import { LateSummariser } from './support/lateSummariser';
import { Counter } from './support/gate';
import { nullSink } from './support/sessionSink';
import { withStorePort } from './support/storePort';

const SMALL = 'claude-haiku-4-5';
/** The summariser's attempt when the Stop came: its prompt read, 2,100 characters of summary streamed. */
const CUT: CutUsage = {
  model: SMALL,
  streamedChars: 2100,
  usage: { input_tokens: 30_000, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
};
const CUT_USD = cutCostUsd(CUT, SMALL) ?? NaN;

/**
 * An agent over four turns with a real Compactor whose stopped summaries are reported to the
 * agent as the extension wires them (sessionCompactor.ts), its summariser held until the test
 * lets it settle, as the cut attempt it was.
 */
function world(sink: SessionSink) {
  const c = new Convo();
  for (let i = 1; i <= 4; i++) c.user(`Question ${i} about src/mod${i}.ts`).say(`Answer ${i}. ${'x'.repeat(2000)}`);
  const summariser = new LateSummariser({ ok: false, cut: CUT });
  const clock = fakeClock();
  const events: AgentEvent[] = [];
  const spent = new Counter();
  let agent: AgentSession | undefined = undefined;
  const compactor = new Compactor({
    summariser,
    clock,
    ids: counterIds('s'),
    tokensOf,
    measure: (s) => 500 + s.messages.reduce((n, m) => n + tokensOf(m), 0),
    settings: () => DEFAULT_COMPACTION_SETTINGS,
    timeout: () => new Promise(() => undefined),
    onStoppedSpend: (spend) => void agent?.stoppedSummary(spend),
  });
  const state = c.state({ keepRecentTurns: 1, keepRecentTokens: 0 });
  agent = new AgentSession(
    { ...state, config: { ...state.config, summarizerModel: SMALL } },
    agentDeps({ sink, clock, compactor }),
    (e) => {
      events.push(e);
      if (e.type === 'summary_spend') spent.bump();
    },
  );
  return { agent, summariser, events, spent };
}

/** Compact Now, stopped while the summary is being written; then the summariser settles. */
async function stopCompactNow(w: ReturnType<typeof world>): Promise<void> {
  const run = w.agent.commands.compactNow();
  await w.summariser.waiting.reached(1);
  assert.equal(w.agent.commands.stopCompaction(), true, "the progress's Cancel stops the running compaction");
  const r = await run;
  assert.equal(r.ok, false, 'nothing was compacted');
  assert.equal(w.agent.compactions.length, 0);
  assert.equal(w.agent.commands.stopCompaction(), false, 'none runs any more');
  assert.ok(!w.events.some((e) => e.type === 'summary_spend'), 'the request in flight has not settled yet');
  w.summariser.settle.open();
  await w.summariser.settle.wait();
  await w.spent.reached(1);
}

describe('a summary stopped before it was made: saved, billed, shown, exported', () => {
  it('its cut request is billed live and after a reopen, in the budget and the export, with the summaries', async () => {
    await withStorePort('cp-stopped-', Date.UTC(2026, 10, 30, 9, 0, 0), async (port) => {
      const open = await port.create('claude-sonnet-4-6');
      const w = world(open.sink);
      const bill = new SessionBill();
      bill.opened(open);
      const live = new BudgetHistory(open.requestHistory);
      await stopCompactNow(w);
      const spend = w.events.filter((e) => e.type === 'summary_spend');
      assert.deepEqual(spend, [{ type: 'summary_spend', model: SMALL, costUsd: CUT_USD }]);
      for (const e of w.events) {
        bill.observe(e);
        live.observe(e);
      }
      assert.equal(bill.costUsd, CUT_USD);
      assert.equal(bill.summariesCostUsd, CUT_USD);
      assert.deepEqual(live.stoppedSummaries, [{ costUsd: CUT_USD }]);
      // The budget panel's summaries share, and so its total, count it.
      const snapshot = buildBudgetSnapshot({
        session: open.id,
        state: w.agent.state,
        tokenizer: chars4Tokenizer,
        estimator: new TokenEstimator(chars4Tokenizer),
        history: live,
        compactions: [],
        busy: false,
      });
      assert.equal(snapshot.summariesCostUsd, CUT_USD);
      await open.close();

      const again = await port.open(open.id);
      assert.ok(again.ok);
      assert.equal(again.session.costUsd, CUT_USD, 'the reopened session costs the same');
      const reopened = new SessionBill();
      reopened.opened(again.session);
      assert.equal(reopened.summariesCostUsd, CUT_USD);
      assert.deepEqual(new BudgetHistory(again.session.requestHistory).stoppedSummaries, live.stoppedSummaries);
      await again.session.close();

      const md = await port.transcript(open.id);
      assert.ok(md.ok);
      const usd = `\\$${CUT_USD.toFixed(4)}`;
      assert.match(md.text, new RegExp(`Summaries cut short \\(stopped or timed out\\): 1, ${usd} \\(in the cost\\)`));
      assert.match(md.text, new RegExp(`Cost: ${usd}`));
    });
  });

  it('a spend line that cannot be saved: a notice says so, and the bill still counts it', async () => {
    const w = world(nullSink({ spend: async () => Promise.reject(new Error('ENOSPC: no space left on device')) }));
    await stopCompactNow(w);
    const notice = w.events.find((e) => e.type === 'notice' && /summary that was stopped was not kept/.test(e.text));
    assert.ok(notice, JSON.stringify(w.events.map((e) => e.type)));
    assert.match(notice.type === 'notice' ? notice.text : '', /ENOSPC/);
    const bill = new SessionBill();
    for (const e of w.events) bill.observe(e);
    assert.equal(bill.costUsd, CUT_USD);
  });

  it('the spend line reads back as written; a foreign purpose, a negative or a string cost is damage; v11 headers read as v12', () => {
    const line: SpendEntry = { type: 'spend', at: 5, for: 'summary', model: SMALL, costUsd: 0.0123 };
    for (const e of [line, { ...line, costUsd: undefined }]) {
      const { costUsd, ...rest } = e;
      const entry = costUsd === undefined ? rest : e;
      const r = decodeLine(encodeEntry(entry as SpendEntry));
      assert.ok(r.ok);
      assert.deepEqual(r.entry, entry);
    }
    for (const bad of [
      { ...line, for: 'handoff' },
      { ...line, costUsd: -1 },
      { ...line, costUsd: '0.01' },
    ])
      assert.equal(decodeLine(JSON.stringify(bad)).ok, false, JSON.stringify(bad));
    const v11 = {
      type: 'header',
      format: 'context-pipeline-session',
      version: 11,
      sessionId: 's',
      createdAt: 1,
      model: 'm',
      workspace: '',
    };
    assert.deepEqual(migrateEntry(v11, 11), { ...v11, version: 12 });
  });
});
