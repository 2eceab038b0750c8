/**
 * fast-check arbitraries of damaged conversations, for the property tests of normalize and of
 * the session repair: blocks of every kind in either role, tool calls and results drawn from a
 * small pool of ids (so calls, results and repeated ids meet), empty and blank text.
 *
 * `damagedConversation()` breaks the wire format's rules too (lone surrogates, ids and inputs
 * the API refuses, unsigned thinking, images of the wrong type, server compaction blocks);
 * `damagedConversation({ wire: false })` breaks only the rules the load repair and normalize
 * share (repairRules.ts), where both must give the same request.
 */
import fc from 'fast-check';
import type {
  Block,
  BlockMeta,
  ConversationState,
  Message,
  TextBlock,
  ToolResultContent,
} from '../../../src/core/conversation/conversationModel';
import { stateOf } from './normalizeFixtures';

/** One generated block, before ids are given. */
export type Spec =
  | { kind: 'text'; text: string; source: BlockMeta['source'] }
  | { kind: 'summary'; text: string; source: BlockMeta['source']; server: boolean }
  | { kind: 'tool_use'; id: string; name: string; input: unknown }
  | { kind: 'tool_result'; id: string; content: ToolResultContent; isError: boolean }
  | { kind: 'thinking'; text: string; signature: string | undefined }
  | { kind: 'image'; mediaType: string; data: string };

/** A generated conversation: its messages' roles and blocks, and the system prompt's texts. */
export interface ConversationSpec {
  messages: { role: Message['role']; blocks: Spec[] }[];
  system: string[];
}

/** Strings that break the API's rules alongside ordinary ones: empty, blank, lone surrogates (both halves), emoji. */
export const wireText = fc.oneof(
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
/** Ordinary strings, empty and blank ones included (no lone surrogates). */
const plainText = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom('', ' ', '\n\t', '😀', 'done') },
);
const PNG = 'iVBORw0KGgo=';
const resultSays = (c: ToolResultContent): boolean =>
  typeof c === 'string' ? c.trim() !== '' : c.some((p) => p.type === 'image' || p.text.trim() !== '');

/**
 * A damaged conversation (see the module comment): with `wire` (default), every kind of
 * damage; without, only the damage the shared repair rules handle.
 */
export function damagedConversation({ wire = true } = {}): fc.Arbitrary<ConversationSpec> {
  const text = wire ? wireText : plainText;
  /** A small pool, so that calls, results and repeated ids meet; two ids the API refuses (wire only). */
  const toolId = wire
    ? fc.constantFrom('toolu_1', 'toolu_2', 'toolu_3', 'toolu_1_2', 'call.4', '')
    : fc.constantFrom('toolu_1', 'toolu_2', 'toolu_3', 'toolu_1_2');
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
  const media = wire ? fc.constantFrom('image/png', 'image/jpeg', 'image/bmp', 'text/plain') : fc.constant('image/png');
  const imageData = wire ? fc.constantFrom(PNG, '/9j/4AAQ', 'R0lGODlhAQABAAAAACw=', '\uD83D') : fc.constant(PNG);
  const input = wire
    ? fc.oneof({ weight: 4, arbitrary: fc.dictionary(text, json, { maxKeys: 3 }) }, { weight: 1, arbitrary: json })
    : fc.dictionary(text, json, { maxKeys: 3 });
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
        server: wire ? fc.boolean() : fc.constant(false),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('tool_use' as const),
        id: toolId,
        name: wire ? fc.constantFrom('read_file', 'search', 'x\uD800') : fc.constantFrom('read_file', 'search'),
        input,
      }),
    },
    {
      weight: 3,
      arbitrary: fc
        .record({
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
                  data: imageData,
                }),
              ),
              { maxLength: 3 },
            ),
          ),
          isError: fc.boolean(),
        })
        // An error result must say something (the wire rule gives an empty one a placeholder).
        .map((r) => (wire || !r.isError || resultSays(r.content) ? r : { ...r, content: 'failed' })),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('thinking' as const),
        text,
        signature: wire
          ? fc.option(fc.constantFrom('c2ln', '', 's\uDC00'), { nil: undefined })
          : fc.constant<string | undefined>('c2ln'),
      }),
    },
    {
      weight: 1,
      // PNG, JPEG and GIF bytes under any label: the API refuses bytes of another format than the label.
      arbitrary: fc.record({ kind: fc.constant('image' as const), mediaType: media, data: imageData }),
    },
  );
  const message = fc.record({
    role: fc.constantFrom<Message['role']>('user', 'assistant'),
    blocks: fc.array(block, { maxLength: 4 }),
  });
  return fc.record({
    messages: fc.array(message, { maxLength: 10 }),
    system: fc.array(text, { maxLength: 2 }),
  });
}

/** Builds the state a generated conversation stands for (fresh ids: every block and message distinct). */
export function buildState(c: ConversationSpec): ConversationState {
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
