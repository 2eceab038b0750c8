import { strict as assert } from 'node:assert';
import { restoreRecord } from '../../src/core/compaction/apply';
import { Compactor } from '../../src/core/compaction/compactor';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings } from '../../src/core/compaction/policy';
import { planCompaction } from '../../src/core/compaction/plan';
import { markRegions, pickRegions } from '../../src/core/compaction/regions';
import { summariseRegions } from '../../src/core/compaction/summarise';
import { CONTINUE_NOTE, IN_TURN_NOTE } from '../../src/core/compaction/summaryReplacement';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { ConversationState, Message } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { fakeClock, testConfig } from './support/builders';
import { answer, Convo, summariseOpts, tokensOf } from './support/compactionFixtures';
import { ScriptedLlm } from './support/scriptedLlm';

/** One request in progress: the user's words, then `rounds` tool rounds, the last result not yet answered. */
function longTurn(
  rounds: number,
  resultChars = 2_000,
  config = testConfig({ keepRecentTurns: 0, keepRecentTokens: 2_000 }),
): ConversationState {
  const c = new Convo('lt');
  c.add({
    user: 'Please refactor every handler in src/handlers',
    tools: Array.from({ length: rounds }, (_, i) => ({
      name: i % 2 ? 'Read' : 'bash',
      input: i % 2 ? { file_path: `src/handlers/h${i}.ts` } : { command: `grep -n handler src/handlers/h${i}.ts` },
      result: `${i}: ${'x'.repeat(resultChars)}`,
    })),
  });
  return c.state({ messages: c.messages.slice(0, -1), config });
}

const settings = (over: Partial<CompactionSettings> = {}): CompactionSettings => ({
  ...DEFAULT_COMPACTION_SETTINGS,
  ...over,
});
const opts = { keepRecentTurns: 0, keepRecentTokens: 2_000, tokensOf };

describe('compaction inside the turn in progress', () => {
  it('marks a region that ends before an assistant message of the turn in progress, keeping the last tool round', () => {
    const state = longTurn(20);
    const [region, ...rest] = markRegions(state, opts);
    assert.ok(region && rest.length === 0);
    assert.equal(region.messageIds[0], state.messages[0]?.id, 'starts at the user words');
    const end = state.messages.findIndex((m) => m.id === region.messageIds.at(-1)) + 1;
    assert.equal(state.messages[end]?.role, 'assistant', 'cut before an assistant message');
    assert.ok(end <= state.messages.length - 2, 'the last tool round stays');
    const kept = state.messages.slice(end).reduce((n, m) => n + tokensOf(m), 0);
    assert.ok(kept >= 2_000, `the newest tokens stay (${kept})`);
  });

  it('keeps the whole turn when asked to keep one turn (below the hard threshold)', () => {
    assert.deepEqual(markRegions(longTurn(20), { ...opts, keepRecentTurns: 1 }), []);
  });

  it('summarises inside the turn: the request stays verbatim first, the summary after it, valid history', async () => {
    const state = longTurn(20);
    const regions = pickRegions(markRegions(state, opts), Infinity);
    const out = await summariseRegions(
      state,
      summariseOpts(regions, new ScriptedLlm([answer('Read h1–h17; handlers share `parseReq`.')])),
    );
    assert.equal(out.records.length, 1);
    const first = out.state.messages[0] as Message;
    assert.equal(first.role, 'user');
    assert.equal(
      first.blocks[0]?.type === 'text' && first.blocks[0].text,
      'Please refactor every handler in src/handlers',
    );
    assert.equal(first.blocks[1]?.type, 'summary');
    assert.ok(first.blocks[1]?.type === 'summary' && first.blocks[1].text.includes(IN_TURN_NOTE));
    assert.equal(out.state.messages[1]?.role, 'assistant', 'the turn goes on with the next tool round');
    assert.deepEqual(checkInvariants(out.state), []);
    assert.ok(out.records[0] && out.records[0].tokensAfter < out.records[0].tokensBefore);
  });

  it('stacked: a second in-turn summary starts at an assistant message and leaves the first alone', async () => {
    let state = longTurn(20);
    const llm = new ScriptedLlm([answer('First part.'), answer('Second part.')]);
    const ids = counterIds('s');
    const one = await summariseRegions(
      state,
      summariseOpts(pickRegions(markRegions(state, opts), Infinity), llm, { ids }),
    );
    state = one.state;
    const more = new Convo('m2');
    more.add({
      user: 'x',
      tools: Array.from({ length: 12 }, (_, i) => ({
        name: 'read_file',
        input: { path: `b${i}.ts` },
        result: 'y'.repeat(2_000),
      })),
    });
    state = { ...state, messages: [...state.messages, ...more.messages.slice(1, -1).map((m) => ({ ...m, turn: 1 }))] };
    const regions = markRegions(state, { ...opts, summaryPolicy: 'stacked' });
    assert.equal(regions.length, 1);
    assert.ok(
      !regions[0]?.messageIds.includes(state.messages[0]?.id as string),
      'the first summary is not re-summarised',
    );
    const two = await summariseRegions(state, summariseOpts(regions, llm, { ids }));
    assert.equal(two.records.length, 1);
    const rep = two.records[0]?.replacement ?? [];
    assert.equal(rep[0]?.role, 'assistant');
    assert.ok(rep[0]?.blocks[0]?.type === 'text' && rep[0].blocks[0].text === CONTINUE_NOTE);
    assert.deepEqual(checkInvariants(two.state), []);
    // Either record restores in any order: stacked summaries never swallow each other.
    const back = restoreRecord(two.state, one.records[0] as never);
    assert.ok(back.ok);
  });

  it('rolling: the next summary folds the previous one in; restoring the older one first is refused with the reason', async () => {
    let state = longTurn(20);
    const llm = new ScriptedLlm([answer('First part.'), answer('Both parts.')]);
    const ids = counterIds('r');
    const one = await summariseRegions(
      state,
      summariseOpts(pickRegions(markRegions(state, opts), Infinity), llm, { ids }),
    );
    state = one.state;
    const more = new Convo('m3');
    more.add({
      user: 'x',
      tools: Array.from({ length: 12 }, (_, i) => ({
        name: 'read_file',
        input: { path: `c${i}.ts` },
        result: 'z'.repeat(2_000),
      })),
    });
    state = { ...state, messages: [...state.messages, ...more.messages.slice(1, -1).map((m) => ({ ...m, turn: 1 }))] };
    const regions = markRegions(state, { ...opts, summaryPolicy: 'rolling' });
    assert.equal(regions[0]?.messageIds[0], state.messages[0]?.id, 'the head summary joins the region');
    const two = await summariseRegions(state, summariseOpts(regions, llm, { ids }));
    assert.equal(
      two.state.messages.filter((m) => m.blocks.some((b) => b.type === 'summary')).length,
      1,
      'one summary at the head',
    );
    assert.ok(JSON.stringify(llm.requests[1]).includes('First part.'), 'the summariser saw the previous summary');
    assert.ok(
      JSON.stringify(two.state.messages[0]).includes('Please refactor every handler'),
      'the words survive both',
    );
    const refused = restoreRecord(two.state, one.records[0] as never);
    assert.ok(!refused.ok && /later compaction/.test(refused.reason));
    const back = restoreRecord(two.state, two.records[0] as never);
    assert.ok(back.ok);
    assert.ok(restoreRecord(back.state, one.records[0] as never).ok, 'then the older one restores');
    assert.deepEqual(checkInvariants(two.state), []);
  });
});

