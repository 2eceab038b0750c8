import { strict as assert } from 'node:assert';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent } from '../../src/core/agent/events';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import type { CompactionRecord } from '../../src/core/compaction/types';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { resolveConfig } from '../../src/core/pipeline/config';
import { counterIds } from '../../src/core/platform/platformPorts';
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';
import { agentDeps } from './support/agentDeps';
import { estimatorCompactor, fakeServerClient, moduleText } from './support/fakeServerAgent';
import { nullSink } from './support/sessionSink';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic';

const tokenizer = createTiktokenTokenizer();
const READ = {
  name: 'read_file',
  description: 'Read a file',
  inputSchema: { type: 'object' as const, properties: { path: { type: 'string' } } },
};

/**
 * Models with preserved thinking (Fable / Mythos 5.1+, Opus / Sonnet / Haiku 5.5+) refuse a
 * thinking block whose prefix changed since it was produced. Compaction changes the prefix by
 * design, so the extension must leave out the thinking after an edit — and only that thinking.
 * The fake API checks the prefix the way the docs describe (test/fake-anthropic/thinkingPrefix.ts).
 */
describe('preserved thinking: compaction never sends thinking whose prefix changed (SDK over HTTP)', function () {
  this.timeout(120_000);
  let fake: FakeAnthropic;
  beforeEach(async () => {
    fake = await startFakeAnthropic({ port: 0 });
  });
  afterEach(async () => {
    await fake.close();
  });

  function session(model: string, contextWindow: number, maxToolRounds: number) {
    const resolved = resolveConfig({ model, contextWindow, summarizer: 'small' });
    assert.ok(resolved.ok);
    const llm = fakeServerClient(fake.url);
    const records: CompactionRecord[] = [];
    const base = agentDeps({
      llm,
      tools: {
        run: async (call) => ({
          content: moduleText(Number(/\d+/.exec(JSON.stringify(call.input))?.[0])),
          isError: false,
        }),
      },
      sink: nullSink({ compaction: async (r) => void records.push(r) }),
      tokenizer,
      ids: counterIds('pt'),
      pasteDirectory: '/tmp/cp-preserved',
      maxToolRounds,
    });
    const compactor = estimatorCompactor(base, llm, DEFAULT_COMPACTION_SETTINGS);
    const events: AgentEvent[] = [];
    const agent = new AgentSession(
      { system: [], tools: [READ], messages: [], pending: [], config: resolved.config },
      { ...base, compactor },
      (e) => events.push(e),
    );
    const unbound = () =>
      events.flatMap((e) =>
        e.type === 'request_started' ? (e.repairs ?? []).filter((r) => r.kind === 'thinking_unbound') : [],
      );
    return { agent, records, events, unbound };
  }

  /** The thinking blocks a recorded request to `model` sent. */
  function sentThinking(model: string): number[] {
    return fake.requests
      .filter((r) => (r.body as { model?: string }).model === model)
      .map(
        (r) =>
          (r.body as { messages: { content: { type: string }[] | string }[] }).messages
            .flatMap((m) => (typeof m.content === 'string' ? [] : m.content))
            .filter((b) => b.type === 'thinking').length,
      );
  }

  it('a long turn compacted mid-turn completes with no refused request; thinking after the edit is left out, new thinking is sent', async () => {
    const model = 'claude-fable-5-1';
    const s = session(model, 50_000, 14);
    for (let n = 1; n <= 12; n++)
      fake.script({
        match: { model },
        thinking: `Round ${n}: module${n - 1}.ts is read; module${n}.ts comes next.`,
        toolUses: [{ name: 'read_file', input: { path: `src/module${n}.ts` } }],
      });
    fake.script({ match: { model }, thinking: 'Every module is read.', text: 'All twelve modules are read.' });
    assert.deepEqual(await s.agent.send('Read src/module1.ts to src/module12.ts one by one'), { ok: true });
    assert.deepEqual(
      fake.invalidRequests.map((r) => r.error?.message),
      [],
      'no request was refused',
    );
    assert.ok(s.records.length >= 1, 'the turn was compacted');
    assert.ok(s.unbound().length >= 1, 'thinking after the edit was left out, and the request said so');
    const sent = sentThinking(model);
    assert.equal(sent.length, 13, 'every round was answered');
    const firstEdit = sent.findIndex((n, i) => i > 0 && n < (sent[i - 1] ?? 0) + 1);
    assert.ok(
      firstEdit > 0 && sent.some((n, i) => i > firstEdit && n > (sent[i - 1] ?? 0)),
      `thinking produced after the compaction is sent on the next request without an edit (${sent.join(',')})`,
    );
    assert.equal(
      s.agent.state.messages.flatMap((m) => m.blocks).filter((b) => b.type === 'thinking' && b.prefixDigest).length,
      s.agent.state.messages.flatMap((m) => m.blocks).filter((b) => b.type === 'thinking').length,
      'the session keeps every thinking block it holds, each bound to its prefix',
    );
    assert.deepEqual(checkInvariants(s.agent.state), []);
  });

  it('a conversation nothing edits sends all its thinking back: nothing is left out', async () => {
    const model = 'claude-sonnet-5-5';
    const s = session(model, 200_000, 3);
    for (let turn = 1; turn <= 3; turn++) {
      fake.script({
        match: { model },
        thinking: `Turn ${turn}: read the module first.`,
        toolUses: [{ name: 'read_file', input: { path: `src/module${turn}.ts` } }],
      });
      fake.script({
        match: { model },
        thinking: `Turn ${turn}: the module is clear.`,
        text: `Module ${turn} is fine.`,
      });
      assert.deepEqual(await s.agent.send(`Check src/module${turn}.ts`), { ok: true });
    }
    assert.deepEqual(fake.invalidRequests, []);
    assert.deepEqual(s.unbound(), []);
    assert.deepEqual(sentThinking(model), [0, 1, 2, 3, 4, 5], 'each request sends every thinking block before it');
  });
});
