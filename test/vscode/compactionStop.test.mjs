// Compact Now stopped while its summary streams, in a real VS Code against the fake Anthropic
// server: from the progress notification's Cancel, then from the composer's Stop (which shows
// while the summary is written). Nothing is compacted, every answer stays, the chat says so
// once (no warning toast repeats it), and what the summary cost is billed with the summaries.
// Every request the fake server received must be valid.
//   node --import tsx --test test/vscode/compactionStop.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { budgetFrame, scrollToCard } from './budgetFrame.mjs';
import { COMPACTION_WORLD, SUMMARISER, SUMMARY, threeTurns } from './compactionScenario.mjs';
import { eventually as poll, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';
/** @typedef {import('./agentHarness.mjs').AgentWorld} AgentWorld */

describe('Compact Now stopped while its summary streams, in a real VS Code', { timeout: suiteTimeout(400_000) }, () => {
  /** @type {AgentWorld} Set in before(); the hooks and tests run after it. */
  let w;
  /** @type {typeof import('./workbench.mjs')} */
  let workbench;
  /** @type {string[]} */
  const screenshots = [];

  before(async () => {
    workbench = await import('./workbench.mjs');
    w = await startAgentWorld(COMPACTION_WORLD);
  });

  after(async () => {
    if (!w) return;
    process.stderr.write(
      `[compaction-stop] the fake server received ${w.fake.requests.length} requests, ${w.fake.invalidRequests.length} invalid; screenshots: ${screenshots.join(', ')}\n`,
    );
    const invalid = w.fake.invalidRequests.map((r) => r.error);
    await w.close();
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });

  /**
   * Compact Now from the command palette, its preview accepted; resolves once the summariser's
   * stream is held after its answer has begun (message_start, then deltas), with the hold.
   */
  async function summaryStreaming() {
    const hold = w.streamHold.holdAfter(6);
    w.fake.script({ match: { model: SUMMARISER }, text: `${SUMMARY} `.repeat(20), chunkChars: 8, deltaDelayMs: 1 });
    await w.command('Context Pipeline: Compact Now');
    const widget = w.page.locator('.quick-input-widget');
    await widget.locator('.quick-input-message', { hasText: 'Would compact' }).waitFor({ timeout: UI_TIMEOUT });
    await widget.locator('input').press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    await hold.reached;
    return hold;
  }

  test('three turns build a history', async () => {
    await threeTurns(w);
  });

  test('Compact Now cancelled while its summary streams: nothing is compacted, and what the summary cost is billed', async () => {
    const hold = await summaryStreaming();
    // The progress notification's Cancel stops the compaction that runs.
    const progress = w.page.locator('.notifications-toasts .notification-toast', { hasText: 'compacting' });
    await progress.getByRole('button', { name: 'Cancel' }).click();
    await w.frame
      .locator('.item.notice', { hasText: 'The compaction was stopped before its summary was made' })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    hold.release();
    await progress.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    assert.equal(await w.frame.locator('.summary-card').count(), 0, 'nothing was compacted');
    assert.equal(await w.frame.locator('.item.assistant .text').count(), 3, 'every answer is still there');
    // The budget panel's total counts the summary's request with the summaries.
    await w.command('Context Pipeline: Show Context Budget');
    const budget = await budgetFrame(w.page);
    const total = budget.locator('[data-testid="budget-history"] > p.muted').last();
    await poll('the stopped summary in the session total', async () =>
      /\$0\.\d*[1-9]\d* of it by compaction summaries/.test(await total.innerText()),
    );
    assert.equal(w.fake.pendingSteps, 0, 'the scripted summary was asked for');
    await scrollToCard(budget, 'budget-history');
    screenshots.push(await workbench.screenshot(w.page, 'compaction-cancelled'));
    await w.command('View: Close All Editors');
  });

  test('Compact Now stopped from the composer: Stop shows while the summary streams, and stops it like Cancel', async () => {
    const hold = await summaryStreaming();
    const stop = w.frame.locator('.composer button.stop');
    await stop.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(await stop.innerText(), 'Stop');
    screenshots.push(await workbench.screenshot(w.page, 'compaction-stop'));
    await stop.click();
    const notices = w.frame.locator('.item.notice', {
      hasText: 'The compaction was stopped before its summary was made',
    });
    await notices.nth(1).waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    hold.release();
    const progress = w.page.locator('.notifications-toasts .notification-toast', { hasText: 'compacting' });
    await progress.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    await w.waitIdle();
    assert.equal(await w.frame.locator('.summary-card').count(), 0, 'nothing was compacted');
    assert.equal(await w.frame.locator('.item.assistant .text').count(), 3, 'every answer is still there');
    // The chat said it; no warning toast repeats it.
    assert.equal(
      await w.page.locator('.notifications-toasts .notification-toast', { hasText: 'Nothing was compacted' }).count(),
      0,
    );
    assert.equal(w.fake.pendingSteps, 0, 'the scripted summary was asked for');
  });
});
