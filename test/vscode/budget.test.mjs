// The Context Budget panel in a real VS Code against the fake Anthropic server: two chat turns
// (the second with a tool call, so three requests), then "Context Pipeline: Show Context
// Budget"; the panel must show the window bar and legend, a legend that adds up to the
// next-request estimate it shows (and close to what the server reported), the last request's
// ledger, and a history of three requests drawn by uPlot. Then: a message pinned in the chat
// and a selection pinned with Pin Selection are listed in the panel and Unpin there unpins them
// (the chat's button follows); an answer stopped mid-stream is billed and its row marked "cut
// off"; the request history is the same after "Developer: Reload Window"; and the panel follows
// a switch to a light theme.
//   node --import tsx --test test/vscode/budget.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { budgetFrame, scrollToCard } from './budgetFrame.mjs';
import { eventually, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';
/**
 * @typedef {import('./agentHarness.mjs').AgentWorld} AgentWorld
 * @typedef {import('../fake-anthropic/types.ts').RecordedRequest} RecordedRequest
 * @typedef {import('../fake-anthropic/types.ts').FakeUsage} FakeUsage
 * @typedef {import('../../src/core/session/entries.ts').PinEntry} PinEntry
 * @typedef {import('playwright-core').Frame} Frame
 */

/** @param {string | null} s */
const num = (s) => Number(String(s).replace(/[^\d.]/g, ''));
const GREET = 'export function greet(name) {\n  return `Hello, ${name}!`;\n}\n';

/**
 * Waits until `probe()` returns true (polling), or fails saying what was awaited.
 * @param {string} what
 * @param {() => Promise<boolean>} probe
 */
const until = (what, probe) => eventually(what, probe, { interval: 200 });

describe(
  'Context Budget panel in a real VS Code, against the fake Anthropic API',
  { timeout: suiteTimeout(600_000) },
  () => {
    /** @type {AgentWorld} Set in before(); the hooks and tests run after it. */
    let w;
    /** @type {typeof import('./workbench.mjs')} */
    let workbench;
    /** @type {typeof import('./gestures.mjs')} */
    let gestures;

    before(async () => {
      workbench = await import('./workbench.mjs');
      gestures = await import('./gestures.mjs');
      w = await startAgentWorld({
        settings: { 'workbench.colorTheme': 'Default Dark Modern' },
        workspaceFiles: { 'src/greet.js': GREET },
      });
    });

    after(async () => {
      if (!w) return;
      const invalid = w.fake.invalidRequests.map((r) => r.error);
      await w.close();
      assert.deepEqual(invalid, [], 'every request the extension sent was valid');
    });

    test('shows the window by category, the ledger and the request history', async () => {
      w.fake.script({ text: 'greet() returns a greeting for the name it is given.' });
      await w.send('What does greet do?');
      await w.waitForAnswer('greet() returns a greeting');
      await w.waitIdle();
      w.fake.script(
        { text: 'Let me read it.', toolUses: [{ name: 'read_file', input: { path: 'src/greet.js' } }] },
        { text: 'It returns a template string with the name.' },
      );
      await w.send('Read src/greet.js and explain it');
      await w.waitForAnswer('It returns a template string');
      await w.waitIdle();
      assert.equal(w.fake.requests.length, 3);

      await w.command('Context Pipeline: Show Context Budget');
      const frame = await budgetFrame(w.page);
      await frame.locator('[data-testid="budget-bar"]').waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      // The history reaches three requests (snapshots are throttled, so wait for it).
      await frame.locator('[data-testid="requests-table"] tbody tr').nth(2).waitFor({ timeout: UI_TIMEOUT });
      assert.equal(await frame.locator('[data-testid="requests-table"] tbody tr').count(), 3);
      // The chart is uPlot's canvas, with the three requests.
      const chart = frame.locator('[data-testid="budget-chart"]');
      await chart.locator('.uplot canvas').first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      assert.equal(await chart.getAttribute('data-points'), '3');
      const box = await chart.locator('.uplot canvas').first().boundingBox();
      assert.ok(box && box.width > 300 && box.height > 150, `the chart has a size (${JSON.stringify(box)})`);
      assert.ok((await chart.locator('.u-legend').innerText()).includes('Cache reads'), 'the chart has a legend');

      const segments = await frame
        .locator('[data-testid="bar-segment"]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-category')));
      for (const c of ['system', 'tools', 'user', 'assistant', 'toolResults', 'free', 'reserve'])
        assert.ok(segments.includes(c), `bar has ${c} (${segments.join(', ')})`);
      assert.equal(await frame.locator('[data-testid="threshold-soft"]').count(), 1);
      assert.equal(await frame.locator('[data-testid="threshold-hard"]').count(), 1);
      // The marks say what happens there; the bar has a key to them.
      assert.match(
        (await frame.locator('[data-testid="threshold-soft"]').getAttribute('title')) ?? '',
        /^(Auto-compact|Compaction proposed|Soft threshold) at \d+ % \(\d+k\)/,
      );
      assert.match(
        (await frame.locator('[data-testid="threshold-hard"]').getAttribute('title')) ?? '',
        /^Must compact at \d+ % \(\d+k\), before the next request is sent$/,
      );
      assert.match(await frame.locator('[data-testid="marks-key"]').innerText(), /must compact \d+ % \(\d+k\)/);
      // One "% full", of the usable window, said the same way in the panel and the chat header.
      const fullness = /(\d+) % of the (\d+k) usable window/;
      const panelFull = fullness.exec(await frame.locator('[data-testid="next-estimate"]').innerText());
      const headerFull = fullness.exec(await w.frame.locator('[data-testid="context-usage"]').innerText());
      assert.ok(
        panelFull && headerFull,
        `both say the % full and what it is of (${panelFull?.[0]}, ${headerFull?.[0]})`,
      );
      assert.equal(panelFull[2], headerFull[2], 'of the same usable window');
      assert.match(
        (await w.frame.locator('.context-bar .mark.hard').getAttribute('title')) ?? '',
        /^Must compact at \d+ % \(\d+k\)/,
      );
      // The chat view's title bar has the settings gear.
      assert.ok(
        (await w.page.locator('.part.sidebar [aria-label="Open Settings"]').count()) >= 1,
        'a settings gear in the chat view title bar',
      );

      const legend = await frame
        .locator('[data-testid="budget-legend"] tbody tr')
        .evaluateAll((rows) =>
          rows.map((r) => ({ category: r.getAttribute('data-category'), tokens: r.children[2]?.textContent ?? '' })),
        );
      const used = legend
        .filter((r) => r.category !== 'free' && r.category !== 'reserve')
        .reduce((a, r) => a + num(r.tokens), 0);
      const shown = num(await frame.locator('[data-testid="next-estimate"]').getAttribute('data-tokens'));
      assert.ok(
        Math.abs(used - shown) <= legend.length,
        `legend adds up to the next-request total shown (${used} vs ${shown})`,
      );
      // The bar is the NEXT request: the last request's prompt plus the final answer.
      const u = /** @type {RecordedRequest & { usage: FakeUsage }} */ (w.fake.requests.at(-1)).usage;
      const reported = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
      const expected = reported + u.output_tokens;
      process.stderr.write(
        `[budget] legend ${used}, last request reported ${reported} + ${u.output_tokens} output = ${expected}\n`,
      );
      assert.ok(
        Math.abs(used - expected) / expected < 0.05,
        `legend ${used} within 5 % of reported ${reported} + answer ${u.output_tokens}`,
      );

      const ledgerRows = await frame
        .locator('[data-testid="ledger-table"] tbody tr')
        .evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent ?? '')));
      assert.ok(ledgerRows.length >= 5, `ledger lists the blocks (${ledgerRows.length})`);
      assert.ok(
        ledgerRows.some((r) => r[1] === 'user · tool_result'),
        'the tool result is in the last request',
      );
      assert.ok(
        ledgerRows.every((r) => num(r[3]) > 0),
        'every block has tokens',
      );
      assert.ok(
        ledgerRows.some((r) => /^◆ (5m|1h)$/.test(r[4] ?? '')),
        `a cache breakpoint is marked with its lifetime: ${ledgerRows.map((r) => r[4]).join('|')}`,
      );
      // Its tooltip says why it is there, how long the cache keeps it and why.
      const why = await frame.locator('[data-testid="budget-ledger"] span.breakpoint').first().getAttribute('title');
      assert.match(why ?? '', /^Cache breakpoint after this block \(.+\), kept (5 minutes|1 hour): /);
      assert.equal(await frame.locator('[data-testid="ledger-diff"]').count(), 1);

      const path = await workbench.screenshot(w.page, 'budget-panel');
      await scrollToCard(frame, 'budget-history');
      const chartShot = await workbench.screenshot(w.page, 'budget-panel-chart');
      await scrollToCard(frame, 'budget-ledger');
      const ledgerShot = await workbench.screenshot(w.page, 'budget-panel-ledger');
      process.stderr.write(`[budget] screenshots ${path}, ${chartShot}, ${ledgerShot}\n`);
    });

    test('lists what is pinned, and Unpin there unpins it in the chat too', async () => {
      let frame = await budgetFrame(w.page);
      await frame.locator('[data-testid="pinned-empty"]').waitFor({ state: 'visible', timeout: UI_TIMEOUT });

      // A whole message, pinned with the chat's Pin button.
      await w.frame.locator('.item.user .pin').first().click();
      await w.frame.locator('.item.user.pinned').first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      const message = frame.locator('[data-testid="pinned-row"][data-kind="message"]');
      await message.first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      assert.equal(await message.count(), 1);
      assert.match(await message.innerText(), /You · turn 1 · whole message\s+What does greet do\?/);
      assert.ok(num(await message.locator('td').nth(1).innerText()) > 0, 'the pinned message shows its tokens');
      await scrollToCard(frame, 'budget-pinned');
      await workbench.screenshot(w.page, 'budget-pinned');
      await message.locator('[data-testid="unpin"]').click();
      await frame.locator('[data-testid="pinned-empty"]').waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await until(
        'the chat to show the message unpinned',
        async () => (await w.frame.locator('.item.user.pinned').count()) === 0,
      );
      assert.equal(await w.frame.locator('.item.user .pin').first().getAttribute('aria-pressed'), 'false');
      /** The unpin entries of the session files. */
      const unpins = () =>
        w.sessionEntries().flatMap((f) => /** @type {PinEntry[]} */ (f.entries.filter((e) => e.type === 'unpin')));
      assert.ok(unpins().length > 0, 'the unpin is in the session file');

      // A selection, pinned with Pin Selection and sent with the next message.
      const { page } = w;
      await gestures.quickOpen(page, 'greet.js');
      const line1 = page.locator('.editor-instance .monaco-editor .view-line', { hasText: 'export function greet' });
      await line1.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await line1.click();
      await page.keyboard.press('Control+Home');
      await page.keyboard.press('Shift+ArrowDown');
      await page.keyboard.press('Shift+ArrowDown');
      await w.command('Context Pipeline: Pin Selection');
      await page
        .locator('.notifications-toasts', { hasText: 'Pinned 2 lines of src/greet.js' })
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await w.frame.getByRole('textbox', { name: 'Message' }).click();
      w.fake.script({ text: 'Pinned, noted.' });
      await w.send('Keep this in mind.');
      await w.waitForAnswer('Pinned, noted.');
      await w.waitIdle();

      await w.command('Context Pipeline: Show Context Budget');
      frame = await budgetFrame(w.page);
      const block = frame.locator('[data-testid="pinned-row"][data-kind="block"]');
      await block.first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      assert.equal(await block.count(), 1);
      assert.match(
        await block.innerText(),
        /src\/greet\.js:1-2 · in your message of turn 3\s+export function greet\(name\) \{/,
      );
      const blockId = await block.getAttribute('data-id');
      await block.locator('[data-testid="unpin"]').click();
      await frame.locator('[data-testid="pinned-empty"]').waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      assert.ok(
        unpins().some((e) => e.blockId === blockId),
        'the unpin of the selection block is in the session file',
      );
    });

    test('a request stopped mid-answer is billed, its row marked "cut off" with its output estimated', async () => {
      // The fake streams message_start (the prompt's usage), content_block_start, ping, then the
      // deltas: held after 6 waits, the answer has begun and is cut by Stop.
      const hold = w.streamHold.holdAfter(6);
      w.fake.script({
        text: 'A long explanation that the user stops early. '.repeat(30),
        chunkChars: 8,
        deltaDelayMs: 1,
      });
      await w.send('Explain greet at length');
      await hold.reached;
      await w.frame.locator('.composer button.stop').click();
      await w.waitIdle();
      hold.release();
      const frame = await budgetFrame(w.page);
      const newest = frame.locator('[data-testid="requests-table"] tbody tr').first();
      await until('the stopped request to head the history', async () =>
        /cut off/.test((await newest.textContent()) ?? ''),
      );
      const cells = (await newest.locator('td').allTextContents()).map((c) => c.trim());
      assert.match(cells[0] ?? '', /^#5.*cut off$/, `the request column: ${cells[0]}`);
      assert.match(cells[4] ?? '', /^~\d/, `the output is an estimate: ${cells[4]}`);
      assert.ok(num(cells[1] ?? '') > 0, `the prompt the API reported: ${cells[1]}`);
      assert.match(cells[6] ?? '', /^\$0\.\d*[1-9]/, `billed: ${cells[6]}`);
      assert.match(
        (await newest.locator('td').first().locator('span').first().getAttribute('title')) ?? '',
        /^Cut off before its answer ended/,
      );
      await scrollToCard(frame, 'budget-history');
      process.stderr.write(`[budget] stopped request: ${await workbench.screenshot(w.page, 'budget-panel-cut-off')}\n`);
    });

    test('the request history is the same after Developer: Reload Window', async () => {
      let frame = await budgetFrame(w.page);
      const rowsOf = (/** @type {Frame} */ f) => f.locator('[data-testid="requests-table"] tbody tr');
      // Cells read by their text, not innerText: innerText depends on layout, and a webview that
      // VS Code is still revealing after the reload reads as one run of text without the tabs.
      const cellsOf = (/** @type {Frame} */ f) =>
        rowsOf(f).evaluateAll((rows) =>
          rows.map((r) =>
            Array.from(r.querySelectorAll('td'))
              .map((c) => (c.textContent ?? '').trim())
              .join('|'),
          ),
        );
      await rowsOf(frame).nth(4).waitFor({ timeout: UI_TIMEOUT });
      const before = await cellsOf(frame);
      assert.equal(before.length, 5, `five requests before the reload: ${JSON.stringify(before)}`);
      assert.ok(
        before.some((r) => r.includes('cut off')),
        'the stopped request is among them',
      );

      // Waits for the reloaded workbench and its chat (the extension is running again), then the
      // command (retried until its row shows: contributed commands may register late after a reload).
      await w.reloadWindow();
      // VS Code may restore the panel itself (its serializer); the command reveals it either way.
      await w.command('Context Pipeline: Show Context Budget');
      frame = await budgetFrame(w.page);
      await rowsOf(frame)
        .nth(before.length - 1)
        .waitFor({ timeout: UI_TIMEOUT });
      assert.deepEqual(await cellsOf(frame), before, 'the same rows, rebuilt from the session file');
      assert.equal(
        await frame.locator('[data-testid="budget-chart"]').getAttribute('data-points'),
        String(before.length),
      );
      await scrollToCard(frame, 'budget-history');
      process.stderr.write(`[budget] after reload: ${await workbench.screenshot(w.page, 'budget-panel-reloaded')}\n`);
    });

    test('follows a switch to a light theme', async () => {
      const markers = async (/** @type {Frame} */ f) =>
        f
          .locator('[data-testid="budget-chart"] .u-legend .u-marker')
          .evaluateAll((els) => els.map((e) => getComputedStyle(e).backgroundColor));
      const dark = await markers(await budgetFrame(w.page));
      // Switches to the preferred light theme (Light Modern by default).
      await w.command('Preferences: Toggle between Light/Dark Themes');
      const frame = await budgetFrame(w.page);
      await frame.locator('body.vscode-light').waitFor({ state: 'attached', timeout: UI_TIMEOUT });
      await frame
        .locator('[data-testid="budget-chart"] .uplot canvas')
        .first()
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await until(
        "the chart to take the light theme's colours",
        async () => JSON.stringify(await markers(frame)) !== JSON.stringify(dark),
      );
      await scrollToCard(frame, 'budget-history');
      await gestures.nextFrames(frame); // the chart is rebuilt with the new colours on the next frame
      process.stderr.write(`[budget] light theme: ${await workbench.screenshot(w.page, 'budget-panel-light')}\n`);
    });
  },
);
