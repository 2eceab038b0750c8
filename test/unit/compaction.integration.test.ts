import { strict as assert } from 'node:assert';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent } from '../../src/core/agent/events';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings } from '../../src/core/compaction/policy';
import type { CompactionRecord } from '../../src/core/compaction/types';
import { resolveConfig, type PipelineSettings } from '../../src/core/pipeline/config';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { counterIds } from '../../src/core/platform/platformPorts';
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';
import { agentDeps } from './support/agentDeps';
import { estimatorCompactor, fakeServerClient, moduleText } from './support/fakeServerAgent';
import { nullSink } from './support/sessionSink';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic';

const CHAT = 'claude-sonnet-4-6';
const SUMMARISER = 'claude-haiku-4-5';
const tokenizer = createTiktokenTokenizer();

/** An agent session wired to the fake Anthropic server over real HTTP and the official SDK. */
function world(
  fake: FakeAnthropic,
  pipeline: PipelineSettings,
  compaction: Partial<CompactionSettings> = {},
  maxToolRounds = 5,
) {
  const resolved = resolveConfig({ model: CHAT, summarizerModel: SUMMARISER, ...pipeline });
  assert.ok(resolved.ok);
  const llm = fakeServerClient(fake.url);
  let t = Date.parse('2026-11-21T10:00:00Z');
  const records: CompactionRecord[] = [];
  const base = agentDeps({
    llm,
    tools: {
      run: async (call) => ({ content: moduleText(Number((call.input as { n?: number }).n ?? 0)), isError: false }),
    },
    sink: nullSink({ compaction: async (r) => void records.push(r) }),
    clock: { now: () => (t += 1000) },
    ids: counterIds('it'),
    tokenizer,
    pasteDirectory: '/tmp/cp-it',
    maxToolRounds,
  });
  const compactor = estimatorCompactor(base, llm, { ...DEFAULT_COMPACTION_SETTINGS, ...compaction });
  const events: AgentEvent[] = [];
  let turn = 0;
  const session = new AgentSession(
    {
      system: [],
      tools: [
        {
          name: 'read_file',
          description: 'Read a file',
          inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
        },
      ],
      messages: [],
      pending: [],
      config: resolved.config,
    },
    { ...base, compactor },
    (e) => events.push(e),
  );
  /** One user turn: the model reads a big file, then answers. */
  const turnWithRead = async () => {
    turn++;
    fake.script(
      { match: { model: CHAT }, toolUses: [{ name: 'read_file', input: { path: `src/module${turn}.ts`, n: turn } }] },
      { match: { model: CHAT }, text: `Module ${turn} handles requests.` },
    );
    assert.deepEqual(await session.send(`Explain src/module${turn}.ts please`), { ok: true });
  };
  /** One user request that runs `rounds` tool rounds (a big read each), then answers. */
  const longTurn = async (rounds: number) => {
    turn++;
    for (let i = 1; i <= rounds; i++)
      fake.script({
        match: { model: CHAT },
        text: `Reading part ${i}.`,
        toolUses: [{ name: 'read_file', input: { path: `src/part${i}.ts`, n: i } }],
      });
    fake.script({ match: { model: CHAT }, text: `All ${rounds} parts read.` });
    return session.send(`Read every part of the module, one by one (${rounds} parts)`);
  };
  return {
    session,
    records,
    events,
    compactor,
    turnWithRead,
    longTurn,
    notices: () => events.flatMap((e) => (e.type === 'notice' ? [e.text] : [])),
  };
}

