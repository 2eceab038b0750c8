// The three views a person looks at — the chat, the Context Budget panel and the Compactions
// tree — in VS Code's light and dark themes, each built up through the UI against the fake
// Anthropic server and saved as screenshots (docs/screenshots/ when CP_UPDATE_DOCS_SCREENSHOTS=1,
// else test-results/screenshots/). The dark run then reloads the window and finds the session
// intact: the same messages, the same request history in the budget panel.
//   node --import tsx --test test/vscode/themes.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { budgetFrame, scrollToCard } from './budgetFrame.mjs';
import { REPO_ROOT } from './setup.mjs';
import { eventually as poll, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';
const OUT =
  process.env.CP_UPDATE_DOCS_SCREENSHOTS === '1'
    ? join(REPO_ROOT, 'docs', 'screenshots')
    : join(REPO_ROOT, 'test-results', 'screenshots');
const AUTH = [
  'export function validateToken(token, now = Date.now()) {',
  '  if (!token) return false;',
  '  // BUG: no clock-skew allowance',
  '  return token.exp > now;',
  '}',
  '',
].join('\n');
/** @type {(n: number) => string} */
const LONG = (n) =>
  Array.from(
    { length: 6 },
    (_, i) =>
      `Point ${n}.${i + 1}: validateToken() compares \`token.exp\` against \`Date.now()\` with no clock-skew allowance, so tokens near expiry fail on machines whose clocks drift.`,
  ).join(' ');

/**
 * Polls `check` until it returns a truthy value.
 * @template T
 * @param {() => Promise<T>} check a rejection counts as not yet
 * @param {string} what
 * @returns {Promise<T>}
 */
const eventually = (check, what) => poll(what, () => check().catch(() => undefined), { interval: 150 });

const RESULTS = join(REPO_ROOT, 'test-results', 'screenshots');

/**
 * Saves a screenshot of one part of the workbench (to OUT for the README's, else test-results).
 * @param {import('playwright-core').Page} page
 * @param {string} selector
 * @param {string} name the file name without `.png`
 * @param {{ forDocs?: boolean }} [options]
 * @returns {Promise<string>} the screenshot's path
 */
async function shot(page, selector, name, { forDocs = true } = {}) {
  const dir = forDocs ? OUT : RESULTS;
  mkdirSync(dir, { recursive: true });
  await page.mouse.move(1, 899);
  const { nextFrames } = await import('./gestures.mjs');
  await nextFrames(page); // the pointer's move is laid out: no hover effect left
  const path = join(dir, `${name}.png`);
  await page.locator(selector).first().screenshot({ path, animations: 'disabled' });
  return path;
}

for (const theme of [
  { id: 'light', name: 'Default Light Modern' },
  { id: 'dark', name: 'Default Dark Modern' },
]) {
  describe(
    `the chat, the budget panel and the tree in the ${theme.id} theme`,
    { timeout: suiteTimeout(800_000) },
    () => {
      /** @type {import('./agentHarness.mjs').AgentWorld} */
      let w;
      /** @type {string[]} paths of the screenshots taken */
      const saved = [];

      after(async () => {
        if (!w) return;
        process.stderr.write(
          `[themes:${theme.id}] ${w.fake.requests.length} requests, ${w.fake.invalidRequests.length} invalid; screenshots: ${saved.join(', ')}\n`,
        );
        const invalid = w.fake.invalidRequests.map((r) => r.error);
        await w.close();
        assert.deepEqual(invalid, [], 'every request the extension sent was valid');
      });

      test('a session with editor context, a tool round and an edit waiting for approval', async () => {
        w = await startAgentWorld({
          workspaceFiles: { 'src/auth.js': AUTH, 'README.md': '# Demo\n' },
          settings: {
            'workbench.colorTheme': theme.name,
            'contextPipeline.keepRecentTurns': 1,
            'contextPipeline.keepRecentTokens': 0,
          },
        });
        const { page } = w;
        const { widenSidebar } = await import('./workbench.mjs');
        await widenSidebar(page, 200);
        // Open src/auth.js and select the buggy line, so the chat shows context chips.
        const { quickOpen } = await import('./gestures.mjs');
        await quickOpen(page, 'auth.js');
        const line4 = page.locator('.editor-instance .monaco-editor .view-line', {
          hasText: 'return token.exp > now;',
        });
        await line4.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
        await line4.click();
        await page.keyboard.press('Home');
        await page.keyboard.press('Shift+End');

        w.fake.script({ text: `The selected line is the bug. ${LONG(1)}` });
        await w.send('Why do tokens near expiry fail?');
        await w.waitForAnswer('The selected line is the bug.');
        await w.waitIdle();
        w.fake.script(
          {
            text: 'Let me read the whole file first.',
            toolUses: [{ name: 'read_file', input: { path: 'src/auth.js' } }],
          },
          {
            text: 'I will add a 30-second skew allowance:',
            toolUses: [
              {
                name: 'edit_file',
                input: {
                  path: 'src/auth.js',
                  old_string: '  // BUG: no clock-skew allowance\n  return token.exp > now;',
                  new_string: '  const SKEW_MS = 30_000;\n  return token.exp + SKEW_MS > now;',
                },
              },
            ],
          },
          {
            text: 'Fixed: `validateToken()` now accepts tokens up to **30 s** past `exp`.\n\n```js\nreturn token.exp + SKEW_MS > now;\n```',
          },
        );
        await w.send('Fix it with a 30 s allowance.');
        const card = w.frame.locator('[data-testid="approval"][data-state="pending"]');
        await card.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
        saved.push(await shot(page, '.part.sidebar', `${theme.id}-chat-approval`));
        await card.locator('[data-testid="approve"]').click();
        await w.waitForAnswer('now accepts tokens up to');
        await w.waitIdle();
        saved.push(await shot(page, '.part.sidebar', `${theme.id}-chat`, { forDocs: false }));
      });

      test('Compact Now, then the tree with the summary and the originals', async () => {
        const { page } = w;
        w.fake.script({
          match: { model: 'claude-haiku-4-5' },
          text: 'The user asked why tokens near expiry fail; the assistant found the missing clock-skew allowance in `src/auth.js` line 4.',
        });
        await w.command('Context Pipeline: Compact Now');
        const widget = page.locator('.quick-input-widget');
        await widget
          .locator('.quick-input-message', { hasText: 'Would compact' })
          .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
        await widget.locator('input').press('Enter');
        await w.frame.locator('.summary-card').first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
        const header = page.locator('.part.sidebar .pane-header[aria-label="Compactions Section"]');
        if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
        const pane = page
          .locator('.part.sidebar .pane')
          .filter({ has: page.locator('.pane-header[aria-label="Compactions Section"]') });
        const manual = pane.locator('.monaco-list-row', { hasText: 'Manual · ' }).first();
        await manual.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
        // Collapse the chat so the tree has the side bar.
        const chatHeader = page.locator('.part.sidebar .pane-header[aria-label="Chat Section"]');
        if ((await chatHeader.getAttribute('aria-expanded')) === 'true') await chatHeader.click();
        if ((await manual.getAttribute('aria-expanded')) !== 'true') await manual.click();
        const turns = pane.locator('.monaco-list-row', { hasText: /^Turn 1/ }).first();
        await turns.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
        if ((await turns.getAttribute('aria-expanded')) !== 'true') await turns.click();
        // The user's first question, labelled in plain words (the session's row quotes it too).
        await pane
          .locator('.monaco-list-row')
          .filter({ has: page.locator('.label-name', { hasText: /^\s*Your message\s*$/ }) })
          .first()
          .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
        saved.push(await shot(page, '.part.sidebar', `${theme.id}-compactions`));
        // Expanding the chat again recreates its webview, rebuilt from the session.
        if ((await chatHeader.getAttribute('aria-expanded')) !== 'true') await chatHeader.click();
        await w.refindFrame();
        await w.frame.locator('.summary-card').first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      });

      test('Preview opens the request in a focused editor tab, led by its one-line summary', async () => {
        const { page } = w;
        const input = w.frame.getByRole('textbox', { name: 'Message' });
        await input.fill('Does the fix cover refresh tokens too?');
        await w.frame.getByRole('button', { name: 'Preview' }).click();
        const tab = page.locator('.part.editor .tab.active', { hasText: 'Request preview' });
        await tab.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
        const editor = page.locator('.part.editor .editor-instance .monaco-editor.focused');
        await editor.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
        const lines = /** @type {string[]} */ (
          await eventually(async () => {
            // The rendered lines in the order they stand (the editor reuses their elements).
            const texts = await editor.locator('.view-line').evaluateAll((els) =>
              els
                .map((e) => ({
                  top: e.getBoundingClientRect().top,
                  text: (e.textContent ?? '').replace(/\u00a0/g, ' '),
                }))
                .sort((a, b) => a.top - b.top)
                .map((l) => l.text),
            );
            // Monaco moves reused line elements while it renders: a snapshot taken mid-render can
            // list them out of order, so wait for one that starts with the summary (a document
            // that does not start so never shows one, and the wait fails with its lines).
            return texts.includes('# Request preview') && /^≈ /.test(texts[0] ?? '') ? texts : undefined;
          }, 'the preview document to show, led by its summary line')
        );
        // The first line: tokens, the input's price, the prompt cache hit expected; then the ledger.
        assert.match(
          lines[0] ?? '',
          /^≈ [\d,]+ tokens · ≈ \$\d+\.\d{4} to send · (?:[\d,]+ expected from the prompt cache|no prompt cache hit expected)$/,
          lines.join('\n'),
        );
        assert.ok(lines.indexOf('# Request preview') > 0, lines.join('\n'));
        saved.push(await shot(page, '.part.editor', `${theme.id}-preview`, { forDocs: false }));
        // Leave the window as the next tests expect it: the tab closed, the message box empty.
        await w.command('View: Close Editor');
        await tab.waitFor({ state: 'detached', timeout: UI_TIMEOUT });
        await input.fill('');
      });

      test('the Context Budget panel', async () => {
        await w.command('Notifications: Clear All Notifications');
        await w.command('Context Pipeline: Show Context Budget');
        const frame = await budgetFrame(w.page);
        await frame.locator('[data-testid="budget-bar"]').waitFor({ state: 'visible', timeout: UI_TIMEOUT });
        // The session's total counts what Compact Now's summary cost, and says how much it was.
        assert.match(
          await frame.locator('[data-testid="budget-history"] > p.muted').last().innerText(),
          /^\d+ requests, \$\d+\.\d{4} in this session \(\$0\.0\d{3} of it by compaction summaries\)/,
        );
        saved.push(await shot(w.page, '.part.editor', `${theme.id}-budget`));
        await scrollToCard(frame, 'budget-history');
        saved.push(await shot(w.page, '.part.editor', `${theme.id}-budget-history`, { forDocs: false }));
        await scrollToCard(frame, 'budget-bar');
      });

      if (theme.id === 'dark') {
        test('reloading the window keeps the session: the same messages and request history', async () => {
          const before = await w.frame.locator('.item.user .text').allInnerTexts();
          const budget = await budgetFrame(w.page);
          const rowsBefore = await budget.locator('[data-testid="requests-table"] tbody tr').count();
          const totalBefore = await budget.locator('[data-testid="budget-history"] > p.muted').last().innerText();
          await w.reloadWindow();
          await w.frame.locator('.item.user').first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
          assert.deepEqual(
            await w.frame.locator('.item.user .text').allInnerTexts(),
            before,
            'the same user messages after the reload',
          );
          await w.frame.locator('.summary-card').first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
          await w.waitForAnswer('now accepts tokens up to');
          // The budget panel shows the same history, rebuilt from the session file.
          await w.command('Context Pipeline: Show Context Budget');
          const again = await budgetFrame(w.page);
          if (rowsBefore > 0)
            await eventually(
              async () => (await again.locator('[data-testid="requests-table"] tbody tr').count()) === rowsBefore,
              `${rowsBefore} history rows after the reload`,
            );
          // The same total, summaries included, rebuilt from the session file.
          await eventually(
            async () =>
              (await again.locator('[data-testid="budget-history"] > p.muted').last().innerText()) === totalBefore,
            `the same session total after the reload: ${totalBefore}`,
          );
          // And the conversation goes on.
          w.fake.script({ text: 'Still here after the reload.' });
          await w.send('Are you still there?');
          await w.waitForAnswer('Still here after the reload.');
          saved.push(await shot(w.page, '.part.sidebar', 'dark-chat-after-reload', { forDocs: false }));
        });
      }
    },
  );
}
