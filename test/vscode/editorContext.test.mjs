// Editor context in a real VS Code against the fake Anthropic server: the opened file and the
// selection go with a message as <ide_opened_file> / <ide_selection> blocks before the user's
// words; the opened file only when it changed since the last turn; Pin Selection queues a
// pinned selection for the next message.
//   node --import tsx --test test/vscode/editorContext.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';

const GREET = 'export function greet(name) {\n  return `Hello, ${name}!`;\n}\n';
const SELECTION_HEAD = '<ide_selection>The user selected the lines 1 to 2 from src/greet.js:';

/**
 * @typedef {import('../fake-anthropic/request.ts').ApiRequest} ApiRequest the body of a `/v1/messages` request
 * @typedef {ApiRequest['messages'][number]} MessageParam one message of a request
 * @typedef {import('../fake-anthropic/index.ts').RecordedRequest & { body: ApiRequest }} MessagesRequest
 *   a recorded `/v1/messages` request, its body read
 */

/**
 * The text blocks of the last user message of the last request, in order.
 * @param {import('./agentHarness.mjs').AgentWorld} w a world that has sent a message
 * @returns {string[]}
 */
function lastUserTexts(w) {
  // The world sent a message, so there is a last request and it has a last message.
  const last = /** @type {MessageParam} */ (
    /** @type {MessagesRequest} */ (w.fake.requests.at(-1)).body.messages.at(-1)
  );
  assert.equal(last.role, 'user');
  /** @type {Exclude<MessageParam['content'], string>} */
  const content = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  return content.filter((b) => b.type === 'text').map((b) => b.text);
}

