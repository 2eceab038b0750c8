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
import { estimatorCompactor, fakeServerClient } from './support/fakeServerAgent';
import { nullSink } from './support/sessionSink';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic';

const CHAT = 'claude-sonnet-4-6';
const tokenizer = createTiktokenTokenizer();
/** A file body of about 28 000 tokens: within the answer limit of a 200k window, more than a 32k window leaves. */
const BIG = `export const header = 1;\n${'export const value = compute(input, options);\n'.repeat(2_800)}`;

/**
 * A session resumed in a smaller window (or carried over from an agent with a larger answer
 * limit) can hold a call whose input alone is more than the window leaves. Once a newer round
 * follows it, the call is no longer protected (one message past twice the tail's budget is
 * not kept for the budget's sake: regions.ts), so it is summarised; when the window turns out
 * smaller than the extension was told, the tail guard cuts it. Either way the file holds it whole.
 */
describe('tail guard: a call whose input is more than the window leaves (SDK over HTTP)', function () {
  this.timeout(60_000);
  let fake: FakeAnthropic;
  beforeEach(async () => {
    fake = await startFakeAnthropic({ port: 0 });
  });
  afterEach(async () => {
    await fake.close();
  });

  /**
   * A session with a `write_file` tool in a 200k window that stops after one tool round: its
   * first turn writes {@link BIG} and stops there, so the call is the newest assistant message.
   */
  async function world() {
    const resolved = resolveConfig({ model: CHAT, contextWindow: 200_000, maxOutputTokens: 64_000 });
    assert.ok(resolved.ok);
    const llm = fakeServerClient(fake.url);
    const written = new Map<string, string>();
    const records: CompactionRecord[] = [];
    const base = agentDeps({
      llm,
      tools: {
        run: async (call) => {
          const { path, content } = call.input as { path: string; content: string };
          written.set(path, content);
          return { content: `Wrote ${content.length} characters to ${path}.`, isError: false };
        },
      },
      sink: nullSink({ compaction: async (r) => void records.push(r) }),
      tokenizer,
      ids: counterIds('tg'),
      pasteDirectory: '/tmp/cp-tail',
      maxToolRounds: 1,
    });
    const compactor = estimatorCompactor(base, llm, DEFAULT_COMPACTION_SETTINGS);
    const events: AgentEvent[] = [];
    const tool = {
      name: 'write_file',
      description: 'Write a file',
      inputSchema: {
        type: 'object' as const,
        properties: { path: { type: 'string' }, content: { type: 'string' } },
      },
    };
    const session = new AgentSession(
      { system: [], tools: [tool], messages: [], pending: [], config: resolved.config },
      { ...base, compactor },
      (e) => events.push(e),
    );
    fake.script({
      match: { model: CHAT },
      text: 'Writing the whole module.',
      toolUses: [{ name: 'write_file', input: { path: 'src/big.ts', content: BIG } }],
    });
    assert.deepEqual(await session.send('Write src/big.ts with every value'), { ok: true });
    assert.ok(written.get('src/big.ts') === BIG, 'the tool ran with the whole input');
    fake.script({ match: { model: CHAT }, text: 'The module is written.' });
    fake.setWindow(32_000);
    const notices = () => events.flatMap((e) => (e.type === 'notice' ? [e.text] : []));
    /** The user switches to a 32 000-token window, as the API now has. */
    const shrink = () => {
      const small = resolveConfig({ model: CHAT, contextWindow: 32_000 });
      assert.ok(small.ok);
      session.update({ config: small.config });
    };
    return { session, written, records, notices, shrink, requestsBefore: fake.requests.length };
  }

  /** The write call as the session now holds it. */
  function sentInput(w: Awaited<ReturnType<typeof world>>): { path: string; content: string } {
    const use = w.session.state.messages.flatMap((m) => m.blocks).find((b) => b.type === 'tool_use');
    assert.ok(use?.type === 'tool_use');
    return use.input as { path: string; content: string };
  }

  it('summarises the round that holds it before the next request, so the API never refuses it; undo gives it back', async () => {
    const w = await world();
    w.shrink();
    assert.deepEqual(await w.session.send('Go on'), { ok: true });
    assert.deepEqual(
      fake.invalidRequests.map((r) => r.error),
      [],
      'no request was refused',
    );
    assert.equal(fake.requests.length, w.requestsBefore + 2, 'one summariser call, then the answer');
    assert.deepEqual(
      w.records.map((r) => r.layer),
      ['summarise'],
    );
    const record = w.records[0] as CompactionRecord;
    const original = record.originals.flatMap((m) => m.blocks).find((b) => b.type === 'tool_use');
    assert.ok(original?.type === 'tool_use', 'the record keeps the call');
    assert.equal((original.input as { content: string }).content, BIG, 'whole, to restore');
    assert.ok(
      !w.session.state.messages.some((m) => m.blocks.some((b) => b.type === 'tool_use')),
      'the history sent no longer holds the call',
    );
    assert.ok(w.written.get('src/big.ts') === BIG, 'the file holds the whole text');
    assert.deepEqual(checkInvariants(w.session.state), []);
  });

  it('recovers when the API says the prompt is too long (the window is smaller than the extension was told)', async () => {
    const w = await world();
    assert.deepEqual(await w.session.send('Go on'), { ok: true });
    const refused = fake.invalidRequests.map((r) => r.error?.rule);
    assert.ok(refused.length >= 1, 'the API refused the prompt once');
    assert.ok(
      refused.every((r) => r === 'prompt_too_long' || r === 'context_limit'),
      refused.join(', '),
    );
    assert.match(sentInput(w).content, /left out so the request fits the context window/);
    assert.ok(
      w.records.some((r) => r.layer === 'tail-guard' && r.trigger === 'overflow'),
      w.records.map((r) => `${r.layer}/${r.trigger}`).join(', '),
    );
    assert.match(
      w.notices().join('\n'),
      /cut in the middle, about [\d,]+ tokens freed\. .*The request was sent again\./,
    );
    assert.equal(fake.requests.at(-1)?.error, undefined, 'the last request went through');
    assert.deepEqual(checkInvariants(w.session.state), []);
  });
});
