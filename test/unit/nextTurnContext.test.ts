import { strict as assert } from 'node:assert';
import type { Injection } from '../../src/core/conversation/conversationModel';
import { injectionKey, NextTurnContext, type EditorContextSource } from '../../src/host/chat/nextTurnContext';

/** An editor that offers the opened file until it was told once, like the tracker. */
function fakeEditor(
  selection?: Extract<Injection, { kind: 'ide_selection' }>,
): EditorContextSource & { told: boolean } {
  const e = {
    told: false,
    snapshot: (): { injections: Injection[]; openedUri?: string } =>
      e.told
        ? { injections: selection ? [selection] : [] }
        : {
            injections: [{ kind: 'ide_opened_file' as const, path: 'src/a.ts' }, ...(selection ? [selection] : [])],
            openedUri: 'file:///ws/src/a.ts',
          },
    markTold: (_s: string | undefined, uri: string) => {
      assert.equal(uri, 'file:///ws/src/a.ts');
      e.told = true;
    },
  };
  return e;
}

/** Takes the next turn's context and settles it as sent, like a message that went out. */
function send(ctx: NextTurnContext): Injection[] {
  const taken = ctx.take('s');
  taken.settle(true);
  return taken.injections;
}

const sel = {
  kind: 'ide_selection' as const,
  path: 'src/a.ts',
  startLine: 3,
  endLine: 5,
  text: 'let x = 1;\nlet y = 2;\nlet z = 3;',
};
const count = (t: string) => t.length / 4;

describe('next-turn context (chips above the input)', () => {
  it('shows the opened file and the selection with the exact tagged text and tokens', () => {
    const ctx = new NextTurnContext(fakeEditor(sel));
    const chips = ctx.chips('s', count);
    assert.deepEqual(
      chips.map((c) => [c.tag, c.label, c.pinned]),
      [
        ['ide_opened_file', 'src/a.ts', false],
        ['ide_selection', 'src/a.ts:3-5', false],
      ],
    );
    assert.match(chips[1]!.text, /^<ide_selection>The user selected the lines 3 to 5 from src\/a.ts:\nlet x = 1;/);
    assert.equal(chips[1]!.tokens, Math.round(chips[1]!.text.length / 4));
  });

  it('a dismissed chip is left out of this turn only; the opened file comes back next turn', () => {
    const editor = fakeEditor(sel);
    const ctx = new NextTurnContext(editor);
    ctx.dismiss(injectionKey({ kind: 'ide_opened_file', path: 'src/a.ts' }));
    assert.deepEqual(
      ctx.chips('s', count).map((c) => c.tag),
      ['ide_selection'],
    );
    assert.deepEqual(
      send(ctx).map((i) => i.kind),
      ['ide_selection'],
    );
    assert.equal(editor.told, false, 'a dismissed opened file is not remembered as told');
    assert.deepEqual(
      ctx.chips('s', count).map((c) => c.tag),
      ['ide_opened_file', 'ide_selection'],
    );
    assert.deepEqual(
      send(ctx).map((i) => i.kind),
      ['ide_opened_file', 'ide_selection'],
    );
    assert.deepEqual(
      ctx.chips('s', count).map((c) => c.tag),
      ['ide_selection'],
      'the file was told; the selection stays',
    );
  });

  it('a dismissal follows the lines: a new selection shows again', () => {
    const ctx = new NextTurnContext(fakeEditor(sel));
    ctx.dismiss(injectionKey(sel));
    assert.equal(
      ctx.chips('s', count).some((c) => c.tag === 'ide_selection'),
      false,
    );
    assert.notEqual(injectionKey(sel), injectionKey({ ...sel, text: 'other' }));
    assert.notEqual(injectionKey(sel), injectionKey({ ...sel, endLine: 6 }));
  });

  it('pins are chips too, replace the same editor selection, and ✕ unqueues them', () => {
    const ctx = new NextTurnContext(fakeEditor(sel));
    assert.equal(ctx.pin(sel), true);
    assert.equal(ctx.pin(sel), false, 'the same lines are queued once');
    const chips = ctx.chips('s', count);
    assert.deepEqual(
      chips.map((c) => [c.tag, c.pinned]),
      [
        ['ide_opened_file', false],
        ['ide_selection', true],
      ],
    );
    ctx.dismiss(chips[1]!.key);
    assert.deepEqual(
      ctx.chips('s', count).map((c) => [c.tag, c.pinned]),
      [
        ['ide_opened_file', false],
        ['ide_selection', false],
      ],
    );
  });

  it('a message that was not sent gives everything back: pins, dismissals, the untold file', () => {
    const editor = fakeEditor(sel);
    const ctx = new NextTurnContext(editor);
    const other = { ...sel, startLine: 10, endLine: 12, text: 'pinned();' };
    ctx.pin(other);
    ctx.dismiss(injectionKey(sel));
    const taken = ctx.take('s');
    assert.deepEqual(
      taken.injections.map((i) => [i.kind, i.kind === 'ide_selection' && i.pinned === true]),
      [
        ['ide_opened_file', false],
        ['ide_selection', true],
      ],
    );
    assert.equal(
      ctx.chips('s', count).some((c) => c.pinned),
      false,
      'a pin in flight is no longer a chip',
    );
    taken.settle(false);
    taken.settle(true); // only the first settle counts
    assert.equal(editor.told, false, 'the opened file is offered again');
    assert.deepEqual(
      ctx.chips('s', count).map((c) => [c.tag, c.pinned]),
      [
        ['ide_opened_file', false],
        ['ide_selection', true],
      ],
      'the pin is back; the dismissed selection stays out',
    );
  });

  it('a sent message spends its pins but keeps pins and dismissals made meanwhile', () => {
    const ctx = new NextTurnContext(fakeEditor(sel));
    ctx.pin({ ...sel, startLine: 10, endLine: 12, text: 'first();' });
    const taken = ctx.take('s');
    // During the turn: another pin and a dismissal for the next message.
    ctx.pin({ ...sel, startLine: 20, endLine: 21, text: 'second();' });
    ctx.dismiss(injectionKey(sel));
    taken.settle(true);
    // The file was told, the selection dismissed meanwhile stays out, the new pin waits.
    assert.deepEqual(
      ctx.chips('s', count).map((c) => c.label),
      ['src/a.ts:20-21'],
    );
  });
});
