import { strict as assert } from 'node:assert';
import type { Message, ToolResultBlock } from '../../src/core/conversation/conversationModel';
import { maskStub } from '../../src/core/compaction/mask';
import { READ_FILE_SPEC } from '../../src/core/tools/builtin/readFileSpec';
import { bindTool, type AnyToolDefinition, type ToolSpec } from '../../src/core/tools/toolDefinition';
import {
  callNamer,
  callsIn,
  originalDescription,
  originalRow,
  originalTitle,
  originalTitles,
  originalTooltip,
} from '../../src/host/originalRowText';
import { Build } from './support/builders';
import { pngBase64 } from './support/images';

describe('Compactions view: the rows of original messages', () => {
  const b = new Build('or');
  const read = b.toolUse('read_file', { path: 'src/a.ts' });
  const run = b.toolUse('run_command', { command: 'npm   test\n--silent' });
  const call = b.message('assistant', [b.text('Let me read it.', 'assistant'), read, run], 1);
  const result = (content: ToolResultBlock['content'], isError?: boolean): ToolResultBlock => ({
    ...b.toolResult(read.id, ''),
    content,
    ...(isError ? { isError } : {}),
  });
  const lookup = callsIn([{ originals: [call], replacement: [] }]);

  it('names each call by its tool and telling input, after the answer text', () => {
    assert.equal(
      originalDescription(call, lookup),
      'Let me read it. · read_file src/a.ts · run_command npm test --silent',
    );
  });

  it('names a result by the call it answers and its size, an error as an error', () => {
    const ok = b.message('user', [result('x'.repeat(11_234))], 1);
    assert.equal(originalDescription(ok, lookup), 'result of read_file src/a.ts (11,234 chars)');
    const failed = b.message('user', [{ ...b.toolResult(run.id, 'exit 1'), isError: true }], 1);
    assert.equal(originalDescription(failed, lookup), 'error from run_command npm test --silent (6 chars)');
  });

  it('finds the call in any record or in the conversation, and says so when none holds it', () => {
    const inAnother = b.message('user', [b.toolResult(read.id, 'abc')], 2);
    const none = callsIn([]);
    assert.equal(originalDescription(inAnother, none), 'result of an earlier tool call (3 chars)');
    const two = callsIn([
      { originals: [], replacement: [] },
      { originals: [], replacement: [call] },
    ]);
    assert.equal(originalDescription(inAnother, two), 'result of read_file src/a.ts (3 chars)');
    // A record of cleared results starts after the call of its first one: the conversation still has it.
    assert.equal(originalDescription(inAnother, callsIn([], [call])), 'result of read_file src/a.ts (3 chars)');
  });

  it('counts images, and says when a result was already cleared by an earlier layer', () => {
    const image = { type: 'image' as const, mediaType: 'image/png' as const, data: pngBase64(4, 4) };
    const shot = b.message('user', [result([{ type: 'text', text: 'ok' }, image, image])], 1);
    assert.equal(originalDescription(shot, lookup), 'result of read_file src/a.ts (2 chars + 2 images)');
    const onlyImage = b.message('user', [result([image])], 1);
    assert.equal(originalDescription(onlyImage, lookup), 'result of read_file src/a.ts (1 image)');
    const masked = b.message('user', [result(maskStub('read_file src/a.ts', 2846, false))], 1);
    assert.equal(originalDescription(masked, lookup), 'result of read_file src/a.ts (already cleared)');
  });

  it("quotes the user's own words rather than an injected block, and an injected block when that is all", () => {
    const words = b.message(
      'user',
      [b.text('<ide_selection>const secret = 1;</ide_selection>', 'ide_selection'), b.text('why\n\nthis?')],
      3,
    );
    assert.equal(originalDescription(words, lookup), 'why this?');
    const onlyInjected = b.message(
      'user',
      [b.text('<ide_opened_file>src/b.ts</ide_opened_file>', 'ide_opened_file')],
      3,
    );
    assert.equal(originalDescription(onlyInjected, lookup), '<ide_opened_file>src/b.ts</ide_opened_file>');
  });

  it('stays on one short line: long text cut with an ellipsis, never half a surrogate pair', () => {
    const long = b.message('assistant', [b.text(`${'a'.repeat(58)}😀 and more`, 'assistant'), read], 1);
    const d = originalDescription(long, lookup);
    assert.ok(d.length <= 120 && !d.includes('\n'));
    assert.ok(d.startsWith(`${'a'.repeat(58)}…`), d);
    assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(d), 'no lone high surrogate');
    const many = b.message(
      'assistant',
      Array.from({ length: 20 }, () => b.toolUse('read_file', { path: 'src/some/long/path.ts' })),
      1,
    );
    assert.ok(originalDescription(many, lookup).length <= 120);
  });

  it('says thinking once however many blocks, and falls back to the block types', () => {
    const thinking = (t: string) => ({ type: 'thinking' as const, thinking: t, signature: 's', meta: b.text('').meta });
    const m: Message = b.message('assistant', [thinking('a'), thinking('b'), read], 1);
    assert.equal(originalDescription(m, lookup), 'thinking · read_file src/a.ts');
    const empty = b.message('user', [b.text('   ')], 1);
    assert.equal(originalDescription(empty, lookup), 'text');
  });

  it('lists every block in the tooltip, backticks made harmless', () => {
    const m = b.message('user', [b.text('run `rm -rf /`?'), result('done', true)], 4);
    const tip = originalTooltip(m, lookup);
    assert.match(tip, /^\*\*Turn 4 · your message\*\*/);
    assert.ok(tip.includes('- Text: `run ˋrm -rf /ˋ?`'), tip);
    assert.ok(tip.includes('- Tool result (error) of `read_file src/a.ts`: 4 chars'), tip);
    assert.ok(originalTooltip(call, lookup).includes('- Tool call: `run_command npm test --silent`'));
  });

  const definitions = callNamer((name) =>
    name === 'read_file'
      ? bindTool(READ_FILE_SPEC as ToolSpec<unknown>, async () => ({ content: '', isError: false }))
      : (undefined as AnyToolDefinition | undefined),
  );

  it('labels a row by what the message is, in plain words, the rest in its description', () => {
    const ok = b.message('user', [result('x'.repeat(11_234))], 2);
    assert.deepEqual(originalRow(ok, lookup, definitions), {
      label: 'Result of Read src/a.ts',
      description: '11,234 chars',
    });
    assert.deepEqual(originalRow(ok, lookup), { label: 'Result of read_file src/a.ts', description: '11,234 chars' });
    const failed = b.message('user', [{ ...b.toolResult(run.id, 'exit 1'), isError: true }], 2);
    assert.equal(originalRow(failed, lookup).label, 'Error from run_command npm test --silent');
    const both = b.message('user', [result('abc'), b.toolResult(run.id, 'ok')], 2);
    assert.deepEqual(originalRow(both, lookup, definitions), {
      label: '2 tool results',
      description: 'result of Read src/a.ts (3 chars) · result of run_command npm test --silent (2 chars)',
    });
    const words = b.message(
      'user',
      [b.text('<ide_opened_file>x</ide_opened_file>', 'ide_opened_file'), b.text('why?')],
      2,
    );
    assert.deepEqual(originalRow(words, lookup), { label: 'Your message', description: 'why?' });
    const onlyContext = b.message('user', [b.text('<ide_opened_file>x</ide_opened_file>', 'ide_opened_file')], 2);
    assert.equal(originalRow(onlyContext, lookup).label, 'Context');
  });

  it("labels an answer by its one call, its number of calls, or as Claude's answer", () => {
    const one = b.message('assistant', [b.text('Let me read it.', 'assistant'), read], 2);
    assert.deepEqual(originalRow(one, lookup, definitions), { label: 'Read src/a.ts', description: 'Let me read it.' });
    assert.deepEqual(originalRow(call, lookup, definitions), {
      label: '2 tool calls',
      description: 'Let me read it. · Read src/a.ts · run_command npm test --silent',
    });
    const text = b.message('assistant', [b.text('Done.', 'assistant')], 2);
    assert.deepEqual(originalRow(text, lookup), { label: "Claude's answer", description: 'Done.' });
  });

  it('titles the tab of an original by its turn and label, each title unique in its record', () => {
    const words = b.message('user', [b.text('why?')], 2);
    const ok = b.message('user', [result('abc')], 2);
    const again = b.message('user', [result('def')], 2);
    assert.equal(originalTitle(words, lookup), 'Turn 2 · your message');
    assert.equal(originalTitle(ok, lookup), 'Turn 2 · Result of read_file src/a.ts');
    const one = b.message('assistant', [read], 2);
    assert.equal(originalTitle(one, lookup, definitions), 'Turn 2 · Read src/a.ts');
    const titles = originalTitles([words, ok, one, again], lookup);
    assert.deepEqual(
      [words, ok, one, again].map((m) => titles.get(m.id)),
      [
        'Turn 2 · your message',
        'Turn 2 · Result of read_file src/a.ts',
        'Turn 2 · read_file src/a.ts',
        'Turn 2 · Result of read_file src/a.ts (2)',
      ],
    );
  });
});
