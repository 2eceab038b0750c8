// The Compactions tree in the side bar, as the e2e tests drive it: the pane expanded (and made
// taller for screenshots), a row by its text, a row expanded.
import assert from 'node:assert/strict';
import { eventually as poll, UI_TIMEOUT } from './timeouts.mjs';

/**
 * @typedef {import('./agentHarness.mjs').AgentWorld} AgentWorld
 * @typedef {import('playwright-core').Locator} Locator
 * @typedef {{ x: number, y: number, width: number, height: number }} Box a bounding box (one that exists)
 */

/**
 * Polls `check` until it returns a truthy value (or throws its last failure after the UI timeout).
 * @template T
 * @param {() => T | undefined | null | false | Promise<T | undefined | null | false>} check
 * @param {{ what?: string }} [options]
 * @returns {Promise<T>}
 */
const eventually = (check, { what = 'condition' } = {}) => poll(what, check);

/**
 * The Compactions pane (expanded) of the side bar.
 * @param {AgentWorld} w
 * @param {typeof import('./workbench.mjs')} workbench
 */
export async function compactionsPane(w, workbench) {
  const header = workbench.viewHeader(w.page, 'Compactions');
  await header.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  await eventually(async () => (await header.getAttribute('aria-expanded')) === 'true', {
    what: 'the Compactions view to expand',
  });
  // `has` is matched inside each pane, so it takes a selector relative to the pane.
  return w.page
    .locator('.part.sidebar .pane')
    .filter({ has: w.page.locator('.pane-header[aria-label="Compactions Section"]') });
}

/**
 * Drags the sash above the Compactions pane up so the expanded tree has room (for the screenshots).
 * @param {AgentWorld} w
 * @param {typeof import('./workbench.mjs')} workbench
 */
export async function enlargeCompactions(w, workbench) {
  const header = workbench.viewHeader(w.page, 'Compactions');
  const top = /** @type {Box} */ (await header.boundingBox()).y;
  const sashes = await w.page.locator('.part.sidebar .monaco-sash.horizontal').all();
  let best;
  for (const s of sashes) {
    const b = await s.boundingBox();
    if (b && b.width > 0 && (!best || Math.abs(b.y - top) < Math.abs(best.y - top))) best = b;
  }
  assert.ok(best && Math.abs(best.y - top) < 10, 'the sash above the Compactions view was found');
  const x = best.x + best.width / 2;
  const y = best.y + best.height / 2;
  await w.page.mouse.move(x, y);
  await w.page.mouse.down();
  await w.page.mouse.move(x, y - 150, { steps: 5 });
  await w.page.mouse.move(x, y - 300, { steps: 5 });
  await w.page.mouse.up();
  await eventually(async () => /** @type {Box} */ (await header.boundingBox()).y < top - 200, {
    what: 'the Compactions view to grow',
  });
}

/**
 * A row of the Compactions tree whose text matches.
 * @param {Locator} pane
 * @param {string} text
 */
export function row(pane, text) {
  return pane.locator('.monaco-list-row', { hasText: text }).first();
}

/**
 * Expands a collapsed tree row (a click toggles it) and waits until it is expanded.
 * @param {Locator} r
 */
export async function expand(r) {
  await r.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  if ((await r.getAttribute('aria-expanded')) !== 'true') await r.click();
  await eventually(async () => (await r.getAttribute('aria-expanded')) === 'true', {
    what: 'a tree row to expand',
  });
}