describe('editor context in a real VS Code', { timeout: suiteTimeout(600_000) }, () => {
  /** @type {import('./agentHarness.mjs').AgentWorld} */
  let w;
  before(async () => {
    w = await startAgentWorld({
      workspaceFiles: {
        'src/greet.js': GREET,
        'README.md': '# Demo\n',
        // The repository turns the selection on itself: Toggle must still turn it off.
        '.vscode/settings.json': JSON.stringify({ 'contextPipeline.injectSelection': true }),
      },
    });
  });
  after(async () => {
    if (!w) return;
    const { screenshot } = await import('./workbench.mjs');
    await screenshot(w.page, 'editor-context-last').catch(() => undefined);
    await w.close();
  });

  test('the opened file (once) and the selection go before the user words', async () => {
    const { page } = w;
    // Quick Open src/greet.js.
    const { quickOpen } = await import('./gestures.mjs');
    await quickOpen(page, 'greet.js');
    const line1 = page.locator('.editor-instance .monaco-editor .view-line', { hasText: 'export function greet' });
    await line1.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    // Select lines 1-2: click in line 1, go to its start, Shift+Down twice.
    await line1.click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');
    await page
      .locator('.editor-instance .monaco-editor .selected-text')
      .first()
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });

    // Above the input: chips for exactly what will go with the message, with their tokens.
    const chips = w.frame.locator('[data-testid="pending-context"] .pending-chip');
    await chips.filter({ hasText: 'src/greet.js:1-2' }).waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const chipTexts = (await chips.allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
    assert.equal(chipTexts.length, 2, JSON.stringify(chipTexts));
    assert.match(chipTexts[0], /^file src\/greet\.js [\d,]+ tok$/);
    assert.match(chipTexts[1], /^selection src\/greet\.js:1-2 [\d,]+ tok$/);
    assert.match(
      /** @type {string} */ (await chips.nth(1).getAttribute('title')),
      /<ide_selection>The user selected the lines 1 to 2/,
    );

    // Into the chat and send.
    await w.frame.getByRole('textbox', { name: 'Message' }).click();
    w.fake.script({ text: 'It builds a greeting.' });
    await w.send('What does this do?');
    await w.waitForAnswer('It builds a greeting.');
    await w.waitIdle();
    const first = lastUserTexts(w);
    const selections = first.filter((t) => t.startsWith(SELECTION_HEAD));
    const opened = first.filter((t) => t.startsWith('<ide_opened_file>'));
    assert.equal(selections.length, 1, `one selection block in ${JSON.stringify(first)}`);
    assert.equal(opened.length, 1, `one opened-file block in ${JSON.stringify(first)}`);
    assert.match(opened[0], /The user opened the file src\/greet\.js in the IDE/);
    assert.ok(selections[0].includes('export function greet(name) {\n  return `Hello, ${name}!`;'), selections[0]);
    assert.ok(!selections[0].includes('\n}\n'), 'line 3 is not part of the selection');
    const words = first.findIndex((t) => t === 'What does this do?');
    assert.ok(
      words > first.indexOf(selections[0]) && words > first.indexOf(opened[0]),
      'editor context comes before the user words',
    );
    const { screenshot } = await import('./workbench.mjs');
    await screenshot(page, 'editor-context');

    // Same file, same selection: no second <ide_opened_file>.
    w.fake.script({ text: 'Still the same greeting.' });
    await w.send('And now?');
    await w.waitForAnswer('Still the same greeting.');
    await w.waitIdle();
    const second = lastUserTexts(w);
    assert.equal(
      second.filter((t) => t.startsWith('<ide_opened_file>')).length,
      0,
      `no opened-file block in ${JSON.stringify(second)}`,
    );
    assert.equal(
      second.filter((t) => t.startsWith(SELECTION_HEAD)).length,
      1,
      'the selection still goes with every message',
    );
    // The opened file was told: only the selection chip is left.
    assert.deepEqual(
      await w.frame.locator('[data-testid="pending-context"] .pending-chip .chip-kind').allTextContents(),
      ['selection'],
    );
  });

  test('a chip clicked away is left out of that message only', async () => {
    const chip = w.frame.locator('[data-testid="pending-context"] .pending-chip', { hasText: 'src/greet.js:1-2' });
    await chip.locator('.chip-remove').click();
    await chip.waitFor({ state: 'detached', timeout: UI_TIMEOUT });
    w.fake.script({ text: 'Answered without the selection.' });
    await w.send('Without context please.');
    await w.waitForAnswer('Answered without the selection.');
    await w.waitIdle();
    const texts = lastUserTexts(w);
    assert.equal(
      texts.filter((t) => t.startsWith('<ide_selection>')).length,
      0,
      `no selection block in ${JSON.stringify(texts)}`,
    );
    assert.equal(
      await w.frame.locator('.item.user').last().locator('.chip').count(),
      0,
      'the message shows no context went with it',
    );
    // The next message offers the selection again.
    await chip.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  });

  test('a chip removed by keyboard: Tab reaches it, Delete removes it, focus and the announcement follow', async () => {
    const input = w.frame.getByRole('textbox', { name: 'Message' });
    const chip = w.frame.locator('[data-testid="pending-context"] .pending-chip', { hasText: 'src/greet.js:1-2' });
    await chip.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const active = () =>
      w.frame.evaluate(() => {
        const a = document.activeElement;
        return a ? `${a.tagName.toLowerCase()}.${a.className}` : null;
      });
    // Back from the input: the chip's close button, then the chip itself (a list item in a list).
    await input.focus();
    await w.page.keyboard.press('Shift+Tab');
    assert.equal(await active(), 'button.chip-remove');
    await w.page.keyboard.press('Shift+Tab');
    assert.equal(await active(), 'span.pending-chip');
    assert.equal(await chip.getAttribute('role'), 'listitem');
    assert.match(
      /** @type {string} */ (await chip.getAttribute('aria-label')),
      /^selection src\/greet\.js:1-2, [\d,]+ tokens\. Delete removes it/,
    );
    await w.page.keyboard.press('Delete');
    await chip.waitFor({ state: 'detached', timeout: UI_TIMEOUT });
    // No chip left: focus is back in the input, and the removal was announced.
    assert.equal(await active(), 'textarea.input');
    assert.equal(
      await w.frame.locator('[data-testid="chip-announcer"]').textContent(),
      'Removed selection src/greet.js:1-2 from this message',
    );
    w.fake.script({ text: 'Answered without it again.' });
    await w.send('Still without context.');
    await w.waitForAnswer('Answered without it again.');
    await w.waitIdle();
    const texts = lastUserTexts(w);
    assert.equal(texts.filter((t) => t.startsWith('<ide_selection>')).length, 0, JSON.stringify(texts));
    await chip.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  });

  test('Pin Selection queues the selection as a pinned block of the next message', async () => {
    await w.command('Context Pipeline: Pin Selection');
    await w.page
      .locator('.notifications-toasts', { hasText: 'Pinned 2 lines of src/greet.js' })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await w.frame.getByRole('textbox', { name: 'Message' }).click();
    w.fake.script({ text: 'Pinned, noted.' });
    await w.send('Keep this in mind.');
    await w.waitForAnswer('Pinned, noted.');
    await w.waitIdle();
    const texts = lastUserTexts(w);
    assert.equal(
      texts.filter((t) => t.startsWith(SELECTION_HEAD)).length,
      1,
      `the pin and the live selection are one block: ${JSON.stringify(texts)}`,
    );
    const saved = JSON.stringify(w.sessionEntries());
    assert.match(
      saved,
      /"source":"ide_selection"[^{}]*"pinned":true|"pinned":true[^{}]*"source":"ide_selection"/,
      'the saved block is pinned',
    );
  });

  test("Toggle Editor Context turns it off where it takes effect, even when the workspace's settings turn it on", async () => {
    await w.command('Context Pipeline: Toggle Editor Context');
    await w.page
      .locator('.notifications-toasts', { hasText: 'editor context is off (workspace and user settings)' })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const workspace = JSON.parse(readFileSync(join(w.dirs.workspace, '.vscode/settings.json'), 'utf8'));
    assert.equal(workspace['contextPipeline.injectSelection'], false, 'written to the workspace, which set it');
    await w.frame.getByRole('textbox', { name: 'Message' }).click();
    w.fake.script({ text: 'No context, noted.' });
    await w.send('Anything selected?');
    await w.waitForAnswer('No context, noted.');
    await w.waitIdle();
    const texts = lastUserTexts(w);
    assert.equal(
      texts.filter((t) => t.startsWith('<ide_selection>') || t.startsWith('<ide_opened_file>')).length,
      0,
      `no editor context goes: ${JSON.stringify(texts)}`,
    );
  });
});
