import { strict as assert } from 'node:assert';
import { budgetTrim } from '../../src/core/compaction/budgetTrim';
import { Compactor } from '../../src/core/compaction/compactor';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import { counterIds } from '../../src/core/platform/platformPorts';
import { markRegions } from '../../src/core/compaction/regions';
import { summariseRegions } from '../../src/core/compaction/summarise';
import type { CompactionRecord } from '../../src/core/compaction/types';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { encodeEntry, SESSION_VERSION, type SessionEntry } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import { replaySession } from '../../src/core/session/replay';
import { entryToRecord, recordToEntry } from '../../src/core/session/compactionEntry';
import { fakeClock } from './support/builders';
import { Convo as ToolConvo, layerCtx } from './support/compactionBuilders';
import { answer, plainTurns, summariseOpts, tokensOf } from './support/compactionFixtures';
import { ScriptedLlm } from './support/scriptedLlm';

/** A session file's entries for a conversation, then the given records (and restores). */
function fileOf(messages: SessionEntry[], extra: SessionEntry[]): SessionEntry[] {
  return [
    {
      type: 'header',
      format: 'context-pipeline-session',
      version: SESSION_VERSION,
      sessionId: 's1',
      createdAt: 0,
      model: 'claude-sonnet-4-6',
      workspace: 'w',
    },
    ...messages,
    ...extra,
  ];
}

/** Encodes and decodes every entry, as the file would (strict schema). */
function throughFile(entries: SessionEntry[]): SessionEntry[] {
  return entries.map((e) => {
    const d = decodeLine(encodeEntry(e));
    assert.ok(d.ok, d.ok ? '' : d.reason);
    return d.entry;
  });
}

