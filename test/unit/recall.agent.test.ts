import { strict as assert } from 'node:assert';
import { AgentSession, type CompactionEntryState } from '../../src/core/agent/agentSession';
import type { AgentEvent, SessionSink } from '../../src/core/agent/events';
import { Compactor } from '../../src/core/compaction/compactor';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { Message } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { SESSION_VERSION } from '../../src/core/session/entries';
import { replaySession } from '../../src/core/session/replay';
import { compactionDescription, LAYER_LABEL, recalledTooltip } from '../../src/host/compactionRowText';
import { fakeClock } from './support/builders';
import { Convo, lines, tokensOf } from './support/compactionBuilders';
import { FakeTools, ScriptedLlm } from './support/scriptedLlm';
import { nullSink } from './support/sessionSink';
import { agentDeps } from './support/agentDeps';
import { withStorePort } from './support/storePort';

const FAILURE = "TypeError: Cannot read properties of undefined (reading 'port')";

/** Three turns; the first ran the failing test. The summariser's summary does not quote the error. */
function conversation() {
  const c = new Convo();
  c.user('Fix the failing config test')
    .call(
      'run_command',
      { command: 'npm test' },
      `FAIL test/config.test.ts\n${FAILURE}\n    at parseConfig (src/config.ts:2:10)\n${lines(120, 40, 'trace')}`,
    )
    .say('The port is read from an undefined object.');
  c.user('Also check the server')
    .read('src/server.ts', lines(120, 40, 'srv'))
    .say('It listens on 8080.');
  c.user('Thanks').say('You are welcome.');
  const testCall = c.messages.flatMap((m) =>
    m.blocks.flatMap((b) => (b.type === 'tool_use' && b.name === 'run_command' ? [b] : [])),
  )[0];
  assert.ok(testCall);
  return { c, testCall };
}

/**
 * An agent over the conversation with a real Compactor (scripted summariser) and a scripted
 * model that, after the compaction, searches with recall, reads the call it found, then answers.
 */
function world(sink: SessionSink, compactions: readonly CompactionEntryState[] = [], current?: readonly Message[]) {
  const { c, testCall } = conversation();
  const clock = fakeClock();
  const ids = counterIds('w');
  const summariser = new ScriptedLlm([
    { content: [{ type: 'text', text: 'The user asked to fix a failing config test and to check the server.' }] },
  ]);
  const compactor = new Compactor({
    summariser,
    clock,
    ids,
    tokensOf,
    measure: (s) => 500 + s.messages.reduce((n, m) => n + tokensOf(m), 0),
    settings: () => DEFAULT_COMPACTION_SETTINGS,
    timeout: () => new Promise(() => undefined),
  });
  const llm = new ScriptedLlm([
    { content: [{ type: 'tool_use', id: 'toolu_r1', name: 'recall', input: { query: 'TypeError' } }] },
    { content: [{ type: 'tool_use', id: 'toolu_r2', name: 'recall', input: { id: testCall.id } }] },
    { content: [{ type: 'text', text: 'The test failed on an undefined port.' }] },
  ]);
  const tools = new FakeTools({});
  const events: AgentEvent[] = [];
  const session = new AgentSession(
    { ...c.state({ keepRecentTurns: 1, keepRecentTokens: 0 }), ...(current ? { messages: current } : {}) },
    agentDeps({ llm, tools, sink, clock, ids, compactor }),
    (e) => events.push(e),
    compactions,
  );
  return { session, llm, tools, events, testCall, messages: c.messages };
}

/** The text of the tool results in the last user message of request `i`. */
function toolResultsOf(llm: ScriptedLlm, i: number): string {
  const last = llm.requests[i]?.messages.at(-1);
  const content = Array.isArray(last?.content) ? last.content : [];
  return content
    .map((b) =>
      b.type === 'tool_result' ? (typeof b.content === 'string' ? b.content : JSON.stringify(b.content)) : '',
    )
    .join('\n');
}

