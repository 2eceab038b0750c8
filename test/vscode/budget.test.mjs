// The Context Budget panel in a real VS Code against the fake Anthropic server: two chat turns
// (the second with a tool call, so three requests), then "Context Pipeline: Show Context
// Budget"; the panel must show the window bar and legend, a legend that adds up to the
// next-request estimate it shows (and close to what the server reported), the last request's
// ledger, and a history of three requests.
//   node --import tsx --test test/vscode/budget.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';

const UI_TIMEOUT = 30_000;

async function budgetFrame(page, timeout = UI_TIMEOUT) {
  const deadline = Date.now() + timeout;
  for (;;) {
    for (const frame of page.frames()) {
      if (frame === page.mainFrame() || frame.isDetached()) continue;
      try {
        if ((await frame.locator('[data-testid="budget-root"]').count()) > 0) return frame;
      } catch (err) {
        if (!/detached|navigat|Execution context was destroyed/i.test(err.message)) throw err;
      }
    }
    if (Date.now() > deadline) throw new Error('no frame with [data-testid="budget-root"]');
    await page.waitForTimeout(250);
  }
}

const num = (s) => Number(String(s).replace(/[^\d.]/g, ''));

describe('Context Budget panel in a real VS Code, against the fake Anthropic API', { timeout: 300_000 }, () => {
  let w;
  let workbench;

  before(async () => {
    workbench = await import('./workbench.mjs');
    w = await startAgentWorld({ settings: { 'workbench.colorTheme': 'Default Dark Modern' }, workspaceFiles: { 'src/greet.js': 'export function greet(name) {\n  return `Hello, ${name}!`;\n}\n' } });
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
    w.fake.script({ text: 'Let me read it.', toolUses: [{ name: 'read_file', input: { path: 'src/greet.js' } }] }, { text: 'It returns a template string with the name.' });
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
    assert.equal(await frame.locator('[data-testid="budget-chart"] [data-testid="chart-point"]').count(), 3);

    const segments = await frame.locator('[data-testid="bar-segment"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-category')));
    for (const c of ['system', 'tools', 'user', 'assistant', 'toolResults', 'free', 'reserve']) assert.ok(segments.includes(c), `bar has ${c} (${segments.join(', ')})`);
    assert.equal(await frame.locator('[data-testid="threshold-soft"]').count(), 1);
    assert.equal(await frame.locator('[data-testid="threshold-hard"]').count(), 1);

    const legend = await frame.locator('[data-testid="budget-legend"] tbody tr').evaluateAll((rows) => rows.map((r) => ({ category: r.getAttribute('data-category'), tokens: r.children[2]?.textContent ?? '' })));
    const used = legend.filter((r) => r.category !== 'free' && r.category !== 'reserve').reduce((a, r) => a + num(r.tokens), 0);
    const shown = num(await frame.locator('[data-testid="next-estimate"]').getAttribute('data-tokens'));
    assert.ok(Math.abs(used - shown) <= legend.length, `legend adds up to the next-request total shown (${used} vs ${shown})`);
    // The bar is the NEXT request: the last request's prompt plus the final answer.
    const u = w.fake.requests.at(-1).usage;
    const reported = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    const expected = reported + u.output_tokens;
    process.stderr.write(`[budget] legend ${used}, last request reported ${reported} + ${u.output_tokens} output = ${expected}\n`);
    assert.ok(Math.abs(used - expected) / expected < 0.05, `legend ${used} within 5 % of reported ${reported} + answer ${u.output_tokens}`);

    const ledgerRows = await frame.locator('[data-testid="ledger-table"] tbody tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent ?? '')));
    assert.ok(ledgerRows.length >= 5, `ledger lists the blocks (${ledgerRows.length})`);
    assert.ok(ledgerRows.some((r) => r[1] === 'user · tool_result'), 'the tool result is in the last request');
    assert.ok(ledgerRows.every((r) => num(r[3]) > 0), 'every block has tokens');
    assert.ok(ledgerRows.some((r) => r[4] === '◆'), 'a cache breakpoint is marked');
    assert.equal(await frame.locator('[data-testid="ledger-diff"]').count(), 1);

    const path = await workbench.screenshot(w.page, 'budget-panel');
    await frame.locator('[data-testid="budget-ledger"]').scrollIntoViewIfNeeded();
    const ledgerShot = await workbench.screenshot(w.page, 'budget-panel-ledger');
    process.stderr.write(`[budget] screenshots ${path}, ${ledgerShot}\n`);
  });
});
