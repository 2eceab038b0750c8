// Playwright helpers that drive the VS Code workbench (served by code-server) in headless
// Debian chromium the way a person would: activity bar, view headers, webviews.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { harnessPaths, REPO_ROOT } from './setup.mjs';
import { eventually, GESTURE_TRY, UI_TIMEOUT, WORKBENCH_TIMEOUT } from './timeouts.mjs';

/** Where screenshot() saves (git-ignored). */
export const SCREENSHOT_DIR = join(REPO_ROOT, 'test-results', 'screenshots');

/** Flags Debian chromium needs here (root, no GPU, no network besides the workbench). */
export const CHROMIUM_ARGS = Object.freeze([
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
]);

const WORKBENCH_TIMEOUT_MS = WORKBENCH_TIMEOUT;
const VIEW_TIMEOUT_MS = UI_TIMEOUT;

/**
 * Launches chromium (headless unless `headless: false`).
 * @param {{ headless?: boolean }} [options]
 * @returns {Promise<import('playwright-core').Browser>}
 */
export function launchBrowser({ headless = true } = {}) {
  return chromium.launch({ executablePath: harnessPaths().chromium, headless, args: [...CHROMIUM_ARGS] });
}

/**
 * Navigates to a code-server URL and waits until the workbench and its activity bar are shown.
 * @param {import('playwright-core').Page} page
 * @param {string} url
 */
export async function openWorkbench(page, url) {
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: WORKBENCH_TIMEOUT_MS });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: WORKBENCH_TIMEOUT_MS });
  await page.locator('.part.activitybar').waitFor({ state: 'visible', timeout: WORKBENCH_TIMEOUT_MS });
}

/**
 * Shows the Context Pipeline view container in the side bar (clicks its activity-bar item
 * unless it is already the open one) and waits for its title.
 * @param {import('playwright-core').Page} page
 */
export async function openContextPipeline(page) {
  const item = page.locator('.part.activitybar [aria-label^="Context Pipeline"]').first();
  await item.waitFor({ state: 'visible', timeout: VIEW_TIMEOUT_MS });
  const tab = item.locator('xpath=ancestor-or-self::li[1]');
  const sidebarTitle = page.locator('.part.sidebar .composite.title', { hasText: 'Context Pipeline' });
  // Clicking the active container's item would close the side bar, and right after a reload
  // the side bar may still be restoring: look, give a selected item a whole try to show its
  // side bar, and click only when it did not (or the item is not the selected one). Each
  // round waits for the state, never for a fixed time.
  /** @type {(timeout: number) => Promise<boolean>} */
  const visible = (timeout) =>
    sidebarTitle.waitFor({ state: 'visible', timeout }).then(
      () => true,
      () => false,
    );
  const deadline = Date.now() + VIEW_TIMEOUT_MS;
  while (!(await sidebarTitle.isVisible()) && Date.now() < deadline) {
    const selected = (await tab.getAttribute('aria-selected')) === 'true';
    if (selected && (await visible(GESTURE_TRY))) break;
    if (!(await sidebarTitle.isVisible())) await item.click();
    if (await visible(GESTURE_TRY)) break;
  }
  await sidebarTitle.waitFor({ state: 'visible', timeout: Math.max(1, deadline - Date.now()) });
  // Move the pointer off the activity bar so its hover label does not cover the side bar.
  const editor = await page.locator('.part.editor').boundingBox();
  if (editor) await page.mouse.move(editor.x + editor.width / 2, editor.y + editor.height / 2);
}

/**
 * The header of a view in the side bar, by its name ("Chat", "Compactions").
 * @param {import('playwright-core').Page} page
 * @param {string} name
 * @returns {import('playwright-core').Locator}
 */
export function viewHeader(page, name) {
  return page.locator(`.part.sidebar .pane-header[aria-label="${name} Section"]`);
}

/**
 * The live (not detached) frames whose document contains `[data-testid="<testid>"]`, in the
 * page's order (VS Code nests each webview's document in two iframes).
 * @param {import('playwright-core').Page} page
 * @param {string} testid
 * @returns {Promise<import('playwright-core').Frame[]>}
 */
export async function framesWith(page, testid) {
  /** @type {import('playwright-core').Frame[]} */
  const found = [];
  for (const frame of page.frames()) {
    if (frame === page.mainFrame() || frame.isDetached()) continue;
    try {
      if ((await frame.locator(`[data-testid="${testid}"]`).count()) > 0) found.push(frame);
    } catch (err) {
      // A webview frame navigating or detaching between frames() and count() is expected; anything else is not.
      if (!/detached|navigat|Execution context was destroyed/i.test(err.message)) throw err;
    }
  }
  return found;
}

/**
 * The frame of a webview whose document contains `[data-testid="<testid>"]`, waited for until
 * it exists (the first, when there are several).
 * @param {import('playwright-core').Page} page
 * @param {string} testid
 * @param {number} [timeoutMs]
 * @returns {Promise<import('playwright-core').Frame>}
 */
export function webviewFrame(page, testid, timeoutMs = UI_TIMEOUT) {
  const probe = async () => (await framesWith(page, testid))[0];
  const frames = () =>
    page
      .frames()
      .map((f) => `  ${f.url()}`)
      .join('\n');
  return eventually(`a frame with [data-testid="${testid}"]`, probe, { timeout: timeoutMs, interval: 250 }).catch(
    (err) => {
      throw new Error(
        `No frame with [data-testid="${testid}"] within ${timeoutMs / 1000} s (${err.message}). Frames:\n${frames()}`,
      );
    },
  );
}

/**
 * The frame of the chat webview (the one whose document contains `[data-testid="chat-root"]`).
 * @param {import('playwright-core').Page} page
 * @param {{ timeoutMs?: number }} [options]
 * @returns {Promise<import('playwright-core').Frame>}
 */
export function chatFrame(page, { timeoutMs = VIEW_TIMEOUT_MS } = {}) {
  return webviewFrame(page, 'chat-root', timeoutMs);
}

/**
 * Saves a full-window screenshot to test-results/screenshots/<name>.png and returns its path.
 * @param {import('playwright-core').Page} page
 * @param {string} name file name without extension
 * @returns {Promise<string>}
 */
export async function screenshot(page, name) {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  // Transitions finished (a quick pick fading in is shot opaque), so screenshots do not depend on timing.
  await page.screenshot({ path, animations: 'disabled' });
  return path;
}

/**
 * Drags the sash between the side bar and the editor right by `by` pixels (so tree
 * descriptions and the chat are not cut in screenshots) and waits until the side bar grew.
 * @param {import('playwright-core').Page} page
 * @param {number} [by]
 */
export async function widenSidebar(page, by = 240) {
  const sidebar = page.locator('.part.sidebar');
  const start = await sidebar.boundingBox();
  if (!start) throw new Error('the side bar is not shown');
  const right = start.x + start.width;
  let best;
  for (const s of await page.locator('.monaco-sash.vertical').all()) {
    const b = await s.boundingBox();
    if (b && b.height > 200 && (!best || Math.abs(b.x - right) < Math.abs(best.x - right))) best = b;
  }
  if (!best || Math.abs(best.x - right) >= 10) throw new Error('the sash right of the side bar was not found');
  const x = best.x + best.width / 2;
  const y = best.y + best.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + by / 2, y, { steps: 5 });
  await page.mouse.move(x + by, y, { steps: 5 });
  await page.mouse.up();
  await eventually(
    'the side bar to widen',
    async () => ((await sidebar.boundingBox())?.width ?? 0) >= start.width + by - 90,
  );
}