describe('recall in the agent loop', () => {
  it('after a compaction, the model searches with recall and reads the original tool result back; the calls never reach the workspace runner', async () => {
    const recalls: { toolUseId: string; compactionIds: readonly string[] }[] = [];
    const sink: SessionSink = nullSink({
      recall: async (r) => void recalls.push({ toolUseId: r.toolUseId, compactionIds: r.compactionIds }),
    });
    const w = world(sink);
    assert.deepEqual(await w.session.commands.compactNow(), { ok: true });
    const [entry] = w.session.compactions;
    assert.ok(entry && entry.record.layer === 'summarise');
    const summary = w.session.state.messages[0]?.blocks.find((b) => b.type === 'summary');
    assert.ok(summary?.type === 'summary');
    assert.ok(
      summary.text.includes(`compaction ${entry.record.id}`) && summary.text.includes('recall tool'),
      summary.text,
    );
    assert.ok(
      entry.record.retention?.lost.some((x) => x.startsWith('TypeError: Cannot read')),
      'the summariser left the error out',
    );
    assert.match(
      summary.text,
      /\nNot carried by this summary, recallable: .*`TypeError: Cannot read properties/,
      'the footer names it as recallable',
    );

    assert.deepEqual(await w.session.send('What exactly failed in the test?'), { ok: true });
    assert.deepEqual(w.tools.calls, [], 'recall is answered by the agent, not the workspace tools');
    const found = toolResultsOf(w.llm, 1);
    assert.ok(
      found.includes(`tool result of run_command · turn 1 · compaction ${entry.record.id} · id=${w.testCall.id}`),
      found,
    );
    const read = toolResultsOf(w.llm, 2);
    assert.ok(read.includes(`\t${FAILURE}`), read);
    assert.ok(read.includes(`--- tool call run_command (${w.testCall.id}) ---`), read);
    assert.deepEqual(recalls, [
      { toolUseId: 'toolu_r1', compactionIds: [entry.record.id] },
      { toolUseId: 'toolu_r2', compactionIds: [entry.record.id] },
    ]);
    assert.equal(w.session.compactions[0]?.recalled, 2);
    assert.deepEqual(
      w.events.flatMap((e) => (e.type === 'recalled' ? [e.toolUseId] : [])),
      ['toolu_r1', 'toolu_r2'],
    );
    assert.deepEqual(checkInvariants(w.session.state), []);
  });

  it('a recall that finds nothing or fails counts nothing', async () => {
    const recalls: string[] = [];
    const sink: SessionSink = nullSink({ recall: async (r) => void recalls.push(r.toolUseId) });
    const w = world(sink);
    (w.llm as unknown as { steps: unknown[] }).steps.splice(
      0,
      2,
      { content: [{ type: 'tool_use', id: 'toolu_x1', name: 'recall', input: { query: 'kubernetes' } }] },
      { content: [{ type: 'tool_use', id: 'toolu_x2', name: 'recall', input: { id: 'msg_nope' } }] },
    );
    await w.session.commands.compactNow();
    await w.session.send('Anything about kubernetes?');
    assert.match(toolResultsOf(w.llm, 1), /^No match for "kubernetes"/);
    assert.match(toolResultsOf(w.llm, 2), /nothing compacted or saved has the id "msg_nope"/);
    assert.deepEqual(recalls, []);
    assert.equal(w.session.compactions[0]?.recalled, undefined);
  });

  it('the counts are written to the session file, survive a reload and a restore, and the Compactions row shows them', async () => {
    await withStorePort('cp-recall-', Date.UTC(2026, 10, 21, 23, 59, 0), async (port) => {
      const open = await port.create('claude-sonnet-4-6');
      const w = world(open.sink);
      for (const m of w.messages) await open.sink.message(m);
      await w.session.commands.compactNow();
      await w.session.send('What exactly failed in the test?');
      const id = w.session.compactions[0]?.record.id ?? '';
      await open.close();

      const again = await port.open(open.id);
      assert.ok(again.ok);
      const [entry] = again.session.compactions;
      assert.ok(entry);
      assert.equal(entry.record.id, id);
      assert.equal(entry.recalled, 2, 'both recalls of the turn were counted after the reload');
      assert.equal(
        compactionDescription(entry),
        `${entry.record.tokensBefore.toLocaleString('en-US')} → ${entry.record.tokensAfter.toLocaleString('en-US')} · ${LAYER_LABEL[entry.record.layer]} · recalled 2×`,
      );
      assert.equal(
        recalledTooltip(entry),
        "The agent recalled from this compaction's originals or summary 2 times (recall tool).",
      );

      // A reopened agent keeps counting from the saved counts, and a restore keeps them.
      const reopened = world(again.session.sink, again.session.compactions, again.session.messages);
      assert.equal(reopened.session.compactions[0]?.recalled, 2);
      assert.deepEqual(await reopened.session.commands.restore(id), { ok: true });
      assert.equal(
        compactionDescription(reopened.session.compactions[0] as CompactionEntryState).endsWith(
          ' · recalled 2× · restored',
        ),
        true,
      );
      await again.session.close();
    });
  });

  it('replay counts each recall entry once per compaction it names and ignores compactions the file does not hold', () => {
    const { c } = conversation();
    const base = {
      at: 1,
      tokensBefore: 10,
      tokensAfter: 1,
      layer: 'summarise' as const,
      strategy: 'summarise',
      regions: [],
      costUsd: 0,
      durationMs: 0,
      fallbacks: [],
    };
    const originals = c.messages.slice(0, 2);
    const replay = replaySession([
      {
        type: 'header',
        format: 'context-pipeline-session',
        version: SESSION_VERSION,
        sessionId: 's',
        createdAt: 0,
        model: 'm',
        workspace: '',
      },
      ...c.messages.map((message) => ({ type: 'message' as const, at: 1, message })),
      {
        type: 'compaction',
        id: 'cmp_1',
        trigger: 'manual',
        replacedIds: originals.map((m) => m.id),
        originals,
        replacement: [{ ...originals[0]!, id: 'msg_r' }],
        ...base,
      },
      { type: 'recall', at: 2, toolUseId: 'toolu_1', compactionIds: ['cmp_1', 'cmp_1', 'cmp_gone'] },
      { type: 'recall', at: 3, toolUseId: 'toolu_2', compactionIds: ['cmp_1'] },
    ]);
    assert.deepEqual(
      replay.compactions.map((x) => [x.entry.id, x.recalled]),
      [['cmp_1', 2]],
    );
    assert.deepEqual(replay.problems, []);
  });

  it('a row says its kind, and its recalls and state only when there are any', () => {
    const { c } = conversation();
    const entry: CompactionEntryState = {
      record: {
        id: 'cmp_1',
        at: 0,
        trigger: 'manual',
        layer: 'summarise',
        strategy: 'summarise',
        regions: [],
        originals: c.messages,
        replacement: [],
        tokensBefore: 12_400,
        tokensAfter: 1_900,
        costUsd: 0,
        durationMs: 0,
        fallbacks: [],
      },
      active: true,
    };
    assert.equal(compactionDescription(entry), '12,400 → 1,900 · summary');
    assert.equal(
      compactionDescription({ ...entry, active: false, orphaned: true }),
      '12,400 → 1,900 · summary · orphaned — originals only',
    );
    assert.equal(compactionDescription({ ...entry, recalled: 1 }), '12,400 → 1,900 · summary · recalled 1×');
    const cleared = { ...entry, record: { ...entry.record, layer: 'mask' as const } };
    assert.equal(compactionDescription(cleared), '12,400 → 1,900 · results cleared');
    const server = { ...entry, record: { ...entry.record, layer: 'server-compact' as const } };
    assert.equal(compactionDescription(server), '12,400 → 1,900', 'its label already says Server compaction');
    assert.equal(recalledTooltip(entry), undefined);
  });
});
