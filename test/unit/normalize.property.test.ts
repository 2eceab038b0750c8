import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type {
  Block,
  BlockMeta,
  ConversationState,
  Message,
  TextBlock,
  ToolResultContent,
} from '../../src/core/conversation/conversationModel';
import { buildMainSummaryRequest, mainSummaryInstruction } from '../../src/core/compaction/mainSummary';
import { buildSummaryRequest } from '../../src/core/compaction/summaryPrompt';
import { normalizeState, NO_REPAIRS } from '../../src/core/normalize/normalize';
import { serializeMessage } from '../../src/core/pipeline/serialize';
import { validateRequest } from '../fake-anthropic/validateRequest';
import { pipeline, stateOf } from './support/normalizeFixtures';

/** Strings that break the API's rules alongside ordinary ones: empty, blank, lone surrogates (both halves), emoji. */
const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\n\t',
      '\uD83D',
      '\uDE00',
      'a\uD800b',
      'x\uDC00',
      '😀',
      'ok 😀 \uD83D',
      'done',
    ),
  },
);
/** A small pool, so that calls, results and repeated ids meet; two ids the API refuses. */
const toolId = fc.constantFrom('toolu_1', 'toolu_2', 'toolu_3', 'toolu_1_2', 'call.4', '');
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(text, tie('value'), { maxKeys: 3 }),
  ),
})).value;
const media = fc.constantFrom('image/png', 'image/jpeg', 'image/bmp', 'text/plain');

type Spec =
  | { kind: 'text'; text: string; source: BlockMeta['source'] }
  | { kind: 'summary'; text: string; source: BlockMeta['source']; server: boolean }
  | { kind: 'tool_use'; id: string; name: string; input: unknown }
  | { kind: 'tool_result'; id: string; content: ToolResultContent; isError: boolean }
  | { kind: 'thinking'; text: string; signature: string | undefined }
  | { kind: 'image'; mediaType: string; data: string };

const block: fc.Arbitrary<Spec> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      text,
      source: fc.constantFrom<BlockMeta['source']>('user', 'assistant', 'reminder', 'ide_selection', 'compactor'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('summary' as const),
      text,
      source: fc.constant<BlockMeta['source']>('compactor'),
      // A server compaction block (its content must not be empty).
      server: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('tool_use' as const),
      id: toolId,
      name: fc.constantFrom('read_file', 'search', 'x\uD800'),
      input: fc.oneof(
        { weight: 4, arbitrary: fc.dictionary(text, json, { maxKeys: 3 }) },
        { weight: 1, arbitrary: json },
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('tool_result' as const),
      id: toolId,
      content: fc.oneof(
        text,
        fc.array(
          fc.oneof(
            fc.record({ type: fc.constant('text' as const), text }),
            fc.record({
              type: fc.constant('image' as const),
              mediaType: media as fc.Arbitrary<'image/png'>,
              data: fc.constantFrom('iVBORw0KGgo=', '/9j/4AAQ', 'R0lGODlhAQABAAAAACw=', '\uD800'),
            }),
          ),
          { maxLength: 3 },
        ),
      ),
      isError: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('thinking' as const),
      text,
      signature: fc.option(fc.constantFrom('c2ln', '', 's\uDC00'), { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('image' as const),
      mediaType: media,
      // PNG, JPEG and GIF bytes under any label: the API refuses bytes of another format than the label.
      data: fc.constantFrom('iVBORw0KGgo=', '/9j/4AAQ', 'R0lGODlhAQABAAAAACw=', '\uD83D'),
    }),
  },
);
const message = fc.record({
  role: fc.constantFrom<Message['role']>('user', 'assistant'),
  blocks: fc.array(block, { maxLength: 4 }),
});
const conversation = fc.record({
  messages: fc.array(message, { maxLength: 10 }),
  system: fc.array(text, { maxLength: 2 }),
});

/** Builds the state a generated conversation stands for (fresh ids: every block and message distinct). */
function build(c: { messages: { role: Message['role']; blocks: Spec[] }[]; system: string[] }): ConversationState {
  let n = 0;
  const meta = (source: BlockMeta['source']): BlockMeta => ({
    id: `blk_${++n}`,
    tier: 2,
    source,
    createdAt: 0,
    pinned: false,
    compactable: source !== 'compactor',
  });
  const toBlock = (s: Spec): Block => {
    switch (s.kind) {
      case 'text':
        return { type: 'text', text: s.text, meta: meta(s.source) };
      case 'summary':
        return {
          type: 'summary',
          text: s.text,
          compactionId: `c${n}`,
          turnRange: [1, 2],
          ...(s.server ? { server: {} } : {}),
          meta: meta('compactor'),
        };
      case 'tool_use':
        return { type: 'tool_use', id: s.id, name: s.name, input: s.input, meta: meta('assistant') };
      case 'tool_result':
        return {
          type: 'tool_result',
          toolUseId: s.id,
          content: s.content,
          ...(s.isError ? { isError: true } : {}),
          meta: meta('tool'),
        };
      case 'thinking':
        return {
          type: 'thinking',
          thinking: s.text,
          ...(s.signature !== undefined ? { signature: s.signature } : {}),
          meta: meta('assistant'),
        };
      case 'image':
        return { type: 'image', mediaType: s.mediaType as 'image/png', data: s.data, meta: meta('user') };
    }
  };
  const messages = c.messages.map((m, i): Message => ({
    id: `msg_${i}`,
    role: m.role,
    turn: i,
    blocks: m.blocks.map(toBlock),
  }));
  const system = c.system.map((t): TextBlock => ({ type: 'text', text: t, meta: meta('system') }));
  return stateOf(messages, { system });
}

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
