import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { appendAssistantMessage } from '../../src/core/conversation/assistant';
import { applyUserMessage, assembleUserMessage } from '../../src/core/conversation/assemble';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { ConversationState, Injection } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { emptyState, fakeClock } from './support/builders';

/** One random thing a user, the model or a tool can do to a conversation. */
type Op =
  | { kind: 'user'; text: string; injections: Injection[] }
  | { kind: 'assistant'; text: string; tools: number }
  | { kind: 'tools'; errors: boolean; empty: boolean; shuffle: boolean }
  | { kind: 'orphan' }
  | { kind: 'partial' };

const injection: fc.Arbitrary<Injection> = fc.oneof(
  fc.record({ kind: fc.constant('ide_opened_file' as const), path: fc.string({ minLength: 0, maxLength: 20 }) }),
  fc.record({
    kind: fc.constant('ide_selection' as const),
    path: fc.string({ maxLength: 20 }),
    startLine: fc.integer({ min: -1, max: 50 }),
    endLine: fc.integer({ min: -1, max: 60 }),
    text: fc.string({ maxLength: 40 }),
  }),
  fc.record({ kind: fc.constant('system_reminder' as const), text: fc.string({ maxLength: 30 }) }),
  fc.record({
    kind: fc.constant('hook' as const),
    tag: fc.constantFrom('user-prompt-submit-hook', 'Bad Tag', 'ide_selection'),
    text: fc.string({ maxLength: 30 }),
  }),
);

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('user' as const),
    text: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', '  ', '</ide_selection>')),
    injections: fc.array(injection, { maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant('assistant' as const),
    text: fc.oneof(fc.string({ maxLength: 40 }), fc.constant('')),
    tools: fc.integer({ min: 0, max: 3 }),
  }),
  fc.record({ kind: fc.constant('tools' as const), errors: fc.boolean(), empty: fc.boolean(), shuffle: fc.boolean() }),
  fc.constant({ kind: 'orphan' as const }),
  fc.constant({ kind: 'partial' as const }),
);

function pendingToolUses(state: ConversationState): string[] {
  const last = state.messages.at(-1);
  return last?.role === 'assistant' ? last.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : [];
}

describe('invariants under random operations (property)', () => {
  it('no sequence of operations produces a state that fails checkInvariants, and no user word is lost', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const clock = fakeClock();
        const ids = counterIds('p');
        let state = emptyState();
        const sentWords: string[] = [];
        let toolSeq = 0;
        for (const o of ops) {
          const before = state;
          if (o.kind === 'user') {
            state = { ...state, pending: o.injections };
            const r = assembleUserMessage(state, { userText: o.text, pasteDirectory: '/s' }, { clock, ids });
            if (r.ok) {
              state = applyUserMessage(state, r.value);
              sentWords.push(o.text);
            } else state = { ...before };
          } else if (o.kind === 'assistant') {
            const content = [
              { type: 'text' as const, text: o.text },
              ...Array.from({ length: o.tools }, () => ({
                type: 'tool_use' as const,
                id: `toolu_${++toolSeq}`,
                name: 'read_file',
                input: { path: 'a' },
              })),
            ];
            const r = appendAssistantMessage(state, content, { clock, ids });
            if (r.ok) state = r.state;
            else assert.equal(state, before, 'a refused answer leaves the state as it was');
          } else if (o.kind === 'tools' || o.kind === 'partial' || o.kind === 'orphan') {
            let uses = pendingToolUses(state);
            if (o.kind === 'partial') uses = uses.slice(1);
            const results = uses.map((id) => ({
              toolUseId: id,
              content: o.kind === 'tools' && o.empty ? '' : `result of ${id}`,
              isError: o.kind === 'tools' && o.errors,
            }));
            if (o.kind === 'tools' && o.shuffle) results.reverse();
            if (o.kind === 'orphan') results.push({ toolUseId: 'toolu_nowhere', content: 'x', isError: false });
            const r = assembleUserMessage(state, { toolResults: results, pasteDirectory: '/s' }, { clock, ids });
            if (r.ok) state = applyUserMessage(state, r.value);
          }
          const violations = checkInvariants(state);
          assert.deepEqual(violations, [], `after ${JSON.stringify(o)}`);
        }
        const kept = state.messages.flatMap((m) =>
          m.blocks.flatMap((b) => (b.type === 'text' && b.meta.source === 'user' ? [b.text] : [])),
        );
        assert.deepEqual(kept, sentWords, "every user message's words are in the conversation, in order");
      }),
      { numRuns: 400 },
    );
  });

  it('detects each broken rule (the checker itself can fail)', () => {
    const clock = fakeClock();
    const ids = counterIds('q');
    let s = emptyState();
    const r1 = assembleUserMessage(s, { userText: 'hi', pasteDirectory: '/s' }, { clock, ids });
    assert.ok(r1.ok);
    s = applyUserMessage(s, r1.value);
    const a = appendAssistantMessage(s, [{ type: 'tool_use', id: 'toolu_1', name: 'x', input: {} }], { clock, ids });
    assert.ok(a.ok);
    s = a.state;
    const rules = (st: ConversationState, strict = false) =>
      checkInvariants(st, { allowPendingToolUse: !strict }).map((v) => v.rule);
    assert.deepEqual(rules(s), []);
    assert.deepEqual(rules(s, true), ['tool_use_unanswered']);
    const [u, asst] = s.messages as [ConversationState['messages'][number], ConversationState['messages'][number]];
    assert.ok(rules({ ...s, messages: [asst] }).includes('first_message_not_user'));
    assert.ok(rules({ ...s, messages: [u, u] }).includes('roles_not_alternating'));
    const emptyText = {
      ...u,
      id: 'm_x',
      blocks: [{ ...u.blocks[0]!, meta: { ...u.blocks[0]!.meta, id: 'b_x' }, type: 'text' as const, text: ' ' }],
    };
    assert.ok(rules({ ...s, messages: [emptyText] }).includes('empty_text'));
    const compactableWords = { ...u, blocks: [{ ...u.blocks[0]!, meta: { ...u.blocks[0]!.meta, compactable: true } }] };
    assert.ok(rules({ ...s, messages: [compactableWords] }).includes('user_words_compactable'));
    const summary = {
      ...u,
      blocks: [
        {
          type: 'summary' as const,
          text: 'sum',
          compactionId: 'c1',
          turnRange: [1, 2] as const,
          meta: { ...u.blocks[0]!.meta, source: 'compactor' as const, compactable: true },
        },
      ],
    };
    assert.ok(rules({ ...s, messages: [summary] }).includes('summary_compactable'));
    const orphan = {
      id: 'm_o',
      role: 'user' as const,
      turn: 1,
      blocks: [
        {
          type: 'tool_result' as const,
          toolUseId: 'toolu_9',
          content: 'x',
          meta: {
            id: 'b_o',
            tier: 3 as const,
            source: 'tool' as const,
            createdAt: 0,
            pinned: false,
            compactable: true,
          },
        },
      ],
    };
    assert.ok(rules({ ...s, messages: [u, asst, orphan] }).includes('tool_result_orphan'));
  });
});
