import { strict as assert } from 'node:assert';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent } from '../../src/core/agent/events';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { Message } from '../../src/core/conversation/conversationModel';
import { emptyState, testConfig } from './support/builders';
import { FakeTools, ScriptedLlm, type Step } from './support/scriptedLlm';
import { words } from './support/tokenFakes';
import { nullSink } from './support/sessionSink';
import { agentDeps } from './support/agentDeps';

function setup(
  steps: Step[],
  tools = new FakeTools({ read_file: '1\tconst a = 1;', list_files: 'a.ts\nb.ts' }),
  config = testConfig(),
) {
  const llm = new ScriptedLlm(steps);
  const persisted: Message[] = [];
  const usages: number[] = [];
  const events: AgentEvent[] = [];
  const files = new Map<string, string>();
  const deps = agentDeps({
    llm,
    tools,
    sink: nullSink({
      message: async (m) => void persisted.push(m),
      usage: async (u) => void usages.push(u.costUsd ?? NaN),
    }),
    writeFile: async (p, c) => void files.set(p, c),
  });
  const session = new AgentSession(emptyState({ config }), deps, (e) => events.push(e));
  return { session, llm, tools, persisted, usages, events, files };
}

const toolUse = (id: string, name: string, input: unknown = {}) => ({ type: 'tool_use' as const, id, name, input });

