import { strict as assert } from 'node:assert';
import type { LlmClient } from '../../src/core/llm/llmClient';
import { requestCostUsd } from '../../src/core/llm/cost';
import { restoreRecord } from '../../src/core/compaction/apply';
import { summariesCost } from '../../src/core/compaction/health';
import { entryToRecord, recordToEntry } from '../../src/core/session/compactionEntry';
import { CircuitBreaker } from '../../src/core/compaction/circuitBreaker';
import { markRegions } from '../../src/core/compaction/regions';
import { summariseRegions, type SummariseProgress } from '../../src/core/compaction/summarise';
import { DROP_ACK, SUMMARY_ACK } from '../../src/core/compaction/summaryReplacement';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { ConversationState, Message } from '../../src/core/conversation/conversationModel';
import { fakeClock } from './support/builders';
import { answer, Convo, plainTurns, requestText, summariseOpts, tokensOf } from './support/compactionFixtures';
import { ScriptedLlm } from './support/scriptedLlm';

const keep = (turns: number) => ({ keepRecentTurns: turns, keepRecentTokens: 0, tokensOf });
const overloaded = {
  error: {
    kind: 'overloaded' as const,
    message: 'Anthropic is overloaded right now. Try again in a minute.',
    retryable: true,
  },
};

/** Six turns, pinned turn 3: regions 1–2 and 4–4 when keeping 2 turns. */
function twoRegions(): ConversationState {
  const c = new Convo();
  for (let i = 1; i <= 6; i++)
    c.add({
      user: `Step ${i}: edit src/step${i}.ts`,
      pinned: i === 3,
      answer: `Edited src/step${i}.ts. ${'z'.repeat(2000)}`,
    });
  return c.state();
}

function userWords(state: ConversationState): string[] {
  return state.messages.flatMap((m) =>
    m.blocks.flatMap((b) => (b.type === 'text' && b.meta.source === 'user' ? [b.text] : [])),
  );
}

