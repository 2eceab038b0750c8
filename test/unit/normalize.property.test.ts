import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { ConversationState, Message } from '../../src/core/conversation/conversationModel';
import { buildMainSummaryRequest, mainSummaryInstruction } from '../../src/core/compaction/mainSummary';
import { buildSummaryRequest } from '../../src/core/compaction/summaryPrompt';
import { normalizeState, NO_REPAIRS } from '../../src/core/normalize/normalize';
import { serializeMessage } from '../../src/core/pipeline/serialize';
import { validateRequest } from '../fake-anthropic/validateRequest';
import { buildState, damagedConversation, wireText } from './support/damagedConversations';
import { pipeline } from './support/normalizeFixtures';

const conversation = damagedConversation();
const text = wireText;
const build = buildState;

const withoutMemo = (s: ConversationState) =>
  JSON.stringify(s, (k, v: unknown) => (k === 'tokenCount' ? undefined : v));

describe('normalize (property): any state becomes a request the API accepts', () => {
  it('for random, corrupted states: the fake API accepts the request, normalize is idempotent, the input is untouched', () => {
    fc.assert(
      fc.property(conversation, (c) => {
        const state = build(c);
        const before = withoutMemo(state);
        const p = pipeline().prepare(state);
        validateRequest(JSON.parse(JSON.stringify(p.params)), 'messages');
        assert.equal(withoutMemo(state), before, 'the state passed in is not changed');
        const again = normalizeState(p.sent);
        assert.equal(again.state, p.sent, 'normalize is idempotent');
        assert.equal(again.repairs, NO_REPAIRS);
        assert.equal(p.tokens.messages.length, p.sent.messages.length, 'token counts index the messages sent');
        // Input messages that needed nothing are sent as the very same objects.
        const sentIds = new Map(p.sent.messages.map((m) => [m.id, m]));
        for (const m of state.messages) {
          const out = sentIds.get(m.id);
          if (out && out.blocks.length === m.blocks.length && out.blocks.every((b, i) => b === m.blocks[i]))
            assert.equal(out, m);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('for states that are already valid: the same state comes back, and its messages serialise to the memoised params', () => {
    fc.assert(
      fc.property(conversation, (c) => {
        const valid = normalizeState(build(c)).state;
        const copy: ConversationState = { ...valid };
        const n = normalizeState(copy);
        assert.equal(n.state, copy);
        assert.equal(n.repairs, NO_REPAIRS);
        const p = pipeline().prepare(copy);
        assert.equal(p.sent.messages, valid.messages);
        const withBreakpoint = new Set(
          p.anchors.flatMap((a) => (a.target.at === 'message' ? [a.target.messageIndex] : [])),
        );
        p.params.messages.forEach((m, i) => {
          if (!withBreakpoint.has(i))
            assert.equal(m, serializeMessage(valid.messages[i] as Message), `message ${i} is the memoised param`);
        });
      }),
      { numRuns: 200 },
    );
  });
});

describe('summariser requests (property): summarising any state sends a request the API accepts', () => {
  const words = fc.record({ previous: text, instructions: text });

  it("the summariser model's request: the state's messages rendered, with a previous summary and instructions", () => {
    fc.assert(
      fc.property(conversation, words, (c, w) => {
        const state = build(c);
        const req = buildSummaryRequest({
          model: 'claude-haiku-4-5',
          messages: state.messages,
          regionTurns: [1, Math.max(1, state.messages.length)],
          chunk: 1,
          chunks: 1,
          previous: { text: w.previous, turns: [1, 1] },
          instructions: w.instructions,
          targetTokens: 200,
          maxTokens: 712,
        });
        validateRequest(JSON.parse(JSON.stringify(req)), 'messages');
      }),
      { numRuns: 300 },
    );
  });

  it("the main model's request: its own prepared request with the instruction appended", () => {
    fc.assert(
      fc.property(conversation, words, (c, w) => {
        const p = pipeline().prepare(build(c));
        const instruction = mainSummaryInstruction({
          from: 0,
          to: Math.max(0, p.params.messages.length - 2),
          regionTurns: [1, 1],
          targetTokens: 200,
          maxTokens: 1_000,
          instructions: w.instructions,
        });
        validateRequest(JSON.parse(JSON.stringify(buildMainSummaryRequest(p.params, instruction))), 'messages');
      }),
      { numRuns: 300 },
    );
  });
});
