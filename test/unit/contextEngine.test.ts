import { strict as assert } from 'node:assert';
import type { ContextEngine, EngineContext } from '../../api/context-pipeline';
import type { ConversationState, Message } from '../../src/core/conversation/conversationModel';
import { fromEngineMessages, toEngineView } from '../../src/core/engine/engineMessages';
import { EngineRegistry, LAYERED, SLIDING_WINDOW } from '../../src/core/engine/engineRegistry';
import { ENGINE_TIMEOUT_MS, EngineSlot, type EngineSlotDeps } from '../../src/core/engine/engineSlot';
import { newestThatFit } from '../../src/core/engine/slidingWindow';
import { normalizeState } from '../../src/core/normalize/normalize';
import { serializeRequest } from '../../src/core/pipeline/serialize';
import { validateRequest } from '../../test/fake-anthropic/validateRequest';
import { Convo, lines } from './support/compactionBuilders';

/** 1 token per 4 characters of a message's JSON: enough to compare with a budget. */
const tokensOf = (m: Message) => Math.ceil(JSON.stringify(m.blocks).length / 4);

/** A sleep the test releases by hand (no wall clock): `release()` ends every pending one. */
function gate() {
  const pending: Array<() => void> = [];
  const asked: number[] = [];
  return {
    asked,
    sleep: (ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        asked.push(ms);
        pending.push(resolve);
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      }),
    release: () => pending.splice(0).forEach((r) => r()),
  };
}

function slot(registry: EngineRegistry, id: string, over: Partial<EngineSlotDeps> = {}): EngineSlot {
  return new EngineSlot({
    registry,
    engineId: () => id,
    sessionId: 's1',
    messageTokens: (ms) => ms.map(tokensOf),
    measure: (s) => s.messages.reduce((n, m) => n + tokensOf(m), 0) + 100,
    now: () => 1,
    sleep: gate().sleep,
    ...over,
  });
}

function longSession(): ConversationState {
  const c = new Convo();
  for (let t = 0; t < 6; t++) c.user(`question ${t}`).read(`f${t}.ts`, lines(30)).say(`answer ${t}`);
  return c.user('and now?').state();
}

const signal = new AbortController().signal;

