// The Context Budget panel's webview frame, shared by the tests that open the panel.
import { webviewFrame } from './workbench.mjs';
import { UI_TIMEOUT } from './timeouts.mjs';

/**
 * The frame of the budget panel's webview (waited for while it loads; fails after `timeout`).
 * @param {import('playwright-core').Page} page
 * @param {number} [timeout]
 */
export function budgetFrame(page, timeout = UI_TIMEOUT) {
  return webviewFrame(page, 'budget-root', timeout);
}

/**
 * Scrolls the panel to a card in one step inside the page (the panel may re-render between two Playwright steps).
 * @param {import('playwright-core').Frame} frame
 * @param {string} testid
 */
export const scrollToCard = (frame, testid) =>
  frame.evaluate((id) => document.querySelector(`[data-testid="${id}"]`)?.scrollIntoView({ block: 'start' }), testid);
