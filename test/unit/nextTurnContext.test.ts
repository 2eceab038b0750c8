import { strict as assert } from 'node:assert';
import type { Injection } from '../../src/core/model';
import { injectionKey, NextTurnContext, type EditorContextSource } from '../../src/host/chat/nextTurnContext';

/** An editor that offers the opened file until it was sent once, like the tracker. */
function fakeEditor(selection?: Extract<Injection, { kind: 'ide_selection' }>): EditorContextSource & { told: boolean } {
  const e = {
    told: false,
    preview: (): Injection[] => [...(e.told ? [] : [{ kind: 'ide_opened_file' as const, path: 'src/a.ts' }]), ...(selection ? [selection] : [])],
    injectionsForTurn: (_s: string | undefined, keep: (i: Injection) => boolean): Injection[] => {
      const kept = e.preview().filter(keep);
      if (kept.some((i) => i.kind === 'ide_opened_file')) e.told = true;
      return kept;
    },
  };
  return e;
}

const sel = { kind: 'ide_selection' as const, path: 'src/a.ts', startLine: 3, endLine: 5, text: 'let x = 1;\nlet y = 2;\nlet z = 3;' };
const count = (t: string) => t.length / 4;

describe('next-turn context (chips above the input)', () => {
  it('shows the opened file and the selection with the exact tagged text and tokens', () => {
    const ctx = new NextTurnContext(fakeEditor(sel));
    const chips = ctx.chips('s', count);
    assert.deepEqual(chips.map((c) => [c.tag, c.label, c.pinned]), [['ide_opened_file', 'src/a.ts', false], ['ide_selection', 'src/a.ts:3-5', false]]);
    assert.match(chips[1]!.text, /^<ide_selection>The user selected the lines 3 to 5 from src\/a.ts:\nlet x = 1;/);
    assert.equal(chips[1]!.tokens, Math.round(chips[1]!.text.length / 4));
  });

  it('a dismissed chip is left out of this turn only; the opened file comes back next turn', () => {
    const editor = fakeEditor(sel);
    const ctx = new NextTurnContext(editor);
    ctx.dismiss(injectionKey({ kind: 'ide_opened_file', path: 'src/a.ts' }));
    assert.deepEqual(ctx.chips('s', count).map((c) => c.tag), ['ide_selection']);
    assert.deepEqual(ctx.take('s').map((i) => i.kind), ['ide_selection']);
    assert.equal(editor.told, false, 'a dismissed opened file is not remembered as told');
    assert.deepEqual(ctx.chips('s', count).map((c) => c.tag), ['ide_opened_file', 'ide_selection']);
    assert.deepEqual(ctx.take('s').map((i) => i.kind), ['ide_opened_file', 'ide_selection']);
    assert.deepEqual(ctx.chips('s', count).map((c) => c.tag), ['ide_selection'], 'the file was told; the selection stays');
  });

  it('a dismissal follows the lines: a new selection shows again', () => {
    const ctx = new NextTurnContext(fakeEditor(sel));
    ctx.dismiss(injectionKey(sel));
    assert.equal(ctx.chips('s', count).some((c) => c.tag === 'ide_selection'), false);
    assert.notEqual(injectionKey(sel), injectionKey({ ...sel, text: 'other' }));
    assert.notEqual(injectionKey(sel), injectionKey({ ...sel, endLine: 6 }));
  });

  it('pins are chips too, replace the same editor selection, and ✕ unqueues them', () => {
    const ctx = new NextTurnContext(fakeEditor(sel));
    assert.equal(ctx.pin(sel), true);
    assert.equal(ctx.pin(sel), false, 'the same lines are queued once');
    const chips = ctx.chips('s', count);
    assert.deepEqual(chips.map((c) => [c.tag, c.pinned]), [['ide_opened_file', false], ['ide_selection', true]]);
    ctx.dismiss(chips[1]!.key);
    assert.deepEqual(ctx.chips('s', count).map((c) => [c.tag, c.pinned]), [['ide_opened_file', false], ['ide_selection', false]]);
  });

  it('giveBack requeues the pins of a turn that was not sent', () => {
    const ctx = new NextTurnContext(fakeEditor());
    ctx.pin(sel);
    const taken = ctx.take('s');
    assert.equal(ctx.chips('s', count).some((c) => c.pinned), false);
    ctx.giveBack(taken);
    assert.deepEqual(ctx.preview('s').filter((i) => i.kind === 'ide_selection').map((i) => i.kind === 'ide_selection' && i.pinned), [true]);
  });
});
