import { strict as assert } from 'node:assert';
import { restoreRecord } from '../../src/core/compaction/apply';
import { Compactor } from '../../src/core/compaction/compactor';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import { HARD_WAIT_LIMIT } from '../../src/core/compaction/plan';
import { guardTail, TAIL_GUARD_KEEP_CHARS, TAIL_GUARD_STUB_CHARS } from '../../src/core/compaction/tailGuard';
import type { LayerContext } from '../../src/core/compaction/layerContext';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { ConversationState, Message, TextBlock } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { effectiveWindow } from '../../src/core/pipeline/window';
import { fakeClock, testConfig } from './support/builders';
import { Convo, tokensOf } from './support/compactionFixtures';
import { assertAccepted, pipeline } from './support/normalizeFixtures';
import { ScriptedLlm } from './support/scriptedLlm';

const FIXED = 5_000;
const config = testConfig({ contextWindow: 100_000, outputReserve: 10_000, keepRecentTurns: 0 });
const measure = (s: ConversationState) => FIXED + s.messages.reduce((n, m) => n + tokensOf(m), 0);
const ctx = (): LayerContext => ({ utilisation: 1, tokensOf, clock: fakeClock(), ids: counterIds('tw') });

/** `chars` characters of distinct code, as a user pastes it. */
const code = (n: number, chars: number) =>
  Array.from({ length: Math.ceil(chars / 40) }, (_, i) => `const v${n}_${i} = f(${i}); // line ${i}`)
    .join('\n')
    .slice(0, chars);

/** `turns` finished turns whose user message pastes `chars` characters of code, then a newest pasting request. */
function pastes(turns: number, chars: number): ConversationState {
  const c = new Convo('pw');
  c.add({ user: 'Short question first?', answer: 'Short answer.' });
  for (let i = 1; i <= turns; i++)
    c.add({ user: `Look at this, part ${i}:\n${code(i, chars)}`, answer: `Noted part ${i}.` });
  c.add({ user: `And the newest part:\n${code(999, chars)}` });
  return c.state({ messages: c.messages.slice(0, -1), config });
}

/** The Compactor of these tests under `settings`; its summariser answers once. */
const compactor = (settings = DEFAULT_COMPACTION_SETTINGS) =>
  new Compactor({
    summariser: new ScriptedLlm([{ content: [{ type: 'text', text: 'Summary of the earlier parts.' }] }]),
    clock: fakeClock(),
    ids: counterIds('twc'),
    tokensOf,
    measure,
    settings: () => settings,
    timeout: () => new Promise(() => undefined),
  });
const signal = () => new AbortController().signal;

/** The user's text blocks, in order. */
const words = (s: ConversationState): TextBlock[] =>
  s.messages.flatMap((m) => m.blocks.filter((b): b is TextBlock => b.type === 'text' && b.meta.source === 'user'));

