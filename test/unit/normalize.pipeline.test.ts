import { strict as assert } from 'node:assert';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent } from '../../src/core/agent/events';
import { buildLedger } from '../../src/core/pipeline/ledger';
import type { ConversationState, Message } from '../../src/core/conversation/conversationModel';
import { normalizeState, NO_REPAIRS } from '../../src/core/normalize/normalize';
import { counterIds } from '../../src/core/platform/platformPorts';
import { validateRequest } from '../fake-anthropic/validateRequest';
import { testConfig } from './support/builders';
import { assertAccepted, NBuild, pipeline, stateOf } from './support/normalizeFixtures';
import { ScriptedLlm } from './support/scriptedLlm';
import { words } from './support/tokenFakes';
import { nullSink } from './support/sessionSink';
import { agentDeps } from './support/agentDeps';

/**
 * A conversation broken in several ways at once: a leading answer, an interrupted call, an
 * orphan result, a lone surrogate, unsigned thinking.
 */
function corrupt(b: NBuild): Message[] {
  const lost = b.toolUse('read_file', { path: 'a.ts' });
  return [
    b.assistant(b.summary(words(400))),
    b.user(b.text(`fix it \uD83D ${words(300)}`)),
    b.assistant(b.thinking('hmm'), b.text(words(200), 'assistant'), lost),
    b.user(b.toolResult('toolu_gone', words(300)), b.text('why did it stop?')),
    b.assistant(b.text(words(100), 'assistant')),
    b.user(b.text('go on')),
  ];
}

/** Freezes everything a request could reach except `meta` (whose `tokenCount` is the documented counting memo). */
function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const [k, x] of Object.entries(v)) if (k !== 'meta') deepFreeze(x);
  }
  return v;
}

const withoutMemo = (s: ConversationState) =>
  JSON.stringify(s, (k, v: unknown) => (k === 'tokenCount' ? undefined : v));

describe('normalize inside prepareRequest', () => {
  it('never changes the state passed in (the session keeps what it holds)', () => {
    const b = new NBuild('nm');
    const messages = deepFreeze(corrupt(b));
    const state = stateOf(messages, { system: deepFreeze([b.text('sys \uDE00', 'system')]) });
    const before = withoutMemo(state);
    const p = pipeline().prepare(state);
    assertAccepted(p.params);
    assert.ok(p.repairs.length >= 5);
    assert.notEqual(p.sent, state);
    assert.equal(state.messages, messages);
    assert.equal(withoutMemo(state), before);
  });

  it('is idempotent: the normalized state is valid as it is', () => {
    const b = new NBuild('id');
    const n = normalizeState(stateOf(corrupt(b)));
    const again = normalizeState(n.state);
    assert.equal(again.state, n.state);
    assert.equal(again.repairs, NO_REPAIRS);
  });

  it('returns the same repaired messages turn after turn: nothing recounted, the serializer memo and the anchor hold', () => {
    const b = new NBuild('st');
    const pl = pipeline();
    const history = corrupt(b);
    const first = pl.prepare(stateOf(history));
    pl.estimator.observe(first.sent, { input_tokens: 9000 });
    const charsAfterFirst = pl.tokenizer.chars;
    const next = [...history, b.assistant(b.text('Done.', 'assistant')), b.user(b.text('thanks'))];
    const second = pl.prepare(stateOf(next));
    assertAccepted(second.params);
    first.sent.messages.forEach((m, i) =>
      assert.equal(second.sent.messages[i], m, `normalized message ${i} is the same object`),
    );
    assert.equal(
      pl.tokenizer.chars - charsAfterFirst,
      'Done.'.length + 'thanks'.length,
      'only the new blocks were tokenised',
    );
    assert.equal(second.tokens.anchored, true);
    assert.equal(
      pl.estimator.estimate(stateOf(next)).mode,
      'anchored',
      'the stored (unnormalized) state estimates anchored too',
    );
  });

  it('plans breakpoints and counts tokens on the normalized messages, and the ledger matches the request', () => {
    const b = new NBuild('an');
    const pl = pipeline();
    const p = pl.prepare(stateOf(corrupt(b), { config: testConfig({ minCacheableTokens: 50 }) }));
    assertAccepted(p.params);
    assert.equal(p.tokens.messages.length, p.sent.messages.length);
    assert.ok(p.anchors.some((a) => a.target.at === 'message'));
    for (const a of p.anchors) if (a.target.at === 'message') assert.ok(a.target.messageIndex < p.sent.messages.length);
    const ledger = buildLedger(p.sent, p.anchors, pl.tokenizer, pl.estimator.calibration, p.repairs);
    const sentBlocks = p.params.messages.flatMap((m) =>
      typeof m.content === 'string'
        ? [{ cache_control: undefined }]
        : (m.content as Array<{ cache_control?: unknown }>),
    );
    const messageRows = ledger.filter((r) => r.role === 'user' || r.role === 'assistant');
    assert.equal(messageRows.length, sentBlocks.length, 'one ledger row per block sent');
    assert.deepEqual(
      messageRows.map((r) => r.breakpoint),
      sentBlocks.map((c) => c.cache_control !== undefined),
      'breakpoints on the same blocks',
    );
    const marked = ledger.filter((r) => r.repair !== undefined);
    assert.ok(
      marked.some((r) => r.kind === 'tool_result' && /interrupted/.test(r.repair ?? '')),
      'the added result is marked in the ledger',
    );
    assert.ok(
      marked.some((r) => r.kind === 'text' && /whose call is not in the message before/.test(r.repair ?? '')),
      'the orphan result turned text is marked',
    );
  });

  it('an agent turn on a broken stored history sends a valid request, reports the repairs, and stores only new messages', async () => {
    const b = new NBuild('ag');
    // A history starting with the assistant (its first user message compacted away) and a lone surrogate from an older session file.
    const crashed = [
      b.assistant(b.summary('We read a.ts.')),
      b.user(b.text('half an emoji: \uD83D')),
      b.assistant(b.text('Noted.', 'assistant')),
    ];
    const llm = new ScriptedLlm([{ content: [{ type: 'text', text: 'Where were we?' }] }]);
    const persisted: Message[] = [];
    const events: AgentEvent[] = [];
    const session = new AgentSession(
      stateOf(crashed),
      agentDeps({
        llm,
        sink: nullSink({ message: async (m) => void persisted.push(m) }),
        clock: { now: () => 0 },
        ids: counterIds('ag'),
      }),
      (e) => events.push(e),
    );
    assert.deepEqual(await session.send('continue'), { ok: true });
    const sent = llm.requests[0];
    assert.ok(sent);
    validateRequest(JSON.parse(JSON.stringify(sent)), 'messages');
    const started = events.find((e) => e.type === 'request_started');
    assert.deepEqual(started?.type === 'request_started' ? started.repairs?.map((r) => r.kind) : undefined, [
      'first_not_user',
      'lone_surrogate',
    ]);
    assert.deepEqual(session.state.messages.slice(0, 3), crashed, 'the stored history is not rewritten');
    assert.deepEqual(
      persisted.map((m) => m.role),
      ['user', 'assistant'],
      'only the new messages are written',
    );
  });
});
