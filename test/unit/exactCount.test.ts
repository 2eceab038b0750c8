import { strict as assert } from 'node:assert';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent } from '../../src/core/agent/events';
import type { ExactCountResult, LlmClient, LlmError, LlmEvent, LlmResult } from '../../src/core/llm/llmClient';
import type { AssistantContent } from '../../src/core/conversation/assistant';
import { counterIds } from '../../src/core/platform/platformPorts';
import { emptyState, testConfig } from './support/builders';
import { Counter, Gate } from './support/gate';
import { FakeTools } from './support/scriptedLlm';
import { agentDeps } from './support/agentDeps';

type Answer = { readonly content: readonly AssistantContent[] } | { readonly error: LlmError };

/** An LlmClient whose every answer waits for its own gate (open by default unless `gated`). */
class GatedLlm implements LlmClient {
  readonly requests: MessageCreateParamsNonStreaming[] = [];
  readonly started = new Counter();
  readonly gates: Gate[] = [];
  constructor(
    private readonly answers: Answer[],
    private readonly gated = false,
  ) {}
  async stream(
    params: MessageCreateParamsNonStreaming,
    opts: { signal: AbortSignal; onEvent: (e: LlmEvent) => void },
  ): Promise<{ ok: true; result: LlmResult } | { ok: false; error: LlmError }> {
    this.requests.push(params);
    const gate = new Gate();
    if (!this.gated) gate.open();
    this.gates.push(gate);
    opts.onEvent({ type: 'request_started', attempt: 1 });
    this.started.bump();
    await gate.wait();
    const a = this.answers.shift();
    if (!a) throw new Error('script exhausted');
    if ('error' in a) return { ok: false, error: a.error };
    const stopReason = a.content.some((c) => c.type === 'tool_use') ? 'tool_use' : 'end_turn';
    return {
      ok: true,
      result: {
        content: a.content,
        stopReason,
        model: params.model,
        usage: {
          input_tokens: 5000 + this.requests.length,
          output_tokens: 10,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
        },
      },
    };
  }
}

/** A count_tokens port whose answers the test releases (or never does). */
class FakeCount {
  readonly calls: { readonly model: string; readonly release: (r: ExactCountResult) => void }[] = [];
  readonly asked = new Counter();
  constructor(private readonly answer?: ExactCountResult) {}
  readonly port = (params: MessageCreateParamsNonStreaming): Promise<ExactCountResult> =>
    new Promise<ExactCountResult>((release) => {
      this.calls.push({ model: params.model, release });
      this.asked.bump();
      if (this.answer) release(this.answer);
    });
}

const text = (t: string): Answer => ({ content: [{ type: 'text', text: t }] });
const tool = (id: string): Answer => ({ content: [{ type: 'tool_use', id, name: 'list_files', input: {} }] });

function setup(llm: GatedLlm, count?: FakeCount['port']) {
  const events: AgentEvent[] = [];
  const exact = new Counter();
  const deps = agentDeps({
    llm,
    tools: new FakeTools({ list_files: 'a.ts' }),
    ids: counterIds('x'),
    ...(count ? { countTokens: count } : {}),
  });
  const session = new AgentSession(emptyState({ config: testConfig() }), deps, (e) => {
    events.push(e);
    if (e.type === 'exact_count') exact.bump();
  });
  return { session, estimator: deps.estimator, events, exact };
}

const exactEvents = (events: readonly AgentEvent[]) => events.filter((e) => e.type === 'exact_count');
const firstEstimate = (events: readonly AgentEvent[]) => {
  const e = events.find((x) => x.type === 'request_started');
  return e?.type === 'request_started' ? e.estimatedTokens : NaN;
};