describe('compaction plan (cache-aware)', () => {
  const config = testConfig({
    contextWindow: 100_000,
    outputReserve: 10_000,
    keepRecentTurns: 0,
    keepRecentTokens: 3_000,
  });
  /** A turn in progress of 12 rounds whose calls are as large as their results: masking clears only half of each. */
  const writeRounds = (id: string): ConversationState => {
    const c = new Convo(id);
    c.add({
      user: 'Write every generated module',
      tools: Array.from({ length: 12 }, (_, i) => ({
        name: 'Write',
        input: { file_path: `src/gen/m${i}.ts`, content: 'c'.repeat(12_000) },
        result: `${i}: ${'r'.repeat(12_000)}`,
      })),
    });
    return c.state({ messages: c.messages.slice(0, -1), config });
  };
  const plan = (state: ConversationState, over: { cacheWarm?: boolean; settings?: Partial<CompactionSettings> } = {}) =>
    planCompaction(state, {
      tokensOf,
      fixedTokens: 2_000,
      settings: settings(over.settings),
      cacheWarm: over.cacheWarm ?? true,
      mode: 'auto',
    });

  it('does nothing while the saving is smaller than the chunk size', () => {
    const p = plan(longTurn(6, 1_000, config));
    assert.equal(p.action, 'none');
    assert.ok(/soft threshold/.test(p.reason));
    assert.ok(
      p.nextCompactionAt > p.tokensBefore && p.nextCompactionAt <= Math.round(0.7 * 90_000),
      `the next summary is expected between now (${p.tokensBefore}) and the soft threshold (${p.nextCompactionAt})`,
    );
    assert.ok(p.nextCompactionAt >= 0.2 * 90_000, 'not before a summary could free 20 % of the window');
    const off = plan(longTurn(6, 1_000, config), { settings: { softAction: 'off' } });
    assert.equal(off.nextCompactionAt, Math.round(0.9 * 90_000), 'off: nothing before the hard threshold');
    const proposeOnly = plan(longTurn(6, 1_000, config), { settings: { softAction: 'propose' } });
    assert.ok(/hard threshold/.test(proposeOnly.reason) && proposeOnly.nextCompactionAt === Math.round(0.7 * 90_000));
  });

  it('a short conversation expects its first summary once it outgrows the kept tokens by the minimum saving', () => {
    const short = new Convo().add({ user: 'What does greet do?', answer: 'It greets.' }).state({ config });
    const p = plan(short);
    assert.equal(p.action, 'none');
    assert.ok(p.protectedTokens < 100, 'today the whole conversation is protected');
    const minEarly = Math.min(40_000, 0.2 * 90_000);
    assert.equal(p.nextCompactionAt, 2_000 + 3_000 + minEarly, 'system and tools + the 3,000 kept tokens + 20 %');
  });

  it('masks older tool results in a warm cache once they pay the rewrite back, with the figures', () => {
    const p = plan(longTurn(30, 4_000, config));
    assert.ok(p.pressure.level === 'ok', `below the soft threshold (${p.pressure.utilisation})`);
    assert.equal(p.action, 'mask');
    assert.ok(p.paybackRequests <= DEFAULT_COMPACTION_SETTINGS.paybackRequests);
    assert.ok(p.rewriteTokens > 0 && p.expectedCostUsd > 0 && p.expectedSaving >= 9_000);
    assert.ok(
      p.mask.every((c) => c.site.messageIndex < p.protectedFrom),
      'never inside the protected tail',
    );
    const never = plan(longTurn(30, 4_000, config), { settings: { paybackRequests: 0.5 } });
    assert.equal(never.action, 'none', 'not when it would not pay back in time');
  });

  it('masks when the cache is cold, whatever the payback (the prompt is written again anyway)', () => {
    const p = plan(longTurn(30, 4_000, config), { cacheWarm: false, settings: { paybackRequests: 0.5 } });
    assert.equal(p.action, 'mask');
    assert.equal(p.rewriteTokens, 0);
  });

  it('at the hard threshold summarises inside the turn when masking cannot free enough', () => {
    const p = plan(longTurn(40, 8_000, config), { settings: { maskToolResults: false } });
    assert.equal(p.pressure.level, 'hard');
    assert.equal(p.action, 'summarise');
    assert.equal(p.keepRecentTurns, 0);
    assert.ok(p.regions.length === 1 && p.expectedAfter < 0.5 * 90_000);
  });

  it('at the hard threshold masks first when that alone leaves the threshold with its buffer, else summarises', () => {
    const state = longTurn(16, 8_000, config);
    const at = (fixedTokens: number) =>
      planCompaction(state, { tokensOf, fixedTokens, settings: settings(), cacheWarm: true, mode: 'auto' });
    const p = at(50_000);
    assert.equal(p.pressure.level, 'hard');
    assert.ok(p.expectedSaving < p.pressure.tokensToFree, 'masking does not reach the soft target');
    assert.equal(p.action, 'mask', p.reason);
    assert.ok(p.expectedAfter <= 0.8 * 90_000 && /summarising waits/.test(p.reason));
    const tooBig = at(70_000);
    assert.equal(tooBig.pressure.level, 'hard');
    assert.equal(tooBig.action, 'summarise', 'masking would stay above the hard threshold minus its buffer');
  });

  it('at the hard threshold does not mask when the next request’s growth would take it over again and a summary leaves more room', () => {
    const state = writeRounds('grow');
    // softAction off: no summary before the next hard threshold, so only the next request's growth matters.
    const at = (growthPerRequest?: number, softAction: CompactionSettings['softAction'] = 'off') =>
      planCompaction(state, {
        tokensOf,
        fixedTokens: 12_000,
        settings: settings({ softAction }),
        cacheWarm: true,
        mode: 'auto',
        ...(growthPerRequest !== undefined ? { growthPerRequest } : {}),
      });
    const masked = at(1_000);
    assert.equal(masked.action, 'mask', masked.reason);
    const room = config.hardThreshold * 90_000 - masked.expectedAfter;
    assert.equal(at(room - 500).action, 'mask', 'the next request stays under the threshold');
    const loop = at(room + 500);
    assert.equal(loop.action, 'summarise', `a mask now would be followed by another next request: ${loop.reason}`);
    assert.ok(loop.expectedAfter < masked.expectedAfter, 'the summary leaves more room');
  });

  it('at the hard threshold does not mask when the summary would follow at the soft threshold before the mask paid back', () => {
    const state = writeRounds('soon');
    const at = (growthPerRequest: number) =>
      planCompaction(state, {
        tokensOf,
        fixedTokens: 12_000,
        settings: settings(),
        cacheWarm: true,
        mode: 'auto',
        growthPerRequest,
      });
    const slow = at(500);
    assert.equal(slow.action, 'mask', slow.reason);
    const untilSoft = (config.softThreshold * 90_000 - slow.expectedAfter) / 500;
    assert.ok(
      slow.paybackRequests <= untilSoft,
      `pays back (${slow.paybackRequests}) before the soft threshold (${untilSoft})`,
    );
    const fast = at(1_000);
    assert.ok(
      slow.paybackRequests > (config.softThreshold * 90_000 - slow.expectedAfter) / 1_000,
      'it would not at 1,000',
    );
    assert.equal(fast.action, 'summarise', `the cache would be written twice: ${fast.reason}`);
  });

  it('over the soft threshold, waits while a summary would not pay back within half its cycle; at the hard threshold never', () => {
    const soft = longTurn(33, 8_000, config);
    const at = (g: number | undefined) =>
      planCompaction(soft, {
        tokensOf,
        fixedTokens: 2_000,
        settings: settings({ maskToolResults: false }),
        cacheWarm: true,
        mode: 'auto',
        ...(g !== undefined ? { growthPerRequest: g } : {}),
      });
    assert.equal(at(undefined).pressure.level, 'soft');
    assert.equal(at(200).action, 'summarise', 'slow growth: the saving lasts many requests');
    const fast = at(40_000);
    assert.equal(fast.action, 'none', 'fast growth: the next compaction would come before this one paid back');
    assert.ok(/pay back/.test(fast.reason));
    assert.equal(plan(longTurn(40, 8_000, config), { settings: { maskToolResults: false } }).action, 'summarise');
  });

  it('below the soft threshold summarises once it pays back within half its cycle and frees enough; only where soft compactions may run', () => {
    const state = longTurn(22, 8_000, config);
    const at = (over: { g?: number; cacheWarm?: boolean; settings?: Partial<CompactionSettings> } = {}) =>
      planCompaction(state, {
        tokensOf,
        fixedTokens: 2_000,
        settings: settings({ maskToolResults: false, ...over.settings }),
        cacheWarm: over.cacheWarm ?? true,
        mode: 'auto',
        growthPerRequest: over.g ?? 500,
      });
    const slow = at();
    assert.equal(slow.pressure.level, 'ok', `below the soft threshold (${slow.pressure.utilisation})`);
    assert.equal(slow.action, 'summarise', slow.reason);
    assert.ok(slow.expectedSaving >= 0.2 * 90_000 && /pay back/.test(slow.reason));
    assert.ok(slow.rewriteTokens > 0, 'warm: the rewrite of the protected tail is priced');
    assert.equal(at({ g: 3_000 }).action, 'none', 'faster growth: the next compaction comes before it paid back');
    const cold = at({ g: 3_000, cacheWarm: false });
    assert.equal(cold.rewriteTokens, 0);
    assert.equal(cold.action, 'summarise', 'cold: only the summariser is paid, so it pays back sooner');
    assert.ok(/cold/.test(cold.reason));
    for (const softAction of ['propose', 'off'] as const)
      assert.equal(at({ settings: { softAction } }).action, 'none', `softAction ${softAction}`);
    assert.equal(at({ settings: { minEarlySavingShare: 0.9 } }).action, 'none', 'frees too little of the window');
  });

  it('the Compact Now preview is the plan the run executes (summarise and removal strategies)', async () => {
    for (const strategy of ['summarise', 'oldest-removal', 'middle-removal', 'hybrid'] as const) {
      const c = new Convo(`pv${strategy}`);
      for (let i = 1; i <= 8; i++)
        c.add({
          user: `Request ${i}`,
          tools: [{ name: 'read_file', input: { path: `f${i}.ts` }, result: 'r'.repeat(3_000) }],
          answer: `Answer ${i} ${'a'.repeat(500)}`,
        });
      const state = c.state({ config });
      const compactor = new Compactor({
        summariser: new ScriptedLlm(Array.from({ length: 4 }, () => answer('Summary.'))),
        clock: fakeClock(),
        ids: counterIds('q'),
        tokensOf,
        measure: (s) => 2_000 + s.messages.reduce((n, m) => n + tokensOf(m), 0),
        settings: () => settings({ strategy }),
        timeout: () => new Promise(() => undefined),
      });
      const preview = await compactor.preview(state);
      const run = await compactor.compact(state, {
        trigger: 'manual',
        tokensToFree: 'all',
        signal: new AbortController().signal,
      });
      const ran = run.records.flatMap((r) => r.regions.map((g) => g.messageIds.join(',')));
      assert.deepEqual(
        preview.regions.map((r) => r.messageIds.join(',')),
        ran,
        `${strategy}: the preview shows what runs`,
      );
      assert.ok(preview.regions.length > 0, strategy);
    }
  });
});
