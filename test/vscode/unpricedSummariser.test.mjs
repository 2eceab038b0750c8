// A summariser model without a known price, in a real VS Code against the fake Anthropic
// server: `contextPipeline.summarizerModel` names a Claude id the extension has no price for.
// Two answered turns, then Compact Now summarises the first with that model. The budget panel's
// compaction row says its cost is unknown (—), and the request history's total reads — with
// "— of it by compaction summaries": never the $0 it used to count. The session file's
// compaction entry carries `costUnknown`. The chat (side bar at its default, narrow width) and
// the budget panel are shot in the dark and the light theme: `unpriced-summary-{chat,budget,compactions}-{dark,light}.png`.
//   CP_SKIP_PACKAGE=1 node --import tsx --test test/vscode/unpricedSummariser.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { budgetFrame, scrollToCard } from './budgetFrame.mjs';
import { chooseLightTheme, nextFrames } from './gestures.mjs';
import { REPO_ROOT } from './setup.mjs';
import { eventually, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';
/** @typedef {import('./agentHarness.mjs').AgentWorld} AgentWorld */

/** A Claude id the fake server answers as, and the extension has no price for. */
const UNPRICED = 'claude-haiku-9-9';
const SHOTS = join(REPO_ROOT, 'test-results', 'screenshots');
/** @param {number} n */
const DETAIL = (n) =>
  Array.from({ length: 80 }, (_, i) => `Detail ${n}.${i + 1}: src/parse.ts calls JSON.parse on the whole file.`).join(
    ' ',
  );

describe('a summariser without a known price — in a real VS Code', { timeout: suiteTimeout(300_000) }, () => {
  /** @type {AgentWorld} */
  let w;

  before(async () => {
    w = await startAgentWorld({
      settings: {
        'workbench.colorTheme': 'Default Dark Modern',
        'contextPipeline.keepRecentTurns': 1,
        'contextPipeline.keepRecentTokens': 0,
        'contextPipeline.summarizer': 'small',
        'contextPipeline.summarizerModel': UNPRICED,
      },
    });
  });

  /**
   * The chat in the side bar at its default (narrow) width, then the budget panel: the
   * compaction row's cost and the session total read —. Screenshots `unpriced-summary-chat-<theme>.png`,
   * `unpriced-summary-budget-<theme>.png` (the request history) and `unpriced-summary-compactions-<theme>.png`.
   * @param {string} theme
   */
  async function lookAtIt(theme) {
    mkdirSync(SHOTS, { recursive: true });
    await w.page.mouse.move(1, 899);
    await nextFrames(w.page);
    await w.frame
      .locator('#app')
      .screenshot({ path: join(SHOTS, `unpriced-summary-chat-${theme}.png`), animations: 'disabled' });
    await w.command('Context Pipeline: Show Context Budget');
    const frame = await budgetFrame(w.page);
    const row = frame.locator('[data-testid="budget-compactions"] table.compactions tbody tr').first();
    await row.waitFor({ timeout: UI_TIMEOUT });
    // When, Trigger, Layer, Tokens, Cost: the cost is unknown.
    assert.equal((await row.locator('td').nth(4).innerText()).trim(), '—');
    const total = frame.locator('[data-testid="budget-history"] p.muted').last();
    await total.waitFor({ timeout: UI_TIMEOUT });
    assert.match(await total.innerText(), /^\d+ requests?, — in this session \(— of it by compaction summaries\)/);
    await scrollToCard(frame, 'budget-history');
    await nextFrames(w.page);
    await w.page
      .locator('.editor-instance')
      .first()
      .screenshot({ path: join(SHOTS, `unpriced-summary-budget-${theme}.png`), animations: 'disabled' });
    await scrollToCard(frame, 'budget-compactions');
    await frame
      .locator('[data-testid="budget-compactions"]')
      .screenshot({ path: join(SHOTS, `unpriced-summary-compactions-${theme}.png`), animations: 'disabled' });
    await w.command('View: Close Editor');
  }

  after(async () => {
    if (!w) return;
    const invalid = w.fake.invalidRequests.map((r) => r.error);
    await w.close();
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });

  test('Compact Now with it: the compaction and the session total read unknown, not $0', async () => {
    w.fake.script({ text: `First answer: the parser uses JSON.parse. ${DETAIL(1)}` });
    await w.send('How does the parser work?');
    await w.waitForAnswer('First answer');
    await w.waitIdle();
    w.fake.script({ text: `Second answer: json5 is already a dependency. ${DETAIL(2)}` });
    await w.send('Which library should we use?');
    await w.waitForAnswer('Second answer');
    await w.waitIdle();

    w.fake.script({ match: { model: UNPRICED }, text: 'The user asked how the parser works: JSON.parse.' });
    await w.command('Context Pipeline: Compact Now');
    const widget = w.page.locator('.quick-input-widget');
    await widget.locator('.quick-input-message', { hasText: 'Would compact' }).waitFor({ timeout: UI_TIMEOUT });
    await widget.locator('input').press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    await w.frame.locator('.item.notice', { hasText: /^Compacted .*\(summary\)\.$/ }).waitFor({ timeout: UI_TIMEOUT });
    assert.ok(
      w.fake.requests.some((r) => /** @type {{ model?: string }} */ (r.body).model === UNPRICED),
      'the summary was written by the unpriced model',
    );

    await lookAtIt('dark');

    // The session file says so too, so a reopened session reads the same.
    await eventually('the compaction entry saved with costUnknown', () => {
      const entry = w.sessionEntries()[0]?.entries.find((e) => e.type === 'compaction');
      assert.ok(entry, 'a compaction entry');
      assert.equal(/** @type {{ costUnknown?: boolean }} */ (entry).costUnknown, true);
      return true;
    });
  });

  test('the same in the light theme', async () => {
    await chooseLightTheme(w.page);
    await lookAtIt('light');
  });
});