describe('exact first anchor (count_tokens beside the first request)', () => {
  it('counts the first request of the session and the first after a model switch, no other', async () => {
    const llm = new GatedLlm([tool('toolu_1'), text('done'), text('again'), text('switched'), text('same model')]);
    const count = new FakeCount({ ok: true, inputTokens: 4000 });
    const t = setup(llm, count.port);
    await t.session.send('one');
    await t.session.send('two');
    assert.equal(llm.requests.length, 3);
    assert.deepEqual(
      count.calls.map((c) => c.model),
      [testConfig().model],
      'one count for three requests of one model',
    );
    t.session.update({ config: testConfig({ model: 'claude-opus-4-6' }) });
    await t.session.send('three');
    await t.session.send('four');
    assert.deepEqual(
      count.calls.map((c) => c.model),
      [testConfig().model, 'claude-opus-4-6'],
    );
  });

  it('never delays the send: a count that never answers leaves the turn to finish', async () => {
    const llm = new GatedLlm([text('hi')]);
    const count = new FakeCount(); // never released
    const t = setup(llm, count.port);
    assert.deepEqual(await t.session.send('one'), { ok: true });
    assert.equal(count.calls.length, 1);
    assert.deepEqual(exactEvents(t.events), []);
    assert.equal(t.estimator.anchorSource, 'usage');
  });

  it('the stream starts before the count answers', async () => {
    const llm = new GatedLlm([text('hi')], true);
    const count = new FakeCount();
    const t = setup(llm, count.port);
    const sent = t.session.send('one');
    await llm.started.reached(1);
    await count.asked.reached(1);
    llm.gates[0]!.open();
    assert.deepEqual(await sent, { ok: true });
    count.calls[0]!.release({ ok: true, inputTokens: 1 });
  });

  it('a count that answers before the usage anchors the estimator, then the usage wins', async () => {
    const llm = new GatedLlm([text('hi')], true);
    const count = new FakeCount();
    const t = setup(llm, count.port);
    const sent = t.session.send('one');
    await count.asked.reached(1);
    count.calls[0]!.release({ ok: true, inputTokens: 1234 });
    await t.exact.reached(1);
    assert.equal(t.estimator.anchorTokens, 1234);
    assert.equal(t.estimator.anchorSource, 'count_tokens');
    // The conversation being sent, estimated now, is exactly the count.
    assert.equal(t.estimator.estimate(t.session.state).tokens, 1234);
    assert.deepEqual(exactEvents(t.events), [
      { type: 'exact_count', tokens: 1234, estimated: firstEstimate(t.events), anchored: true },
    ]);
    llm.gates[0]!.open();
    await sent;
    assert.equal(t.estimator.anchorSource, 'usage');
    assert.equal(t.estimator.anchorTokens, 5001);
    const used = t.events.filter((e) => e.type === 'usage');
    assert.deepEqual(
      used.map((e) => e.type === 'usage' && e.counted),
      [1234],
      'the usage (and what is saved with it) carries the count that anchored its request',
    );
  });

  it('a count that answers after the usage is only reported', async () => {
    const llm = new GatedLlm([text('hi')]);
    const count = new FakeCount();
    const t = setup(llm, count.port);
    await t.session.send('one');
    const calibration = t.estimator.calibration;
    count.calls[0]!.release({ ok: true, inputTokens: 999 });
    await t.exact.reached(1);
    assert.deepEqual(exactEvents(t.events), [
      { type: 'exact_count', tokens: 999, estimated: firstEstimate(t.events), anchored: false },
    ]);
    assert.equal(t.estimator.anchorSource, 'usage');
    assert.equal(t.estimator.anchorTokens, 5001);
    assert.equal(t.estimator.calibration, calibration);
    assert.ok(
      t.events.every((e) => e.type !== 'usage' || e.counted === undefined),
      'the usage carries no count',
    );
  });

  it('a failed or rejected count changes nothing', async () => {
    for (const answer of ['failed', 'rejected'] as const) {
      const plain = setup(new GatedLlm([text('hi'), text('more')]));
      const port =
        answer === 'failed'
          ? async (): Promise<ExactCountResult> => ({ ok: false })
          : () => Promise.reject(new Error('boom'));
      const llm = new GatedLlm([text('hi'), text('more')], true);
      const counted = setup(llm, port);
      const sent = counted.session.send('one');
      await llm.started.reached(1);
      llm.gates[0]!.open();
      await sent;
      await plain.session.send('one');
      assert.deepEqual(exactEvents(counted.events), [], answer);
      assert.equal(counted.estimator.anchorTokens, plain.estimator.anchorTokens, answer);
      assert.deepEqual(counted.estimator.calibration, plain.estimator.calibration, answer);
      assert.equal(counted.estimator.anchorSource, 'usage', answer);
    }
  });

  it('a first request that fails still leaves the exact anchor for the next', async () => {
    const llm = new GatedLlm(
      [{ error: { kind: 'overloaded', message: 'Overloaded.', retryable: true } }, text('ok')],
      true,
    );
    const count = new FakeCount();
    const t = setup(llm, count.port);
    const sent = t.session.send('one');
    await count.asked.reached(1);
    llm.gates[0]!.open();
    await sent;
    count.calls[0]!.release({ ok: true, inputTokens: 777 });
    await t.exact.reached(1);
    assert.equal(t.estimator.anchorSource, 'count_tokens');
    assert.equal(t.estimator.anchorTokens, 777);
    assert.equal((exactEvents(t.events)[0] as { anchored: boolean }).anchored, true);
  });
});