describe('compaction against the fake Anthropic server (SDK over HTTP)', function () {
  this.timeout(60_000);
  let fake: FakeAnthropic;
  beforeEach(async () => {
    fake = await startFakeAnthropic({ port: 0 });
  });
  afterEach(async () => {
    const invalid = fake.invalidRequests.filter(
      (r) => r.error?.rule !== 'prompt_too_long' && r.error?.rule !== 'context_limit',
    );
    await fake.close();
    assert.deepEqual(
      invalid.map((r) => r.error),
      [],
      'every request was valid',
    );
  });

  it('a long session crosses the thresholds and summarises with the summariser model', async () => {
    // `small`: under `auto` the API's compaction on demand may be the cheaper route (onDemandCompaction.test.ts).
    const w = world(
      fake,
      { contextWindow: 24_000, keepRecentTurns: 1, keepRecentTokens: 0, summarizer: 'small' },
      { maskToolResults: false },
    );
    fake.script({
      match: { model: SUMMARISER },
      text: 'The user asked about `src/module1.ts` and `src/module2.ts`; both export request handlers.',
    });
    for (let i = 0; i < 5 && !w.records.some((r) => r.layer === 'summarise'); i++) await w.turnWithRead();
    const summary = w.records.find((r) => r.layer === 'summarise');
    assert.ok(summary, `a summary was made; records: ${w.records.map((r) => r.layer).join(', ')}`);
    assert.ok(summary.trigger === 'auto-soft' || summary.trigger === 'auto-hard', summary.trigger);
    assert.ok(summary.tokensAfter < summary.tokensBefore);
    assert.ok(
      fake.requests.some((r) => (r.body as { model?: string }).model === SUMMARISER),
      'the summariser model was called',
    );
    assert.deepEqual(checkInvariants(w.session.state), []);
    const sent = JSON.stringify(fake.requests.at(-1)?.body);
    assert.ok(sent.includes('<conversation_summary'), 'the next request carries the summary');
  });

  it('the hard threshold compacts before sending even when soft compaction is off', async () => {
    const w = world(
      fake,
      { contextWindow: 24_000, keepRecentTurns: 1, keepRecentTokens: 0 },
      { softAction: 'off', maskToolResults: false },
    );
    fake.script({ match: { model: SUMMARISER }, text: 'Summary of the modules read so far.' });
    for (let i = 0; i < 6 && !w.records.some((r) => r.trigger === 'auto-hard'); i++) await w.turnWithRead();
    assert.ok(
      w.records.some((r) => r.trigger === 'auto-hard' && r.layer === 'summarise'),
      `records: ${w.records.map((r) => `${r.trigger}/${r.layer}`).join(', ')}`,
    );
    for (const r of fake.requests.filter((x) => x.valid && (x.body as { model?: string }).model === CHAT))
      assert.ok((r.inputTokens ?? 0) < 24_000, 'no request exceeded the window');
  });

  it('a failing summariser falls back to a visible drop marker, then the breaker opens after 3 failures', async () => {
    const w = world(
      fake,
      { contextWindow: 24_000, keepRecentTurns: 1, keepRecentTokens: 0, summarizer: 'small' },
      { maskToolResults: false },
    );
    for (let i = 0; i < 3; i++)
      fake.script({
        match: { model: SUMMARISER },
        status: 400,
        errorType: 'invalid_request_error',
        message: 'scripted summariser failure',
      });
    for (let i = 0; i < 14 && !w.compactor.breaker.isOpen; i++) await w.turnWithRead();
    const drops = w.records.filter((r) => r.layer === 'fallback-drop');
    assert.ok(drops.length >= 3, `fallback drops: ${drops.length}`);
    assert.ok(drops[0]?.fallbacks.some((f) => /summariser failed/.test(f)));
    const marker = JSON.stringify(w.session.state.messages);
    assert.ok(
      /were removed to free context because the summariser failed/.test(marker),
      'the marker is visible in the history',
    );
    assert.ok(w.compactor.breaker.isOpen, 'the circuit breaker opened');
    assert.ok(
      w.notices().some((n) => /paused after 3 failures/.test(n)),
      'the user is told',
    );
    // "Try again": a manual compaction resets the breaker.
    fake.script({ match: { model: SUMMARISER }, text: 'Recovered summary.' });
    await w.turnWithRead();
    const manual = await w.session.commands.compactNow('keep the module names');
    assert.ok(manual.ok || /Nothing/.test(manual.reason), JSON.stringify(manual));
    assert.ok(!w.compactor.breaker.isOpen);
    assert.deepEqual(checkInvariants(w.session.state), []);
  });

  it('"prompt is too long" from the API is recovered by compacting, and restore brings the originals back', async () => {
    const w = world(
      fake,
      { contextWindow: 60_000, keepRecentTurns: 1, keepRecentTokens: 0 },
      { softAction: 'off', maskToolResults: false },
    );
    for (let i = 0; i < 4; i++) await w.turnWithRead();
    assert.equal(w.records.length, 0, 'no compaction yet at this size');
    fake.setWindow(9_000);
    fake.script(
      { match: { model: SUMMARISER }, text: 'Modules 1 to 4 export request handlers.' },
      { match: { model: CHAT }, text: 'Recovered answer.' },
    );
    await w.session.send('And now?');
    assert.ok(
      fake.requests.some((r) => r.error?.rule === 'prompt_too_long' || r.error?.rule === 'context_limit'),
      'the API refused once',
    );
    const overflow = w.records.find((r) => r.trigger === 'overflow');
    assert.ok(overflow, `an overflow compaction; records: ${w.records.map((r) => r.trigger).join(', ')}`);
    assert.ok(
      w.events.some((e) => e.type === 'turn_finished' && e.reason === 'end_turn'),
      'the turn completed',
    );
    fake.setWindow(200_000);
    const before = w.session.state.messages.length;
    let edits = 0;
    const historyEdited = w.compactor.historyEdited.bind(w.compactor);
    w.compactor.historyEdited = () => {
      edits++;
      historyEdited();
    };
    assert.deepEqual(await w.session.commands.restore(overflow.id), { ok: true });
    assert.equal(edits, 1, "the compactor hears of the restore (the next request's empty read is not a miss)");
    assert.ok(w.session.state.messages.length > before, 'the originals are back');
    assert.ok(JSON.stringify(w.session.state.messages).includes('Explain src/module1.ts please'));
    assert.deepEqual(checkInvariants(w.session.state), []);
  });

  for (const mask of [true, false]) {
    it(`one request of 45 tool rounds in a 24k window completes, compacting inside the turn (${mask ? 'masking, then summaries' : 'summaries only'})`, async () => {
      fake.setWindow(24_000);
      const w = world(fake, { contextWindow: 24_000, keepRecentTokens: 3_000 }, { maskToolResults: mask }, 60);
      fake.script(
        ...Array.from({ length: 40 }, (_, i) => ({
          match: { model: SUMMARISER },
          text: `Parts 1 to ${i + 2} of the module were read: \`src/part1.ts\` … each exports a handler.`,
        })),
      );
      assert.deepEqual(await w.longTurn(45), { ok: true });
      assert.ok(
        w.events.some((e) => e.type === 'turn_finished' && e.reason === 'end_turn'),
        'the turn completed',
      );
      const tooLong = fake.requests.filter(
        (r) => r.error?.rule === 'prompt_too_long' || r.error?.rule === 'context_limit',
      );
      assert.deepEqual(
        tooLong.map((r) => r.error?.message),
        [],
        'no request was too long',
      );
      const turnOf = new Set(w.records.flatMap((r) => r.originals.map((m) => m.turn)));
      assert.ok(
        w.records.length > 0 && [...turnOf].every((t) => t === 1),
        `compacted inside the one turn: ${w.records.map((r) => r.layer).join(', ')}`,
      );
      if (!mask)
        assert.ok(
          w.records.some((r) => r.layer === 'summarise'),
          'summarised inside the turn',
        );
      const state = w.session.state;
      assert.deepEqual(checkInvariants(state), []);
      const words = JSON.stringify(state.messages);
      assert.ok(
        words.includes('Read every part of the module, one by one (45 parts)'),
        "the user's words are kept verbatim",
      );
      // Restore the newest compaction: it fits in a wide window again.
      fake.setWindow(200_000);
      const last = w.records.at(-1) as CompactionRecord;
      const restored = await w.session.commands.restore(last.id);
      assert.ok(
        restored.ok || /later compaction|not fit|the window leaves/i.test(restored.reason),
        JSON.stringify(restored),
      );
    });
  }
});
