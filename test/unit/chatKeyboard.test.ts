import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { chipKeyAction, chipKind, focusAfterRemoval } from '../../src/webview/chat/chipKeys';
import { ICON_NAMES } from '../../src/webview/shared/icons';

describe('chat webview: context chips by keyboard', () => {
  it('Delete and Backspace remove a focused chip; other keys do nothing', () => {
    assert.equal(chipKeyAction('Delete'), 'remove');
    assert.equal(chipKeyAction('Backspace'), 'remove');
    for (const key of ['Enter', ' ', 'Tab', 'ArrowLeft', 'Escape', 'd', 'delete'])
      assert.equal(chipKeyAction(key), undefined, key);
  });

  it('focus moves to the chip that took the removed one’s place, else the one before, else the input', () => {
    assert.equal(focusAfterRemoval(0, 2), 0, 'first of three removed: the new first');
    assert.equal(focusAfterRemoval(1, 2), 1, 'middle removed: the one after it');
    assert.equal(focusAfterRemoval(2, 2), 1, 'last removed: the one before it');
    assert.equal(focusAfterRemoval(5, 1), 0, 'an index past the end clamps to the last chip');
    assert.equal(focusAfterRemoval(0, 0), 'input', 'no chips left: the message input');
  });

  it('names the kinds as the chips show them', () => {
    assert.equal(chipKind('ide_selection', false), 'selection');
    assert.equal(chipKind('ide_opened_file', false), 'file');
    assert.equal(chipKind('ide_selection', true), 'pinned');
    assert.equal(chipKind('project_file', false), 'project_file');
  });
});

describe('chat webview: codicons', () => {
  const css = readFileSync(new URL('../../node_modules/@vscode/codicons/dist/codicon.css', import.meta.url), 'utf8');

  it('every icon the webviews use exists in @vscode/codicons', () => {
    assert.ok(ICON_NAMES.length > 0);
    for (const name of ICON_NAMES)
      assert.ok(css.includes(`.codicon-${name}:before`), `codicon-${name} is not in codicon.css`);
  });

  it('the font the stylesheet loads is beside it, and the package ships both', () => {
    assert.match(css, /url\("\.\/codicon\.ttf[?"]/);
    const build = readFileSync(new URL('../../esbuild.mjs', import.meta.url), 'utf8');
    assert.match(build, /\['codicon\.css', 'codicon\.ttf'\]/, 'esbuild.mjs copies both into dist/webview');
    const ignore = readFileSync(new URL('../../.vscodeignore', import.meta.url), 'utf8').split('\n');
    assert.ok(ignore.includes('!dist/webview/*.css') && ignore.includes('!dist/webview/*.ttf'), 'the .vsix keeps them');
  });
});