describe('AgentSession (turn loop with a scripted LlmClient)', () => {
  it('answers a plain message and persists both messages', async () => {
    const t = setup([{ content: [{ type: 'text', text: 'Hello!' }] }]);
    assert.deepEqual(await t.session.send('hi'), { ok: true });
    assert.deepEqual(
      t.session.state.messages.map((m) => m.role),
      ['user', 'assistant'],
    );
    assert.equal(t.persisted.length, 2);
    assert.equal(t.usages.length, 1);
    assert.deepEqual(
      t.events.filter((e) => e.type === 'turn_finished'),
      [{ type: 'turn_finished', reason: 'end_turn', stopReason: 'end_turn' }],
    );
    assert.deepEqual(checkInvariants(t.session.state), []);
  });

  it('runs a multi-tool round and continues without user input until end_turn', async () => {
    const t = setup([
      {
        content: [
          { type: 'text', text: 'Looking.' },
          toolUse('toolu_1', 'list_files'),
          toolUse('toolu_2', 'read_file', { path: 'a.ts' }),
        ],
      },
      { content: [{ type: 'text', text: 'a.ts sets a to 1.' }] },
    ]);
    await t.session.send('what is in a.ts?');
    assert.deepEqual(
      t.tools.calls.map((c) => c.name),
      ['list_files', 'read_file'],
    );
    assert.equal(t.llm.requests.length, 2);
    const second = t.llm.requests[1]!.messages;
    assert.deepEqual(
      second.map((m) => m.role),
      ['user', 'assistant', 'user'],
    );
    const results = second[2]!.content as Array<{ type: string; tool_use_id: string }>;
    assert.deepEqual(
      results.map((r) => r.tool_use_id),
      ['toolu_1', 'toolu_2'],
    );
    assert.deepEqual(checkInvariants(t.session.state), []);
    assert.equal(t.persisted.length, 4, 'every completed message was persisted');
  });

  it('stops within the tool round: unanswered calls get cancelled results, history stays valid', async () => {
    const tools = new FakeTools({ read_file: 'x' }, new Set(['run_command']));
    const t = setup(
      [{ content: [toolUse('toolu_1', 'run_command', { command: 'sleep 100' }), toolUse('toolu_2', 'read_file')] }],
      tools,
    );
    const turn = t.session.send('run it');
    await t.tools.waiting.reached(1); // run_command has started and waits (no sleep: a busy machine cannot make Stop come first)
    assert.ok(t.session.busy);
    t.session.stop();
    await turn;
    const results = t.session.state.messages[2]!.blocks.map((b) =>
      b.type === 'tool_result' ? [b.toolUseId, b.isError, String(b.content).slice(0, 10)] : [],
    );
    assert.deepEqual(results, [
      ['toolu_1', true, 'Cancelled:'],
      ['toolu_2', true, 'Cancelled:'],
    ]);
    assert.equal(t.session.state.messages.at(-1)!.role, 'assistant', 'a stop note keeps roles alternating');
    assert.deepEqual(checkInvariants(t.session.state, { allowPendingToolUse: false }), []);
    assert.equal(t.tools.calls.length, 1, 'the second tool never ran');
    assert.ok(t.events.some((e) => e.type === 'turn_finished' && e.reason === 'stopped'));
  });

  it('stops while streaming and keeps what was said', async () => {
    const t = setup([
      { hangUntilAbort: true, partialText: 'Partial answ' },
      { content: [{ type: 'text', text: 'ok' }] },
    ]);
    const turn = t.session.send('tell me');
    await t.llm.hanging.reached(1); // the answer is streaming: 'Partial answ' has arrived
    t.session.stop();
    await turn;
    const last = t.session.state.messages.at(-1)!;
    assert.ok(
      last.blocks[0]?.type === 'text' &&
        last.blocks[0].text.startsWith('Partial answ') &&
        last.blocks[0].text.includes('[Stopped by the user.]'),
    );
    assert.deepEqual(await t.session.send('go on'), { ok: true });
    assert.deepEqual(checkInvariants(t.session.state), []);
  });

  it('keeps the message after a failure, retries on request, and records a failed request before a new message', async () => {
    const down = { kind: 'network' as const, message: 'Could not reach the API', retryable: true };
    const t = setup([
      { error: down, retries: 2 },
      { content: [{ type: 'text', text: 'back' }] },
      { error: down },
      { content: [{ type: 'text', text: 'fine' }] },
    ]);
    await t.session.send('first');
    assert.ok(t.events.some((e) => e.type === 'error' && e.error.kind === 'network'));
    assert.equal(t.events.filter((e) => e.type === 'retrying').length, 2, 'retries are visible');
    assert.deepEqual(
      t.session.state.messages.map((m) => m.role),
      ['user'],
      'the message is kept',
    );
    await t.session.retry();
    assert.deepEqual(
      t.session.state.messages.map((m) => m.role),
      ['user', 'assistant'],
    );
    await t.session.send('second');
    await t.session.send('third');
    const texts = t.session.state.messages.map((m) => (m.blocks[0]?.type === 'text' ? m.blocks[0].text : ''));
    assert.deepEqual(texts.slice(2), [
      'second',
      '[No answer: the previous request failed or was stopped before Claude replied.]',
      'third',
      'fine',
    ]);
    assert.deepEqual(checkInvariants(t.session.state), []);
  });

  it('recovers from "prompt is too long" by cutting oversized tool results once, then reports clearly', async () => {
    const big = 'x'.repeat(200_000);
    const tools = new FakeTools({ read_file: big });
    const tooLong = {
      kind: 'prompt_too_long' as const,
      message: 'too long',
      retryable: false,
      promptTokens: 210_000,
      limitTokens: 200_000,
    };
    const t = setup(
      [
        { content: [toolUse('toolu_1', 'read_file')] },
        { error: tooLong },
        { content: [{ type: 'text', text: 'done' }] },
      ],
      tools,
    );
    await t.session.send('read the big file');
    assert.equal(t.llm.requests.length, 3);
    const retried = JSON.stringify(t.llm.requests[2]);
    assert.ok(retried.length < 100_000, 'the retried request is smaller');
    assert.ok(/characters cut because the conversation no longer fit/.test(retried));
    assert.ok(t.events.some((e) => e.type === 'notice' && /did not fit/.test(e.text)));
    assert.ok(t.events.some((e) => e.type === 'turn_finished' && e.reason === 'end_turn'));

    const t2 = setup([{ error: tooLong }]);
    await t2.session.send('small');
    const err = t2.events.find((e) => e.type === 'error');
    assert.ok(err && err.type === 'error' && err.error.kind === 'prompt_too_long', 'nothing to cut: a clear error');
  });

  it('shrinks max_tokens for "input length and max_tokens exceed context limit"', async () => {
    const exceeded = {
      kind: 'context_exceeded' as const,
      message: 'exceeded',
      retryable: false,
      promptTokens: 180_000,
      limitTokens: 200_000,
    };
    const t = setup([{ error: exceeded }, { content: [{ type: 'text', text: 'ok' }] }]);
    await t.session.send('hi');
    assert.equal(t.llm.requests[1]!.max_tokens, 200_000 - 180_000 - 256);
  });

  it('recovers from both overflow kinds in one turn, a bounded number of times, then gives up clearly', async () => {
    const tools = new FakeTools({ read_file: 'z'.repeat(150_000) });
    const exceeded = {
      kind: 'context_exceeded' as const,
      message: 'exceeded',
      retryable: false,
      promptTokens: 2_500,
      limitTokens: 24_000,
    };
    const tooLong = {
      kind: 'prompt_too_long' as const,
      message: 'too long',
      retryable: false,
      promptTokens: 40_000,
      limitTokens: 24_000,
    };
    const t = setup(
      [
        { error: exceeded },
        { content: [toolUse('toolu_1', 'read_file')] },
        { error: tooLong },
        { content: [{ type: 'text', text: 'read it' }] },
      ],
      tools,
    );
    await t.session.send('read');
    assert.ok(t.events.some((e) => e.type === 'turn_finished' && e.reason === 'end_turn'));
    const again = setup([{ error: tooLong }], tools);
    await again.session.send('x');
    const err = again.events.find((e) => e.type === 'error');
    assert.ok(err?.type === 'error' && /start a new session/.test(err.error.message));
    assert.equal(again.llm.requests.length, 1, 'no loop: nothing to cut, no retry');
  });

  it('stops after the configured number of tool rounds', async () => {
    const steps: Step[] = Array.from({ length: 6 }, (_, i) => ({ content: [toolUse(`toolu_${i}`, 'list_files')] }));
    const t = setup(steps);
    await t.session.send('loop forever');
    assert.equal(t.llm.requests.length, 5);
    assert.ok(t.events.some((e) => e.type === 'turn_finished' && e.reason === 'tool_limit'));
    assert.deepEqual(checkInvariants(t.session.state), [], 'the last tool results are in place; the user can continue');
  });

  it('reports max_tokens, refusal and unknown stop reasons without crashing', async () => {
    for (const [stop, reason] of [
      ['max_tokens', 'max_tokens'],
      ['refusal', 'refusal'],
      ['pause_turn', 'other'],
      ['brand_new_reason', 'other'],
    ] as const) {
      const t = setup([{ content: [{ type: 'text', text: 'partial' }], stopReason: stop }]);
      await t.session.send('x');
      assert.ok(
        t.events.some((e) => e.type === 'turn_finished' && e.reason === reason),
        stop,
      );
    }
  });

  it('anchors the estimate on reported usage and places cache breakpoints', async () => {
    const t = setup([
      { content: [{ type: 'text', text: 'one' }], usage: { input_tokens: 50_000 } },
      { content: [{ type: 'text', text: 'two' }] },
    ]);
    await t.session.send(words(3_000));
    await t.session.send('again');
    const started = t.events.flatMap((e) => (e.type === 'request_started' ? [e] : []));
    assert.equal(started.length, 2);
    assert.ok(started[1]?.anchored && started[1].estimatedTokens > 50_000);
    assert.ok(/cache_control/.test(JSON.stringify(t.llm.requests[1])), 'a breakpoint was placed');
  });

  it('spills an oversized paste to a file before sending', async () => {
    const t = setup(
      [{ content: [{ type: 'text', text: 'got it' }] }],
      undefined,
      testConfig({ pasteThresholdChars: 1000 }),
    );
    await t.session.send('y'.repeat(5000));
    assert.equal(t.files.size, 1);
    assert.equal([...t.files.values()][0], 'y'.repeat(5000));
    assert.ok(JSON.stringify(t.llm.requests[0]).length < 4000);
  });
});