describe('the context engine slot (core/engine)', () => {
  it('registers engines by id, refuses a taken or malformed id, and unregisters on dispose', () => {
    const r = new EngineRegistry();
    const heard: string[] = [];
    r.onDidChange((id) => heard.push(id));
    const engine: ContextEngine = {
      info: { name: 'x', ownsCompaction: false },
      assemble: (c) => ({ messages: c.messages }),
    };
    const reg = r.register('my-engine', () => engine);
    assert.ok(r.has('my-engine'));
    assert.deepEqual(r.ids().slice(0, 3), ['layered', 'server-compact', 'sliding-window']);
    assert.throws(() => r.register('my-engine', () => engine), /already registered/);
    assert.throws(() => r.register(LAYERED, () => engine), /already registered/);
    assert.throws(() => r.register('bad id!', () => engine), /not a context engine id/);
    reg.dispose();
    assert.ok(!r.has('my-engine'));
    assert.deepEqual(heard, ['my-engine', 'my-engine']);
  });

  it('gives an engine plain copies and maps what it returns unchanged back to the same messages', () => {
    const state = longSession();
    const view = toEngineView(state.messages);
    // An engine scribbling on what it got changes nothing the session holds.
    (view.messages[0] as { content: unknown }).content = 'changed';
    const back = fromEngineMessages(toEngineView(state.messages).messages.slice(-3), toEngineView(state.messages), 5);
    assert.ok(back.ok);
    assert.deepEqual(
      back.messages.map((m) => m.id),
      state.messages.slice(-3).map((m) => m.id),
    );
    // New content gets an id from its content: the same on the next request.
    const written = [{ role: 'user', content: 'a note from the engine' }];
    const a = fromEngineMessages(written, view, 5);
    const b = fromEngineMessages(written, view, 9);
    assert.ok(a.ok && b.ok);
    assert.equal(a.messages[0]?.id, b.messages[0]?.id);
    assert.equal(a.messages[0]?.blocks[0]?.meta.tier, 3);
    const bad = fromEngineMessages([{ role: 'system', content: 'x' }], view, 5);
    assert.ok(!bad.ok);
    assert.match(bad.reason, /not a list of messages/);
    const server = fromEngineMessages([{ role: 'user', content: [{ type: 'document', source: {} }] }], view, 5);
    assert.ok(!server.ok);
    assert.match(server.reason, /block of type "document"/);
  });

  it('the sliding window keeps the newest turns that fit, from a user message of words, and the request is valid', async () => {
    const state = longSession();
    const s = slot(new EngineRegistry(), SLIDING_WINDOW);
    const step = await s.assemble(
      { ...state, config: { ...state.config, contextWindow: 3_000, outputReserve: 500 } },
      { signal },
    );
    assert.equal(step.kind, 'engine');
    assert.ok(step.kind === 'engine');
    assert.equal(step.use.name, 'Sliding window');
    assert.ok(step.state.messages.length < state.messages.length);
    assert.equal(step.state.messages.at(-1)?.id, state.messages.at(-1)?.id);
    const first = step.state.messages[0];
    assert.equal(first?.role, 'user');
    assert.ok(!first?.blocks.some((b) => b.type === 'tool_result'));
    const sent = normalizeState(step.state);
    assert.deepEqual(sent.repairs, []);
    validateRequest(JSON.parse(JSON.stringify(serializeRequest(sent.state, []))), 'messages');
    // With room for everything, everything.
    const all = newestThatFit({
      messages: toEngineView(state.messages).messages,
      messageTokens: state.messages.map(tokensOf),
      tokenBudget: 1e9,
    });
    assert.equal(all.length, state.messages.length);
  });

  it('falls back to the layered engine, with one notice, when an engine throws, returns junk or too much, or is not there', async () => {
    const state = longSession();
    const r = new EngineRegistry();
    const run = async (id: string, engine: Partial<ContextEngine>) => {
      if (id !== 'missing')
        r.register(id, () => ({ info: { name: id, ownsCompaction: true }, ...engine }) as ContextEngine);
      const s = slot(r, id);
      const first = await s.assemble(state, { signal });
      const second = await s.assemble(state, { signal });
      assert.equal(first.kind, 'layered');
      assert.equal(second.kind, 'layered');
      assert.ok(first.kind === 'layered' && second.kind === 'layered');
      assert.ok(first.notice, `${id}: a notice the first time`);
      assert.equal(second.notice, undefined, `${id}: no second notice`);
      assert.match(first.use.fallback ?? '', /the layered engine served this request/);
      return first.use.fallback ?? '';
    };
    assert.match(
      await run('throws', {
        assemble: () => {
          throw new Error('boom');
        },
      }),
      /its assemble threw: boom/,
    );
    assert.match(await run('junk', { assemble: () => ({ messages: 'nope' }) as never }), /not a list of messages/);
    assert.match(await run('empty', { assemble: () => ({ messages: [] }) }), /no messages/);
    const huge = [{ role: 'user' as const, content: 'x'.repeat(4_000_000) }];
    assert.match(await run('huge', { assemble: () => ({ messages: huge }) }), /over the .* the window allows/);
    assert.match(await run('missing', {}), /no extension has registered it/);
  });

  it('an engine that does not answer in time is left behind when its time runs out (a gate, not a clock)', async () => {
    const state = longSession();
    const r = new EngineRegistry();
    r.register('slow', () => ({
      info: { name: 'Slow', ownsCompaction: false },
      assemble: () => new Promise(() => undefined),
    }));
    const g = gate();
    let limit = ENGINE_TIMEOUT_MS;
    const s = slot(r, 'slow', { sleep: g.sleep, timeoutMs: () => limit });
    const late = async () => {
      const pending = s.assemble(state, { signal });
      // Let the hook start, then the time limit passes.
      await Promise.resolve();
      g.release();
      return pending;
    };
    const step = await late();
    assert.equal(step.kind, 'layered');
    assert.match(step.use.fallback ?? '', /took longer than 10 s/);
    // The user's limit (contextPipeline.contextEngineTimeoutSeconds) is read on each call.
    limit = 45_000;
    assert.match((await late()).use.fallback ?? '', /took longer than 45 s/);
    assert.deepEqual(g.asked, [10_000, 45_000]);
  });

  it('bootstraps an engine once, gives it the last usage, and lets it go when it is unregistered', async () => {
    const state = longSession();
    const r = new EngineRegistry();
    const seen: EngineContext[] = [];
    let boots = 0;
    let disposed = 0;
    const reg = r.register('spy', () => ({
      info: { name: 'Spy', ownsCompaction: false },
      bootstrap: () => void boots++,
      assemble: (c) => {
        seen.push(c);
        return { messages: c.messages };
      },
      dispose: () => void disposed++,
    }));
    const s = slot(r, 'spy');
    await s.assemble(state, { signal });
    s.observe({ input_tokens: 1, output_tokens: 2, cache_read_input_tokens: 3, cache_creation_input_tokens: 4 });
    const step = await s.assemble(state, { signal });
    assert.equal(step.kind, 'engine');
    assert.ok(step.kind === 'engine');
    // Given back unchanged: the very same messages (ids, metadata) go on.
    assert.deepEqual(step.state.messages, state.messages);
    assert.equal(boots, 1);
    assert.equal(seen[0]?.sessionId, 's1');
    assert.equal(seen[1]?.lastUsage?.cache_read_input_tokens, 3);
    assert.ok((seen[0]?.tokenBudget ?? 0) > 0);
    reg.dispose();
    assert.equal(disposed, 1);
    assert.equal((await s.assemble(state, { signal })).kind, 'layered');
  });

  it('tells the engine of each subagent, with the parent session and what it was asked; a failing hook is said, not fatal', async () => {
    const r = new EngineRegistry();
    const heard: unknown[] = [];
    r.register('hooks', () => ({
      info: { name: 'Hooks', ownsCompaction: false },
      assemble: (c) => ({ messages: c.messages }),
      prepareSubagentSpawn: (s) => void heard.push(['spawn', s]),
      onSubagentEnded: () => {
        throw new Error('no thanks');
      },
    }));
    const s = slot(r, 'hooks');
    await s.assemble(longSession(), { signal });
    assert.equal(
      await s.subagentSpawning({ toolUseId: 't1', description: 'look', prompt: 'find x' }, signal),
      undefined,
    );
    assert.deepEqual(heard, [
      ['spawn', { parentSessionId: 's1', toolUseId: 't1', description: 'look', prompt: 'find x' }],
    ]);
    const ended = await s.subagentEnded({ toolUseId: 't1', sessionId: 'child', state: 'done' }, signal);
    assert.match(ended ?? '', /"Hooks": its onSubagentEnded threw: no thanks/);
  });
});
