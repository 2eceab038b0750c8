import { strict as assert } from 'node:assert';
import { AgentSession } from '../../src/core/agent/agentSession';
import type { AgentEvent } from '../../src/core/agent/events';
import { renderInjection } from '../../src/core/conversation/injections';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { ConversationState, TextBlock } from '../../src/core/conversation/conversationModel';
import {
  isMessagePinned,
  pinBlock,
  pinMessage,
  pinnedRegions,
  PREVIEW_CHARS,
  selectionOf,
} from '../../src/core/compaction/pins';
import { counterIds } from '../../src/core/platform/platformPorts';
import type { SessionEntry } from '../../src/core/session/entries';
import { replaySession } from '../../src/core/session/replay';
import { initialCalibration } from '../../src/core/tokens/calibration';
import { Build, emptyState, testConfig } from './support/builders';
import { sampleHeader } from './support/sessionSamples';
import { ScriptedLlm } from './support/scriptedLlm';
import { countingTokenizer } from './support/tokenFakes';
import { nullSink } from './support/sessionSink';
import { agentDeps } from './support/agentDeps';

/** A user message with a pinned selection (as Pin Selection sends it) and the user's words; an answer; a second turn. */
function conversation(): { state: ConversationState; selection: TextBlock; b: Build } {
  const b = new Build('pin');
  const text = renderInjection({
    kind: 'ide_selection',
    path: 'src/greet.js',
    startLine: 1,
    endLine: 3,
    text: 'export function greet(name) {\n  return `Hello, ${name}!`;\n}',
    pinned: true,
  });
  const selection: TextBlock = {
    ...b.text(text, 'ide_selection'),
    meta: { ...b.text('x', 'ide_selection').meta, pinned: true },
  };
  const state = emptyState({
    messages: [
      b.message('user', [selection, b.text('What does greet do?')], 1),
      b.message('assistant', [b.text('It greets.\nMore detail on the next line.', 'assistant')], 1),
      b.message('user', [b.text('And in French?')], 2),
      b.message('assistant', [b.text('Bonjour.', 'assistant')], 2),
    ],
  });
  return { state, selection, b };
}

