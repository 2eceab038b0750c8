import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { Message } from '../../src/core/conversation/conversationModel';
import { INTERRUPTED_CALL, START_PLACEHOLDER } from '../../src/core/normalize/standInAnswers';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { repairMessages } from '../../src/core/session/repair';
import { validateRequest } from '../fake-anthropic/validateRequest';
import { buildState, damagedConversation } from './support/damagedConversations';
import { NBuild, pipeline, stateOf } from './support/normalizeFixtures';

/** The messages of the request `messages` are sent as (the cache breakpoints left out), after the fake API accepted it. */
function sent(messages: readonly Message[]): unknown[] {
  const params = JSON.parse(JSON.stringify(pipeline().prepare(stateOf(messages)).params)) as {
    messages: { role: string; content: { cache_control?: unknown }[] }[];
  };
  validateRequest(params, 'messages');
  return params.messages.map((m) => ({ ...m, content: m.content.map(({ cache_control: _c, ...rest }) => rest) }));
}

/** The results of the tool call `id` in `messages`. */
const resultsOf = (messages: readonly Message[], id: string) =>
  messages.flatMap((m) => m.blocks.flatMap((b) => (b.type === 'tool_result' && b.toolUseId === id ? [b] : [])));

describe('one rule set: repaired on load or normalized before sending, a damaged conversation gives one request', () => {
  it('every shared rule at once: the stored repair is valid and is sent as the unrepaired conversation is', () => {
    const b = new NBuild('one');
    const read = b.toolUse('read_file', { path: 'a.ts' });
    const again = { ...b.toolUse('read_file', { path: 'b.ts' }), id: read.id };
    const lost = b.toolUse('run_command', { command: 'npm test' });
    const open = b.toolUse('search', { q: 'todo' });
    const damaged = [
      b.assistant(b.text('I was in the middle of an answer.', 'assistant')),
      b.user(b.text('read a.ts'), b.toolUse('grep', { q: 'x' })),
      b.assistant(read),
      b.user(b.toolResult(read.id, 'A')),
      b.assistant(again),
      b.user(b.text('  ')),
      b.user(b.text('and b?'), b.toolResult(read.id, 'B'), b.toolResult(read.id, 'B again')),
      b.assistant(b.text('Running the tests.', 'assistant'), lost),
      b.assistant(b.text('Never mind.', 'assistant'), b.toolResult('toolu_gone', 'stray')),
      b.user(b.toolResult('toolu_gone', 'old output'), b.text('ok')),
      b.assistant(b.text('Searching.', 'assistant'), open),
    ];
    const load = repairMessages(damaged);
    assert.deepEqual(checkInvariants({ messages: load.messages }), []);
    assert.deepEqual(repairMessages(load.messages).fixes, [], 'the repair is idempotent');
    assert.deepEqual(sent(load.messages), sent(damaged), 'the same request, repaired on load or not');
    const request = sent(damaged) as { role: string; content: { type: string; [k: string]: unknown }[] }[];
    assert.deepEqual(request[0], { role: 'user', content: [{ type: 'text', text: START_PLACEHOLDER }] });
    // One interrupted text: the stored repair's result for the lost call is the request's, and the
    // final open call (kept open on load, for the agent to answer) is answered with it in the request.
    assert.deepEqual(
      resultsOf(load.messages, lost.id).map((r) => [r.content, r.isError]),
      [[INTERRUPTED_CALL, true]],
    );
    assert.equal(load.messages.at(-1)?.blocks.at(-1), open, 'the final call stays open on load');
    assert.deepEqual(request.at(-1)?.content, [
      { type: 'tool_result', tool_use_id: open.id, content: INTERRUPTED_CALL, is_error: true },
    ]);
    const texts = JSON.stringify(request);
    assert.ok(texts.includes(`"tool_use_id":"${read.id}_2","content":"B"`), 'the repeated id renamed with its result');
    assert.match(texts, /A second result of the tool call .*B again/);
    assert.match(
      texts,
      /Result of an earlier tool call toolu_gone, whose call is no longer in the history\]\\nold output/,
    );
    assert.match(texts, /A tool call grep \(.*\) found in a user message/);
    assert.match(texts, /A result of the tool call toolu_gone found in an assistant message\]\\nstray/);
  });

  it('an empty message between a call and its result is left out on load and before sending: the result still answers it', () => {
    const b = new NBuild('gap');
    const use = b.toolUse('read_file', {});
    const damaged = [
      b.user(b.text('hi')),
      b.assistant(use),
      b.assistant(b.text(' ', 'assistant')),
      b.user(b.toolResult(use.id, 'out')),
    ];
    const load = repairMessages(damaged);
    assert.deepEqual(
      load.messages.map((m) => m.id),
      [damaged[0], damaged[1], damaged[3]].map((m) => m?.id),
    );
    assert.deepEqual(resultsOf(load.messages, use.id).length, 1);
    assert.deepEqual(sent(load.messages), sent(damaged));
    assert.deepEqual((sent(damaged)[2] as { content: unknown[] }).content[0], {
      type: 'tool_result',
      tool_use_id: use.id,
      content: 'out',
    });
  });

  it('the ids of what the load repair adds are unused in the session, even when the derived one is taken', () => {
    const b = new NBuild('ids');
    const use = b.toolUse('read_file', {});
    const first = b.assistant(b.text('Hello.', 'assistant'));
    const squatter = { ...b.user(b.text('words')), id: `${first.id}_start` };
    const taken = { ...b.text('more words'), meta: { ...b.text('x').meta, id: `${use.meta.id}_interrupted` } };
    const load = repairMessages([first, squatter, b.assistant(use), b.user(taken)]);
    assert.deepEqual(checkInvariants({ messages: load.messages }), []);
    assert.equal(resultsOf(load.messages, use.id)[0]?.content, INTERRUPTED_CALL);
  });
});

describe('session repair (property): any damaged history is repaired into a valid one', () => {
  it('for arbitrary damaged histories: the invariants hold, a second repair changes nothing, and its request is accepted', () => {
    fc.assert(
      fc.property(damagedConversation(), (c) => {
        const { messages } = buildState(c);
        const load = repairMessages(messages);
        assert.deepEqual(checkInvariants({ messages: load.messages }), []);
        assert.deepEqual(repairMessages(load.messages).fixes, [], 'repair is idempotent');
        sent(load.messages);
      }),
      { numRuns: 300 },
    );
  });

  it('for histories broken in the shared rules only: the repaired history is sent as the damaged one is', () => {
    fc.assert(
      fc.property(damagedConversation({ wire: false }), (c) => {
        const { messages } = buildState(c);
        assert.deepEqual(sent(repairMessages(messages).messages), sent(messages));
      }),
      { numRuns: 300 },
    );
  });
});