describe('compaction records in the session file', () => {
  it('a summary record survives the file round trip and replays to the compacted conversation, and its restore back', async () => {
    const convo = plainTurns(6);
    const state = convo.state();
    const regions = markRegions(state, { keepRecentTurns: 1, keepRecentTokens: 0, tokensOf });
    const llm = new ScriptedLlm([answer('The user asked about `src/mod1/file1.ts` to `src/mod5/file5.ts`.')]);
    const out = await summariseRegions(state, summariseOpts(regions, llm, { clock: fakeClock() }));
    const record = out.records[0] as CompactionRecord;
    assert.ok(record && record.layer === 'summarise');
    const messages: SessionEntry[] = state.messages.map((message, i) => ({ type: 'message', at: i, message }));
    const entries = throughFile(fileOf(messages, [recordToEntry(record)]));
    const replayed = replaySession(entries);
    assert.deepEqual(replayed.problems, []);
    assert.deepEqual(
      JSON.parse(JSON.stringify(replayed.messages)),
      JSON.parse(JSON.stringify(stripCounts(out.state.messages))),
    );
    assert.deepEqual(checkInvariants({ messages: replayed.messages }), []);
    const back = entryToRecord(entries.at(-1) as Extract<SessionEntry, { type: 'compaction' }>);
    assert.equal(back.summary, record.summary);
    assert.deepEqual(back.regions, record.regions);
    assert.deepEqual(back.retention, record.retention);
    assert.deepEqual(back.fallbacks, record.fallbacks);
    assert.equal(back.layer, 'summarise');
    const restored = replaySession(
      throughFile(fileOf(messages, [recordToEntry(record), { type: 'restore', at: 99, compactionId: record.id }])),
    );
    assert.deepEqual(
      JSON.parse(JSON.stringify(restored.messages)),
      JSON.parse(JSON.stringify(stripCounts(state.messages))),
    );
  });

  it('an in-place record (budget trim keeps the message ids) replays too', () => {
    const c = new ToolConvo();
    const big = 'y'.repeat(40_000);
    for (let i = 0; i < 5; i++) c.user(`read ${i}`).read(`f${i}.ts`, `${big}\n${i}`).say(`ok ${i}`);
    const state = c.state();
    const r = budgetTrim(state, layerCtx(0.75));
    assert.ok(r.record);
    const messages: SessionEntry[] = state.messages.map((message, i) => ({ type: 'message', at: i, message }));
    const replayed = replaySession(throughFile(fileOf(messages, [recordToEntry(r.record)])));
    assert.deepEqual(replayed.problems, []);
    assert.deepEqual(
      JSON.parse(JSON.stringify(replayed.messages)),
      JSON.parse(JSON.stringify(stripCounts(r.state.messages))),
    );
  });

  it("a record's re-attached files (and the reminder in its replacement) survive the file round trip; Restore takes the reminder away", async () => {
    const c = new ToolConvo();
    for (let t = 1; t <= 4; t++)
      c.user(`question ${t}`)
        .read(`src/f${t}.ts`, `${'z'.repeat(4000)} ${t}`)
        .say(`answer ${t}`);
    const state = c.state({ keepRecentTurns: 1, keepRecentTokens: 0 });
    const llm = new ScriptedLlm([answer('The user read f1 to f3.')]);
    const compactor = new Compactor({
      summariser: llm,
      clock: fakeClock(),
      ids: counterIds('k'),
      tokensOf,
      measure: (s) => s.messages.reduce((n, m) => n + tokensOf(m), 0),
      settings: () => DEFAULT_COMPACTION_SETTINGS,
      timeout: () => new Promise(() => undefined),
      readFresh: async (path) =>
        path === 'src/f1.ts'
          ? { ok: false, reason: 'it no longer exists' }
          : { ok: true, text: `fresh ${path}\n`, bytes: 20 },
    });
    const run = await compactor.compact(state, {
      trigger: 'manual',
      tokensToFree: 'all',
      signal: new AbortController().signal,
    });
    const record = run.records.at(-1) as CompactionRecord;
    assert.equal(record.reattached?.length, 3);
    const messages: SessionEntry[] = state.messages.map((message, i) => ({ type: 'message', at: i, message }));
    const entries = throughFile(fileOf(messages, run.records.map(recordToEntry)));
    const back = entryToRecord(entries.at(-1) as Extract<SessionEntry, { type: 'compaction' }>);
    assert.deepEqual(back.reattached, record.reattached);
    assert.ok(back.reattached?.some((f) => f.attached === 'reference' && f.reason === 'it no longer exists'));
    const replayed = replaySession(entries);
    assert.deepEqual(replayed.problems, []);
    assert.deepEqual(
      JSON.parse(JSON.stringify(replayed.messages)),
      JSON.parse(JSON.stringify(stripCounts(run.state.messages))),
    );
    assert.ok(
      replayed.messages.some((m) => m.blocks.some((b) => b.type === 'text' && b.text.includes('fresh src/f3.ts'))),
    );
    const restores: SessionEntry[] = [...run.records]
      .reverse()
      .map((r, i) => ({ type: 'restore', at: 100 + i, compactionId: r.id }));
    const restored = replaySession(throughFile(fileOf(messages, [...run.records.map(recordToEntry), ...restores])));
    assert.deepEqual(
      JSON.parse(JSON.stringify(restored.messages)),
      JSON.parse(JSON.stringify(stripCounts(state.messages))),
    );
  });

  it('a stored record without re-attached files decodes without them, every field typed in the line', () => {
    const base = recordToEntry({
      id: 'c9',
      at: 1,
      trigger: 'manual',
      layer: 'summarise',
      strategy: 's',
      regions: [],
      originals: [],
      replacement: [],
      tokensBefore: 2,
      tokensAfter: 1,
      costUsd: 0,
      durationMs: 0,
      fallbacks: [],
    });
    assert.equal('reattached' in base, false);
    const [back] = throughFile([base]);
    assert.ok(back?.type === 'compaction');
    assert.equal(entryToRecord(back).reattached, undefined);
    assert.deepEqual(JSON.parse(encodeEntry(base)), {
      type: 'compaction',
      at: 1,
      id: 'c9',
      trigger: 'manual',
      layer: 'summarise',
      strategy: 's',
      replacedIds: [],
      originals: [],
      replacement: [],
      tokensBefore: 2,
      tokensAfter: 1,
      regions: [],
      costUsd: 0,
      durationMs: 0,
      fallbacks: [],
    });
    const bad = JSON.parse(encodeEntry(base)) as Record<string, unknown>;
    assert.equal(decodeLine(JSON.stringify({ ...bad, reattached: [{ path: 'b.ts', attached: 'maybe' }] })).ok, false);
  });
});

/** The file does not keep meta.tokenCount (it depends on the tokenizer). */
function stripCounts<T>(x: T): T {
  return JSON.parse(JSON.stringify(x, (k, v: unknown) => (k === 'tokenCount' ? undefined : v))) as T;
}
