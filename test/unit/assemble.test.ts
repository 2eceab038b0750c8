import { strict as assert } from 'node:assert';
import { applyUserMessage, assembleUserMessage } from '../../src/core/conversation/assemble';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { ConversationState, TextBlock } from '../../src/core/conversation/conversationModel';
import { Build, emptyState, fakeClock } from './support/builders';

const dir = '/session/s1';

describe('assembleUserMessage', () => {
  const clock = fakeClock();

  it('orders tool results, then tagged injections, then the user words', () => {
    const b = new Build();
    const read = b.toolUse('read_file', { path: 'a.ts' });
    const grep = b.toolUse('search', { pattern: 'x' });
    const state: ConversationState = emptyState({
      messages: [
        b.message('user', [b.text('go')], 1),
        b.message('assistant', [b.text('ok', 'assistant'), read, grep], 1),
      ],
      pending: [
        { kind: 'ide_opened_file', path: 'src/a.ts' },
        { kind: 'ide_selection', path: 'src/a.ts', startLine: 1, endLine: 2, text: 'x\ny' },
      ],
    });
    // Results given out of order come back in tool_use order.
    const r = assembleUserMessage(
      state,
      {
        userText: 'and now?',
        toolResults: [
          { toolUseId: grep.id, content: 'found' },
          { toolUseId: read.id, content: 'file' },
        ],
        pasteDirectory: dir,
      },
      { clock, ids: b.ids },
    );
    assert.ok(r.ok);
    const kinds = r.value.message.blocks.map((x) =>
      x.type === 'tool_result' ? `result:${x.toolUseId}` : `${x.type}:${x.meta.source}`,
    );
    assert.deepEqual(kinds, [
      `result:${read.id}`,
      `result:${grep.id}`,
      'text:ide_opened_file',
      'text:ide_selection',
      'text:user',
    ]);
    assert.equal(r.value.message.turn, 2);
    const next = applyUserMessage(state, r.value);
    assert.deepEqual(next.pending, []);
    assert.deepEqual(checkInvariants(next), []);
  });

  it('sends only tool results and injections in the agent loop', () => {
    const b = new Build();
    const t = b.toolUse('list_files');
    const state = emptyState({
      messages: [b.message('user', [b.text('hi')], 1), b.message('assistant', [t], 1)],
      pending: [{ kind: 'system_reminder', text: 'todo list is empty' }],
    });
    const r = assembleUserMessage(
      state,
      { toolResults: [{ toolUseId: t.id, content: 'a.ts' }], pasteDirectory: dir },
      { clock, ids: b.ids },
    );
    assert.ok(r.ok);
    assert.deepEqual(
      r.value.message.blocks.map((x) => x.meta.source),
      ['tool', 'reminder'],
    );
    assert.equal(r.value.message.turn, 1, 'an agent-loop message continues the turn');
  });

  it('refuses an empty or whitespace-only message with a clear reason', () => {
    const b = new Build();
    for (const userText of ['', '   \n\t']) {
      const r = assembleUserMessage(emptyState(), { userText, pasteDirectory: dir }, { clock, ids: b.ids });
      assert.ok(!r.ok);
      assert.equal(r.error.code, 'empty_message');
      assert.match(r.error.message, /empty|whitespace/);
    }
  });

  it('refuses a tool result without its tool_use, naming it', () => {
    const b = new Build();
    const state = emptyState({
      messages: [b.message('user', [b.text('hi')], 1), b.message('assistant', [b.text('hello', 'assistant')], 1)],
    });
    const r = assembleUserMessage(
      state,
      { toolResults: [{ toolUseId: 'toolu_ghost', content: 'x' }], pasteDirectory: dir },
      { clock, ids: b.ids },
    );
    assert.ok(!r.ok);
    assert.equal(r.error.code, 'orphan_tool_result');
    assert.match(r.error.message, /toolu_ghost/);
  });

  it('refuses to leave a tool call unanswered or answered twice', () => {
    const b = new Build();
    const t = b.toolUse('read_file');
    const state = emptyState({ messages: [b.message('user', [b.text('hi')], 1), b.message('assistant', [t], 1)] });
    const missing = assembleUserMessage(state, { userText: 'hello?', pasteDirectory: dir }, { clock, ids: b.ids });
    assert.ok(!missing.ok && missing.error.code === 'unanswered_tool_use');
    const twice = assembleUserMessage(
      state,
      {
        toolResults: [
          { toolUseId: t.id, content: 'a' },
          { toolUseId: t.id, content: 'b' },
        ],
        pasteDirectory: dir,
      },
      { clock, ids: b.ids },
    );
    assert.ok(!twice.ok && twice.error.code === 'duplicate_tool_result');
  });

  it('refuses a second user message while the first awaits its answer', () => {
    const b = new Build();
    const state = emptyState({ messages: [b.message('user', [b.text('hi')], 1)] });
    const r = assembleUserMessage(state, { userText: 'again', pasteDirectory: dir }, { clock, ids: b.ids });
    assert.ok(!r.ok && r.error.code === 'awaiting_answer');
  });

  it('spills a 10 MB paste to a file and keeps a reference with its size', () => {
    const b = new Build();
    const paste = `${'x'.repeat(64)}\n`.repeat(163_840) + 'What is wrong here?';
    const r = assembleUserMessage(emptyState(), { userText: paste, pasteDirectory: dir }, { clock, ids: b.ids });
    assert.ok(r.ok);
    assert.equal(r.value.spills.length, 1);
    const spill = r.value.spills[0]!;
    assert.equal(spill.content, paste, 'nothing is lost: the file holds the whole paste');
    assert.ok(spill.path.startsWith(`${dir}/paste_`));
    const words = r.value.message.blocks.at(-1) as TextBlock;
    assert.ok(words.text.length < 3_000, 'the message itself stays small');
    assert.ok(
      words.text.includes('10,649,619 characters (10.6 MB, 163,841 lines)'),
      'the reference states size and line count',
    );
    assert.ok(words.text.includes(spill.path));
    assert.ok(words.text.includes('What is wrong here?'), 'the tail of the paste (often the question) is shown');
    assert.equal(words.meta.compactable, false, "the user's words are never compactable");
  });

  it('drops an invalid injection with its reason and still sends the message', () => {
    const b = new Build();
    const state = emptyState({
      pending: [
        { kind: 'ide_selection', path: 'a.ts', startLine: 0, endLine: 1, text: 'x' },
        { kind: 'ide_opened_file', path: 'a.ts' },
      ],
    });
    const r = assembleUserMessage(state, { userText: 'hi', pasteDirectory: dir }, { clock, ids: b.ids });
    assert.ok(r.ok);
    assert.equal(r.value.dropped.length, 1);
    assert.match(r.value.dropped[0]!.reason, /line range/);
    assert.deepEqual(r.value.injected, [{ kind: 'ide_opened_file', path: 'a.ts' }]);
  });

  it('states an empty tool output instead of sending empty text', () => {
    const b = new Build();
    const t = b.toolUse('search');
    const state = emptyState({ messages: [b.message('user', [b.text('hi')], 1), b.message('assistant', [t], 1)] });
    const r = assembleUserMessage(
      state,
      { toolResults: [{ toolUseId: t.id, content: '  ' }], pasteDirectory: dir },
      { clock, ids: b.ids },
    );
    assert.ok(r.ok);
    const res = r.value.message.blocks[0];
    assert.ok(res?.type === 'tool_result' && res.content === '(the tool returned no output)');
  });
});
