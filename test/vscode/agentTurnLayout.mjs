// The agent suite's turn layout: a long run of calls under the turn's one Claude header folds
// behind "N more reads…", expands by keyboard, shows a tool-only round's Pin on its first call,
// and folds again. Registered inside agent.test.mjs's suite, on its world.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UI_TIMEOUT } from './timeouts.mjs';
import { screenshot } from './workbench.mjs';

/**
 * Registers the turn layout tests in the current suite.
 * @param {() => import('./agentHarness.mjs').AgentWorld} world the suite's world, started in its before hook
 */
export function turnLayoutTests(world) {
  test('a long run of calls folds behind "N more reads…", expanded by keyboard, one header for the turn', async () => {
    const w = world();
    await w.newSession();
    const read = { name: 'read_file', input: { path: 'src/greet.js' } };
    w.fake.script(
      { toolUses: [read, read, read, read] },
      { toolUses: [read, read, read] },
      { text: 'Read it seven times.' },
    );
    await w.send('Read greet.js a lot');
    await w.waitForAnswer('Read it seven times.');
    assert.equal(await w.frame.locator('.item.assistant .who:not(.bare)').count(), 1, 'one header per turn');
    assert.equal(await w.frame.locator('.item.tool.done').count(), 3, 'the first few calls');
    const more = w.frame.getByTestId('tool-run-more');
    assert.equal(await more.innerText(), '4 more reads…');
    await screenshot(w.page, 'agent-run-folded');
    await more.focus();
    await w.page.keyboard.press('Enter');
    await w.frame.locator('.item.tool.done').nth(6).waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(await w.frame.getByTestId('tool-run-more').count(), 0);
    // The second round's tool-only answer shows no header: its Pin is on its first call's row.
    assert.equal(await w.frame.locator('[data-testid="round-actions"] .pin').count(), 1);
    await w.frame.getByRole('button', { name: 'Show fewer' }).click();
    await more.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(await w.frame.locator('.item.tool.done').count(), 3);
  });
}