describe("tail guard: the user's own words outgrow the window", () => {
  it('cuts older long messages, largest first, to a head and tail with a note; never the newest words or a short question; restorable', () => {
    const state = pastes(6, 12_000);
    const out = guardTail(state, ctx(), 6_000);
    const [short, ...rest] = words(out.state);
    const newest = rest.pop();
    assert.equal(short?.text, 'Short question first?', 'a short question stays whole');
    assert.equal(newest, words(state).at(-1), "the user's newest words are never cut");
    const cut = rest.filter((b) => b.text.length <= TAIL_GUARD_KEEP_CHARS);
    assert.ok(cut.length >= 1 && cut.length < rest.length, `cut ${cut.length} of ${rest.length}: only what was needed`);
    assert.equal(rest.indexOf(cut[0] as TextBlock), 0, 'equal sizes: the oldest goes first');
    for (const b of cut) {
      assert.match(b.text, /^Look at this, part \d+:/, 'the head stays');
      assert.match(
        b.text,
        /characters of this message of the user left out so the request fits the context window; the original is kept and can be restored from the Compactions view/,
      );
    }
    assert.match(
      out.notice ?? '',
      /What compaction always keeps — your own words and the newest messages — was more than the context window leaves: (one long earlier message|\d+ long earlier messages) of yours cut in the middle/,
    );
    assert.deepEqual(checkInvariants(out.state), []);
    assert.ok(out.record);
    const back = restoreRecord(out.state, out.record);
    assert.ok(back.ok);
    assert.deepEqual(words(back.state), words(state), 'restored word for word');
  });

  it('when cutting the large ones is not enough, cuts the oldest messages down to a stub; pinned words stay', () => {
    const state = pastes(10, 3_000);
    const pinnedAt = 4;
    const withPin: ConversationState = {
      ...state,
      messages: state.messages.map((m, i) =>
        i === pinnedAt ? { ...m, blocks: m.blocks.map((b) => ({ ...b, meta: { ...b.meta, pinned: true } })) } : m,
      ),
    };
    const out = guardTail(withPin, ctx(), measure(withPin));
    const all = words(out.state);
    const older = all.slice(1, -1);
    const pinned = (withPin.messages[pinnedAt] as Message).blocks[0] as TextBlock;
    for (const b of older)
      if (b.meta.pinned) assert.equal(b.text, pinned.text, 'a pinned message is never cut');
      else assert.ok(b.text.length <= TAIL_GUARD_STUB_CHARS, `${b.text.length}`);
    assert.equal(all.at(-1), words(withPin).at(-1), 'the newest words stay whole');
    assert.equal(all[0]?.text, 'Short question first?');
  });

  it("keeps the user's first message, which states the task, whole until everything else was cut", () => {
    const c = new Convo('task');
    c.add({ user: `The task, at length:\n${code(0, 20_000)}`, answer: 'On it.' });
    for (let i = 1; i <= 4; i++) c.add({ user: `Part ${i}:\n${code(i, 12_000)}`, answer: `Noted ${i}.` });
    c.add({ user: 'Newest question?' });
    const state = c.state({ messages: c.messages.slice(0, -1), config });
    const [task] = words(state);
    const some = guardTail(state, ctx(), 8_000);
    assert.equal(words(some.state)[0], task, 'the largest message, but the task: not cut while others can be');
    assert.ok(
      words(some.state)
        .slice(1, -1)
        .some((b) => b.text.length <= TAIL_GUARD_KEEP_CHARS),
    );
    const all = guardTail(state, ctx(), measure(state));
    assert.ok(
      (words(all.state)[0] as TextBlock).text.length <= TAIL_GUARD_STUB_CHARS,
      'cut last, when nothing else is left',
    );
  });

  it('acts from the hard threshold, where every request would compact again; under a server strategy only near the window', async () => {
    const eff = effectiveWindow(config);
    // A session whose words alone put the request between the hard threshold and the old 97 % limit.
    let state: ConversationState | undefined;
    for (let n = 1; n < 80 && !state; n++) {
      const s = pastes(n, 6_000);
      const share = measure(s) / eff;
      if (share > config.hardThreshold + 0.01 && share < HARD_WAIT_LIMIT - 0.01) state = s;
    }
    assert.ok(state, 'a session between the thresholds');
    const run = (settings = DEFAULT_COMPACTION_SETTINGS) =>
      compactor(settings).beforeRequest(state as ConversationState, { signal: signal() });
    const local = await run(DEFAULT_COMPACTION_SETTINGS);
    assert.ok(
      local.records.some((r) => r.layer === 'tail-guard'),
      local.records.map((r) => r.layer).join(', '),
    );
    assert.ok(measure(local.state) < config.hardThreshold * eff, `${measure(local.state)} of ${eff}`);
    const server = await run({ ...DEFAULT_COMPACTION_SETTINGS, strategy: 'server-clear-tool-uses' });
    assert.ok(!server.records.some((r) => r.layer === 'tail-guard'), 'the estimate counts what the server clears');
  });

  it('the compactor cuts them before the request and sends one the fake API accepts', async () => {
    const state = pastes(40, 12_000);
    assert.ok(measure(state) > effectiveWindow(config), 'the words alone are more than the window');
    const run = await compactor().beforeRequest(state, { signal: signal() });
    assert.ok(run.records.some((r) => r.layer === 'tail-guard'));
    assert.ok(measure(run.state) < HARD_WAIT_LIMIT * effectiveWindow(config), `${measure(run.state)}`);
    assert.equal(words(run.state).at(-1)?.text, words(state).at(-1)?.text);
    assert.match(run.notices.join('\n'), /your own words and the newest messages/);
    assertAccepted(pipeline().prepare(run.state).params);
  });
});
