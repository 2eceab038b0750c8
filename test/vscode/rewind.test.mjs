// Rewind to here in a real VS Code, against the fake server: three turns edit a file (and one
// creates another); Rewind to here on the first message, "Conversation and files", puts the
// files on disk back and the conversation too (the words back in the composer); Restore in the
// Compactions view brings both forward again; a file edited by hand since Claude left it is
// reported as a conflict in a modal, and "Skip Them" leaves it as the user made it; a file with
// unsaved changes in an editor is a conflict too, and Overwrite leaves those changes in the editor.
// Screenshots of the rewind dialog (the quick pick, the conflict modal) in both themes.
//   node --import tsx --test test/vscode/rewind.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { REPO_ROOT } from './setup.mjs';
import { compactionsPane, row } from './compactionsPane.mjs';
import { eventually, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';

/** @typedef {import('./agentHarness.mjs').AgentWorld} AgentWorld */

const Q = ['First: make it v1', 'Second: v2, and add extra.txt', 'Third: v3'];

/** Where the README's screenshots go: docs/screenshots/ with CP_UPDATE_DOCS_SCREENSHOTS=1, else test-results/. */
const OUT =
  process.env.CP_UPDATE_DOCS_SCREENSHOTS === '1'
    ? join(REPO_ROOT, 'docs', 'screenshots')
    : join(REPO_ROOT, 'test-results', 'screenshots');

describe('Rewind to here in a real VS Code', { timeout: suiteTimeout(600_000) }, () => {
  /** @type {AgentWorld | undefined} */
  let w;
  const world = () => {
    assert.ok(w, 'the world started');
    return w;
  };
  const notes = () => readFileSync(join(world().dirs.workspace, 'notes.txt'), 'utf8');
  const extra = () => join(world().dirs.workspace, 'extra.txt');
  /** The chat and the dialog over it (the left 1000×620 pixels), as `<name>.png` in OUT. @param {string} name */
  const shot = async (name) => {
    mkdirSync(OUT, { recursive: true });
    await world().page.screenshot({
      path: join(OUT, `${name}.png`),
      clip: { x: 0, y: 0, width: 1000, height: 620 },
      animations: 'disabled',
    });
  };

  /** Applies the edit cards of a turn as they come, until its answer `answer` shows. */
  async function approveUntil(/** @type {string} */ answer) {
    const { frame } = world();
    await eventually(`the answer "${answer}" (approving the edits it asks for)`, async () => {
      const pending = frame.locator('[data-testid="approval"][data-state="pending"] [data-testid="approve"]');
      if (await pending.count())
        await pending
          .first()
          .click({ timeout: 2_000 })
          .catch(() => undefined);
      return (await frame.locator('.item.assistant', { hasText: answer }).count()) > 0;
    });
    await world().waitIdle();
  }

  /** Opens Rewind to here on the user's message `text` and waits for its quick pick. */
  async function openRewind(/** @type {string} */ text) {
    const { frame, page } = world();
    const item = frame.locator('.item.user', { hasText: text }).first();
    await item.hover();
    await item.locator('[data-testid="rewind-to"]').click();
    const widget = page.locator('.quick-input-widget');
    await widget
      .locator('.quick-input-title', { hasText: 'Rewind or summarize from this message' })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    return widget;
  }

  /** Picks a row of the open quick pick by its label. */
  async function pick(/** @type {import('playwright-core').Locator} */ widget, /** @type {string} */ label) {
    const r = widget.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
    await r.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await r.click();
    await widget.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
  }

  before(async () => {
    w = await startAgentWorld({
      workspaceFiles: { 'notes.txt': 'v0\n' },
      // VS Code for the web saves after a delay by default; unsaved changes are what the last test needs.
      settings: { 'workbench.colorTheme': 'Default Dark Modern', 'files.autoSave': 'off' },
    });
    const edit = (/** @type {string} */ from, /** @type {string} */ to) => ({
      name: 'edit_file',
      input: { path: 'notes.txt', old_string: from, new_string: to },
    });
    w.fake.script(
      { text: 'Editing.', toolUses: [edit('v0', 'v1')] },
      { text: 'Now v1.' },
      {
        text: 'Editing again.',
        toolUses: [
          edit('v1', 'v2'),
          { name: 'edit_file', input: { path: 'extra.txt', old_string: '', new_string: 'extra\n' } },
        ],
      },
      { text: 'Now v2, with extra.txt.' },
      { text: 'Once more.', toolUses: [edit('v2', 'v3')] },
      { text: 'Now v3.' },
    );
    for (const [i, q] of Q.entries()) {
      await w.send(q);
      await approveUntil(['Now v1.', 'Now v2, with extra.txt.', 'Now v3.'][i] ?? '');
    }
    assert.equal(notes(), 'v3\n');
    assert.ok(existsSync(extra()));
  });

  after(async () => {
    const invalid = (w?.fake.invalidRequests ?? []).map((r) => r.error);
    if (w) {
      const { screenshot } = await import('./workbench.mjs');
      await screenshot(w.page, 'rewind-last').catch(() => undefined);
    }
    await w?.close();
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });

  test('Rewind to here on the first message, conversation and files: the files go back on disk, the words to the composer', async () => {
    const { frame } = world();
    const widget = await openRewind(Q[0] ?? '');
    const both = widget.locator('.quick-input-list .monaco-list-row', { hasText: 'Conversation and files' }).first();
    await both.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match((await widget.innerText()).replace(/\s+/g, ' '), /2 files go back \(notes\.txt, extra\.txt\)/);
    await shot('dark-rewind');
    await pick(widget, 'Conversation and files');
    await eventually('the files to go back', () => notes() === 'v0\n' && !existsSync(extra()));
    await eventually('the conversation to rewind', async () => (await frame.locator('.item.user').count()) === 0);
    assert.equal(await frame.getByRole('textbox', { name: 'Message' }).inputValue(), Q[0]);
  });

  test('Restore in the Compactions view brings the conversation and the files forward again', async () => {
    const { page, frame } = world();
    await frame.getByRole('textbox', { name: 'Message' }).fill('');
    const workbench = await import('./workbench.mjs');
    const pane = await compactionsPane(world(), workbench);
    const rewound = row(pane, 'Rewind to here · ');
    const { chooseFromContextMenu } = await import('./gestures.mjs');
    await chooseFromContextMenu(page, rewound, 'Restore');
    await eventually('the files to come forward', () => notes() === 'v3\n' && existsSync(extra()));
    await eventually('the conversation to come back', async () => (await frame.locator('.item.user').count()) === 3);
  });

  test('a file edited by hand since Claude left it: the modal names it, Skip Them leaves it as it is (light theme)', async () => {
    const { page, frame } = world();
    const { chooseLightTheme } = await import('./gestures.mjs');
    await chooseLightTheme(page);
    writeFileSync(join(world().dirs.workspace, 'notes.txt'), 'edited by hand\n');
    const widget = await openRewind(Q[1] ?? '');
    await shot('light-rewind');
    await pick(widget, 'Conversation and files');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const text = await dialog.innerText();
    assert.match(text, /A file was changed since Claude last left it/);
    assert.match(text, /notes\.txt was changed since Claude \(or a rewind\) last left it/);
    await shot('light-rewind-conflict');
    await dialog.getByRole('button', { name: 'Skip Them' }).click();
    await dialog.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    await eventually('extra.txt (not edited by hand) to go', () => !existsSync(extra()));
    assert.equal(notes(), 'edited by hand\n', 'the hand edit stays');
    await eventually(
      'the conversation to rewind to the first turn',
      async () => (await frame.locator('.item.user').count()) === 1,
    );
  });

  test('a file with unsaved changes in an editor: the modal says so; Overwrite puts the file on disk back and the unsaved text stays in its editor', async () => {
    const { page, frame } = world();
    const { quickOpen } = await import('./gestures.mjs');
    await quickOpen(page, 'notes.txt');
    const editor = page.locator('.editor-instance .monaco-editor .view-lines').first();
    await editor.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await editor.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('typed_not_saved');
    await eventually('the editor to show the typed words', async () =>
      /typed_not_saved/.test(await editor.innerText()),
    );
    assert.equal(notes(), 'edited by hand\n', 'not saved');
    const widget = await openRewind(Q[0] ?? '');
    await pick(widget, 'Conversation and files');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const text = (await dialog.innerText()).replace(/\s+/g, ' ');
    assert.match(
      text,
      /notes\.txt was changed since Claude \(or a rewind\) last left it; it also has unsaved changes in an editor/,
    );
    assert.match(text, /Unsaved changes stay in their editor, unsaved/);
    await dialog.getByRole('button', { name: 'Overwrite Them' }).click();
    await dialog.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    await eventually('notes.txt on disk to go back', () => notes() === 'v0\n');
    await eventually('the conversation to rewind', async () => (await frame.locator('.item.user').count()) === 0);
    assert.match(await editor.innerText(), /typed_not_saved/, 'the unsaved text is still in the editor');
    await shot('rewind-unsaved-after');
  });
});