describe('summariseRegions', () => {
  it('replaces a region by a summary starting with its turn range, the user words verbatim and an acknowledgement', async () => {
    const state = plainTurns(6, 3000).state();
    const regions = markRegions(state, keep(2));
    const clock = fakeClock();
    const llm = new ScriptedLlm([
      answer('## Summary of turns 1-4\n- The user asked to look at `src/mod1/file1.ts`.', {
        input_tokens: 1000,
        output_tokens: 200,
      }),
    ]);
    const timed: LlmClient = { stream: (p, o) => (clock.advance(1500), llm.stream(p, o)) };
    const out = await summariseRegions(
      state,
      summariseOpts(regions, llm, { summariser: timed, clock, trigger: 'auto-soft' }),
    );
    assert.equal(out.failed, false);
    assert.equal(out.records.length, 1);
    const rec = out.records[0];
    assert.ok(rec);
    assert.equal(rec.layer, 'summarise');
    assert.equal(rec.trigger, 'auto-soft');
    assert.equal(rec.strategy, 'summarise');
    assert.equal(rec.model, 'claude-haiku-4-5');
    assert.equal(
      rec.costUsd,
      requestCostUsd('claude-haiku-4-5', {
        input_tokens: 1000,
        output_tokens: 200,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      }),
    );
    assert.equal(rec.durationMs, 1500);
    assert.deepEqual(rec.originals, state.messages.slice(0, 8));
    assert.ok(rec.summary?.startsWith('Summary of turns 1–4:\n\n- The user asked'), rec.summary);
    assert.ok(!rec.summary?.includes('## Summary'), "the model's own heading is replaced");
    assert.deepEqual(rec.regions, [
      { firstTurn: 1, lastTurn: 4, messageIds: state.messages.slice(0, 8).map((m) => m.id), tokens: rec.tokensBefore },
    ]);
    assert.ok(rec.tokensAfter < rec.tokensBefore);
    assert.equal(rec.retention?.retained, 1, 'the paths the user gave are kept with their words');

    const [u, a] = rec.replacement;
    assert.equal(out.state.messages.length, 2 + 4);
    assert.equal(out.state.messages[0], u);
    const [summary, ...words] = u?.blocks ?? [];
    assert.ok(summary?.type === 'summary');
    assert.equal(summary.compactionId, rec.id);
    assert.deepEqual(summary.turnRange, [1, 4]);
    assert.deepEqual(
      { source: summary.meta.source, tier: summary.meta.tier, compactable: summary.meta.compactable },
      { source: 'compactor', tier: 0, compactable: false },
    );
    assert.equal(summary.text, rec.summary);
    const originalWords = state.messages
      .slice(0, 8)
      .flatMap((m) => m.blocks.filter((b) => b.type === 'text' && b.meta.source === 'user'));
    assert.deepEqual(words, originalWords, 'user words verbatim, same ids');
    assert.equal(words[0], originalWords[0], 'the very same blocks');
    assert.equal(a?.role, 'assistant');
    assert.equal(a?.blocks[0]?.type === 'text' && a.blocks[0].text, SUMMARY_ACK);
    assert.deepEqual([u?.turn, a?.turn], [1, 4]);
    assert.deepEqual(userWords(out.state), userWords(state));
    assert.deepEqual(checkInvariants(out.state), []);

    const back = restoreRecord(out.state, rec);
    assert.ok(back.ok);
    assert.deepEqual(back.state.messages, state.messages);
  });

  it('a summariser model without a known price: the record says its cost is unknown, and so does every bill of it', async () => {
    const state = plainTurns(5).state();
    const llm = new ScriptedLlm([answer('Notes.', { input_tokens: 1000, output_tokens: 200 })]);
    const out = await summariseRegions(
      state,
      summariseOpts(markRegions(state, keep(2)), llm, { summarizerModel: 'claude-some-future-model' }),
    );
    const rec = out.records[0];
    assert.ok(rec);
    assert.equal(rec.costUnknown, true);
    assert.equal(rec.costUsd, 0);
    assert.ok(rec.fallbacks.some((f) => /price of summariser model claude-some-future-model unknown/.test(f)));
    assert.equal(summariesCost([rec]), undefined);
    // Saved and read back, the session file keeps it.
    assert.equal(entryToRecord(recordToEntry(rec)).costUnknown, true);
    // A known price: no flag.
    const priced = await summariseRegions(
      state,
      summariseOpts(markRegions(state, keep(2)), new ScriptedLlm([answer('Notes.')])),
    );
    assert.equal(priced.records[0]?.costUnknown, undefined);
    assert.equal(typeof summariesCost(priced.records), 'number');
  });

  it('sends the user instructions to the summariser and records them', async () => {
    const state = plainTurns(5).state();
    const llm = new ScriptedLlm([answer('Auth bug notes.')]);
    const out = await summariseRegions(
      state,
      summariseOpts(markRegions(state, keep(2)), llm, { instructions: '  focus on the auth bug ' }),
    );
    assert.match(requestText(llm, 0), /<user_instructions>\nfocus on the auth bug\n<\/user_instructions>/);
    assert.equal(out.records[0]?.instructions, 'focus on the auth bug');
    assert.equal(llm.requests[0]?.model, 'claude-haiku-4-5');
  });

  it('summarises a region too big for the summariser in rolling chunks', async () => {
    const c = new Convo();
    for (let i = 1; i <= 10; i++) c.add({ user: `u${i}`, answer: `${i}`.repeat(8000) });
    const state = c.state();
    const steps = Array.from({ length: 20 }, (_, i) => answer(`ROLLING-${i + 1} summary`));
    const llm = new ScriptedLlm(steps);
    const progress: SummariseProgress[] = [];
    const out = await summariseRegions(
      state,
      summariseOpts(markRegions(state, keep(2)), llm, { contextWindow: 16_000, onProgress: (p) => progress.push(p) }),
    );
    const n = llm.requests.length;
    assert.ok(n >= 2, `${n} chunks`);
    assert.match(requestText(llm, 1), /<previous_summary turns="1-\d+">\nROLLING-1 summary\n<\/previous_summary>/);
    assert.match(requestText(llm, n - 1), new RegExp(`ROLLING-${n - 1} summary`));
    assert.match(requestText(llm, 0), new RegExp(`part 1 of ${n}`));
    const summary = out.records[0]?.summary ?? '';
    assert.ok(summary.startsWith('Summary of turns 1–8:'));
    assert.match(summary, new RegExp(`ROLLING-${n} summary`));
    assert.ok(!summary.includes('ROLLING-1 summary'), 'the last answer covers everything');
    assert.deepEqual(
      progress.map((p) => p.chunk),
      Array.from({ length: n }, (_, i) => i + 1),
    );
    assert.deepEqual(checkInvariants(out.state), []);
  });

  it('leaves a single giant message out of the chunks and names it in the summary', async () => {
    const c = new Convo();
    c.add({ user: 'dump the log', answer: 'G'.repeat(40_000) });
    for (let i = 2; i <= 4; i++) c.add({ user: `u${i}`, answer: 'small answer '.repeat(20) });
    const state = c.state();
    const giant = state.messages[1] as Message;
    const llm = new ScriptedLlm([answer('Short summary.')]);
    const out = await summariseRegions(
      state,
      summariseOpts(markRegions(state, keep(1)), llm, { contextWindow: 16_000 }),
    );
    assert.equal(llm.requests.length, 1);
    assert.ok(!requestText(llm, 0).includes('GGGGGGGGGG'), 'the giant is not sent');
    assert.match(requestText(llm, 0), new RegExp(`assistant message ${giant.id} of turn 1`));
    const rec = out.records[0];
    assert.match(
      rec?.summary ?? '',
      new RegExp(
        `Left out of this summary[^\\n]*\\n- assistant message ${giant.id} of turn 1 \\(text, about 10,003 tokens\\)`,
      ),
    );
    assert.ok(rec?.originals.includes(giant), 'still restorable');
    assert.deepEqual(rec?.fallbacks, ['left out 1 message too large to summarise']);
  });

  it('falls back to dropping the failed region and the rest, with a visible marker, on an error', async () => {
    const state = twoRegions();
    const regions = markRegions(state, keep(2));
    assert.equal(regions.length, 2);
    const llm = new ScriptedLlm([overloaded]);
    const out = await summariseRegions(state, summariseOpts(regions, llm));
    assert.equal(llm.requests.length, 1, 'no more calls after a failure');
    assert.equal(out.failed, true);
    assert.equal(out.error, overloaded.error.message);
    assert.deepEqual(
      out.records.map((r) => r.layer),
      ['fallback-drop', 'fallback-drop'],
    );
    const [first, second] = out.records;
    assert.deepEqual(first?.fallbacks, ['summariser failed: the API is overloaded → dropped turns 1–2']);
    const marker = first?.replacement[0]?.blocks[0];
    assert.ok(marker?.type === 'text');
    assert.equal(
      marker.text,
      '[Turns 1–2 were removed to free context because the summariser failed (the API is overloaded); they can be restored from the Compactions view.]',
    );
    assert.equal(marker.meta.source, 'compactor');
    assert.equal(first?.replacement[1]?.blocks[0]?.type === 'text' && first.replacement[1].blocks[0].text, DROP_ACK);
    assert.equal(second?.model, undefined, 'the second region never reached the summariser');
    assert.deepEqual(userWords(out.state), userWords(state), 'user words kept verbatim');
    assert.deepEqual(checkInvariants(out.state), []);
    let s = out.state;
    for (const r of [...out.records].reverse()) {
      const back = restoreRecord(s, r);
      assert.ok(back.ok);
      s = back.state;
    }
    assert.deepEqual(s.messages, state.messages);
  });

  it('falls back on a timeout (5 minutes, injected), even when the client ignores the abort', async () => {
    const state = plainTurns(5).state();
    let fire: () => void = () => undefined;
    const asked: number[] = [];
    const timeout = (ms: number) => (asked.push(ms), new Promise<void>((r) => (fire = r)));
    let calls = 0;
    const deaf: LlmClient = { stream: () => (calls++, new Promise(() => undefined)) };
    const run = summariseRegions(
      state,
      summariseOpts(markRegions(state, keep(2)), new ScriptedLlm([]), { summariser: deaf, timeout }),
    );
    while (calls === 0) await new Promise((r) => setImmediate(r));
    fire();
    const out = await run;
    assert.deepEqual(asked, [300_000]);
    assert.equal(out.failed, true);
    assert.match(out.error ?? '', /did not answer within 5 minutes/);
    assert.equal(out.records[0]?.layer, 'fallback-drop');
    assert.deepEqual(out.records[0]?.fallbacks, ['summariser failed: timed out after 5 minutes → dropped turns 1–3']);
  });

  it('stops without dropping anything when the user presses Stop', async () => {
    const state = plainTurns(5).state();
    const stop = new AbortController();
    const llm = new ScriptedLlm([{ hangUntilAbort: true }]);
    const run = summariseRegions(state, summariseOpts(markRegions(state, keep(2)), llm, { signal: stop.signal }));
    while (llm.requests.length === 0) await new Promise((r) => setImmediate(r));
    stop.abort();
    const out = await run;
    assert.deepEqual([out.aborted, out.failed, out.records.length], [true, false, 0]);
    assert.equal(out.state, state);
  });

  it('never applies a compaction that would not shrink the context', async () => {
    const state = plainTurns(4, 10).state();
    const llm = new ScriptedLlm([answer('A very long summary. '.repeat(200))]);
    const out = await summariseRegions(state, summariseOpts(markRegions(state, keep(1)), llm));
    assert.equal(out.records.length, 0);
    assert.equal(out.state, state);
    assert.equal(out.skipped.length, 1);
    assert.match(out.skipped[0]?.reason ?? '', /would not shrink/);
    assert.ok((out.skipped[0]?.record?.tokensAfter ?? 0) >= (out.skipped[0]?.record?.tokensBefore ?? 1));
  });

  it('skips a region whose messages are gone, and drops without calling the summariser when told to', async () => {
    const state = plainTurns(5).state();
    const regions = markRegions(state, keep(2));
    const stale = await summariseRegions(
      plainTurns(5, 400, 'other').state(),
      summariseOpts(regions, new ScriptedLlm([])),
    );
    assert.equal(stale.records.length, 0);
    assert.match(stale.skipped[0]?.reason ?? '', /no longer/);
    const llm = new ScriptedLlm([]);
    const dropped = await summariseRegions(
      state,
      summariseOpts(regions, llm, { dropReason: 'summarisation paused after 3 failures' }),
    );
    assert.equal(llm.requests.length, 0);
    assert.equal(dropped.failed, false);
    assert.equal(dropped.records[0]?.layer, 'fallback-drop');
    assert.deepEqual(checkInvariants(dropped.state), []);
  });
});

