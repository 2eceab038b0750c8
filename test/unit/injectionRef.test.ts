import { strict as assert } from 'node:assert';
import { assembleUserMessage } from '../../src/core/conversation/assemble';
import type { Block, TextBlock } from '../../src/core/conversation/conversationModel';
import { renderInjection, renderInjectionBlock } from '../../src/core/conversation/injections';
import { selectionOf } from '../../src/core/compaction/pins';
import { encodeEntry } from '../../src/core/session/entries';
import { decodeLine } from '../../src/core/session/lineCodec';
import { injectedOf } from '../../src/host/chat/transcript';
import { Build, emptyState, fakeClock } from './support/builders';

/** A path the old prose regexes misread: it contains the very words they stop at. */
const ODD = 'docs/opened the file x in the IDE/from a.ts:\nb.ts';

function injectedBlocks(): Block[] {
  const b = new Build('ir');
  const state = emptyState({
    pending: [
      { kind: 'ide_opened_file', path: ODD },
      {
        kind: 'ide_selection',
        path: ODD,
        startLine: 3,
        endLine: 4,
        text: '\nconst peak = max(xs);\nreturn peak;',
        pinned: true,
      },
      { kind: 'system_reminder', text: 'Follow the nested rules.', origin: 'pkg/AGENTS.md' },
      { kind: 'hook', tag: 'user-prompt-submit-hook', text: 'lint ok' },
    ],
  });
  const r = assembleUserMessage(
    state,
    { userText: 'why?', pasteDirectory: '/tmp' },
    { clock: fakeClock(), ids: b.ids },
  );
  assert.ok(r.ok);
  return r.value.message.blocks.filter((x) => x.meta.injection !== undefined);
}

describe('injected blocks carry their structured data', () => {
  it('records kind, tag, path, lines and where the content starts when the block is built', () => {
    const blocks = injectedBlocks();
    assert.deepEqual(
      blocks.map((x) => x.meta.injection?.kind),
      ['ide_opened_file', 'ide_selection', 'system_reminder', 'hook'],
    );
    const sel = blocks[1] as TextBlock;
    assert.deepEqual(
      { ...sel.meta.injection, contentStart: undefined },
      { kind: 'ide_selection', tag: 'ide_selection', path: ODD, startLine: 3, endLine: 4, contentStart: undefined },
    );
    assert.ok(sel.text.slice(sel.meta.injection?.contentStart).startsWith('\nconst peak'));
    const rendered = renderInjectionBlock({ kind: 'hook', tag: 'x-hook', text: 'hi' });
    assert.equal(rendered.text, renderInjection({ kind: 'hook', tag: 'x-hook', text: 'hi' }));
    assert.equal(rendered.text.slice(rendered.ref.contentStart), 'hi\n</x-hook>');
  });

  it('the chat chips and the pinned regions read it (no parsing of the prose)', () => {
    const [opened, sel, reminder, hook] = injectedBlocks();
    assert.ok(opened && sel && reminder && hook);
    assert.equal(injectedOf(opened)?.label, ODD);
    assert.equal(injectedOf(sel)?.label, `${ODD}:3-4`);
    assert.deepEqual(
      [injectedOf(reminder)?.label, injectedOf(hook)?.tag],
      ['pkg/AGENTS.md', 'user-prompt-submit-hook'],
    );
    assert.deepEqual(selectionOf(sel), { label: `${ODD}:3-4`, firstLine: 'const peak = max(xs);' });
  });

  it('a reminder with no origin is labelled by its own first line, cut short', () => {
    const b = new Build('irl');
    const reminder = (text: string) => b.text(text, 'reminder');
    assert.equal(
      injectedOf(reminder('<system-reminder>\nFiles re-attached after compaction (read fresh from disk):\n…'))?.label,
      'Files re-attached after compaction (read fresh…',
    );
    assert.equal(
      injectedOf(reminder('<system-reminder>\n\nRun the tests.\n</system-reminder>'))?.label,
      'Run the tests.',
    );
    const empty = injectedOf(reminder('<system-reminder>\n</system-reminder>'));
    assert.deepEqual([empty?.tag, empty?.label], ['system-reminder', 'system-reminder']);
  });

  it('survives the session file', () => {
    const sel = injectedBlocks()[1];
    assert.ok(sel);
    const message = { id: 'msg_1', role: 'user' as const, turn: 1, blocks: [sel] };
    const decoded = decodeLine(encodeEntry({ type: 'message', at: 1, message }));
    assert.ok(decoded.ok);
    assert.equal(decoded.entry.type, 'message');
    if (decoded.entry.type === 'message')
      assert.deepEqual(decoded.entry.message.blocks[0]?.meta.injection, sel.meta.injection);
  });

  it('blocks saved before it existed keep their labels (parsed from the text)', () => {
    const old = (source: TextBlock['meta']['source'], text: string): TextBlock => ({
      type: 'text',
      text,
      meta: { id: 'blk_old', tier: 3, source, createdAt: 0, pinned: true, compactable: true },
    });
    const sel = old(
      'ide_selection',
      renderInjection({ kind: 'ide_selection', path: 'src/a.ts', startLine: 1, endLine: 2, text: 'x\ny' }),
    );
    const opened = old('ide_opened_file', renderInjection({ kind: 'ide_opened_file', path: 'src/b.ts' }));
    assert.equal(injectedOf(sel)?.label, 'src/a.ts:1-2');
    assert.equal(injectedOf(opened)?.label, 'src/b.ts');
    assert.deepEqual(selectionOf(sel), { label: 'src/a.ts:1-2', firstLine: 'x' });
  });
});