describe('pins (pure)', () => {
  it('pinMessage pins every block of one message, as a new message object, and lists all its block ids', () => {
    const { state } = conversation();
    const target = state.messages[1]!;
    const r = pinMessage(state, target.id, true);
    assert.ok(r.ok);
    const pinned = r.state.messages[1]!;
    assert.notEqual(pinned, target);
    assert.ok(isMessagePinned(pinned));
    assert.deepEqual(
      r.blockIds,
      target.blocks.map((b) => b.meta.id),
    );
    assert.equal(state.messages[1], target, 'the input state is not mutated');
    assert.deepEqual(checkInvariants(r.state), []);
    const back = pinMessage(r.state, target.id, false);
    assert.ok(back.ok && back.state.messages[1]!.blocks.every((b) => !b.meta.pinned));
  });

  it('pinBlock unpins one block and leaves the rest of its message alone', () => {
    const { state, selection } = conversation();
    const r = pinBlock(state, selection.meta.id, false);
    assert.ok(r.ok);
    assert.deepEqual(r.blockIds, [selection.meta.id]);
    const m = r.state.messages[0]!;
    assert.equal(m.blocks[0]!.meta.pinned, false);
    assert.equal(m.blocks[1], state.messages[0]!.blocks[1], 'the other block is the same object');
    assert.equal(r.state.messages[2], state.messages[2], 'other messages are untouched');
    assert.equal(state.messages[0]!.blocks[0]!.meta.pinned, true, 'the input state is not mutated');
  });

  it('refuses, saying why, when the message or block is gone', () => {
    const { state } = conversation();
    const m = pinMessage(state, 'msg_gone', false);
    assert.ok(!m.ok && /no longer in the conversation/.test(m.reason));
    const b = pinBlock(state, 'blk_gone', false);
    assert.ok(!b.ok && /no longer in the conversation/.test(b.reason));
  });

  it('reads file:lines and the first line of code from a selection block', () => {
    const { selection, b } = conversation();
    assert.deepEqual(selectionOf(selection), { label: 'src/greet.js:1-3', firstLine: 'export function greet(name) {' });
    assert.equal(selectionOf(b.text('plain words')), undefined);
  });

  it('lists wholly pinned messages once and pinned blocks of other messages on their own, with calibrated tokens', () => {
    const { state, selection } = conversation();
    const answer = state.messages[1]!;
    const r = pinMessage(state, answer.id, true);
    assert.ok(r.ok);
    const tok = countingTokenizer();
    const cal = { ...initialCalibration(), factor: 2 };
    const regions = pinnedRegions(r.state.messages, tok, cal);
    assert.deepEqual(
      regions.map(({ tokens: _t, ...rest }) => rest),
      [
        {
          kind: 'block',
          id: selection.meta.id,
          messageId: state.messages[0]!.id,
          role: 'user',
          turn: 1,
          label: 'src/greet.js:1-3',
          preview: 'export function greet(name) {',
        },
        {
          kind: 'message',
          id: answer.id,
          messageId: answer.id,
          role: 'assistant',
          turn: 1,
          label: '',
          preview: 'It greets.',
        },
      ],
    );
    // A text block costs 1 framing + its words; a message adds 3 framing; calibration doubles both.
    const words = (t: string) => t.split(/\s+/).filter(Boolean).length;
    assert.equal(regions[0]!.tokens, 2 * (1 + words(selection.text)));
    assert.equal(regions[1]!.tokens, 2 * (3 + 1 + words('It greets.\nMore detail on the next line.')));
  });

  it('lists nothing when nothing is pinned, and cuts long previews', () => {
    const { state, selection } = conversation();
    const none = pinBlock(state, selection.meta.id, false);
    assert.ok(none.ok);
    assert.deepEqual(pinnedRegions(none.state.messages, countingTokenizer(), initialCalibration()), []);
    const b = new Build('long');
    const m = b.message('user', [b.text('x'.repeat(500))], 1);
    const long = pinMessage(emptyState({ messages: [m] }), m.id, true);
    assert.ok(long.ok);
    const [region] = pinnedRegions(long.state.messages, countingTokenizer(), initialCalibration());
    assert.equal(region!.preview.length, PREVIEW_CHARS);
    assert.ok(region!.preview.endsWith('…'));
  });

  it('an unpinned block stays unpinned when the session file is replayed', () => {
    const { state, selection } = conversation();
    const r = pinBlock(state, selection.meta.id, false);
    assert.ok(r.ok);
    const entries: SessionEntry[] = [
      sampleHeader(),
      ...state.messages.map((message) => ({ type: 'message' as const, at: 1, message })),
      ...r.blockIds.map((blockId) => ({ type: 'unpin' as const, at: 2, blockId })),
    ];
    const replayed = replaySession(entries);
    assert.deepEqual(replayed.pins, []);
    assert.deepEqual(replayed.problems, []);
  });
});

describe('AgentSession.commands.setBlockPinned', () => {
  function session(state: ConversationState, failSave = false) {
    const pins: Array<[readonly string[], boolean]> = [];
    const events: AgentEvent[] = [];
    const s = new AgentSession(
      { ...state, config: testConfig() },
      agentDeps({
        llm: new ScriptedLlm([]),
        sink: nullSink({
          pins: async (ids, p) => {
            if (failSave) throw new Error('disk full');
            pins.push([ids, p]);
          },
        }),
        ids: counterIds('sb'),
      }),
      (e) => events.push(e),
    );
    return { s, pins, events };
  }

  it('unpins the block, persists an unpin of it, and tells the views (history_replaced)', async () => {
    const { state, selection } = conversation();
    const { s, pins, events } = session(state);
    assert.deepEqual(await s.commands.setBlockPinned(selection.meta.id, false), { ok: true });
    assert.equal(s.state.messages[0]!.blocks[0]!.meta.pinned, false);
    assert.deepEqual(pins, [[[selection.meta.id], false]]);
    const replaced = events.filter((e) => e.type === 'history_replaced');
    assert.equal(replaced.length, 1);
    assert.deepEqual(pinnedRegions(s.state.messages, countingTokenizer(), initialCalibration()), []);
  });

  it('a save that fails changes nothing and says why', async () => {
    const { state, selection } = conversation();
    const { s, events } = session(state, true);
    const r = await s.commands.setBlockPinned(selection.meta.id, false);
    assert.ok(!r.ok && /could not be saved: disk full/.test(r.reason), JSON.stringify(r));
    assert.equal(s.state.messages[0]!.blocks[0]!.meta.pinned, true, 'still pinned in memory, as in the file');
    assert.deepEqual(events, []);
  });

  it('refuses a block that is gone without persisting anything', async () => {
    const { state } = conversation();
    const { s, pins, events } = session(state);
    const r = await s.commands.setBlockPinned('blk_gone', false);
    assert.ok(!r.ok && /no longer in the conversation/.test(r.reason));
    assert.deepEqual(pins, []);
    assert.deepEqual(events, []);
  });
});