describe('circuit breaker', () => {
  it('opens after 3 consecutive failures, stops automatic summarisation, and closes on success or reset', async () => {
    const b = new CircuitBreaker();
    const state = plainTurns(5).state();
    for (let i = 0; i < 3; i++) {
      assert.ok(b.allows('auto-soft'));
      const out = await summariseRegions(
        state,
        summariseOpts(markRegions(state, keep(2)), new ScriptedLlm([overloaded])),
      );
      if (out.failed) b.failure(out.error);
    }
    assert.equal(b.isOpen, true);
    assert.equal(b.allows('auto-soft'), false);
    assert.equal(b.allows('auto-hard'), false);
    assert.equal(b.allows('manual'), true, 'the user can always try again');
    assert.match(b.notice() ?? '', /paused after 3 failures in a row.*overloaded/);
    b.reset();
    assert.deepEqual(b.state, { consecutiveFailures: 0, open: false });
    assert.equal(b.notice(), undefined);
    b.failure('x');
    b.failure('x');
    b.success();
    b.failure('x');
    assert.equal(b.isOpen, false, 'only consecutive failures count');
    b.failure('x');
    b.failure('x');
    assert.equal(b.isOpen, true);
    b.success();
    assert.equal(b.isOpen, false, 'a success closes it');
  });
});
