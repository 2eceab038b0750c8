// Gestures on the workbench that a busy machine can swallow, done the way a person would:
// look for the result, and if it did not come, do the gesture again. The command palette is
// opened again when F1 showed nothing and the command typed again when its row is missing
// (right after a reload the contributed commands may not be registered yet). Also: waiting
// for a webview's layout to settle and recording a state that shows only briefly, so no
// test waits for a fixed time.
import { eventually, GESTURE_TRY, UI_TIMEOUT } from './timeouts.mjs';

/**
 * Whether `locator` becomes visible within `ms`.
 * @param {import('playwright-core').Locator} locator
 * @param {number} ms
 */
export function shows(locator, ms) {
  return locator.waitFor({ state: 'visible', timeout: Math.max(1, ms) }).then(
    () => true,
    () => false,
  );
}

/**
 * Does `gesture` until `target` is visible: once, then again after each try of GESTURE_TRY
 * while it is not, until `timeout`. Never repeats a gesture whose result already shows.
 * @param {import('playwright-core').Locator} target
 * @param {() => Promise<unknown>} gesture
 * @param {{ what?: string, timeout?: number }} [options]
 */
export async function retryUntilVisible(
  target,
  gesture,
  { what = 'the result of a gesture', timeout = UI_TIMEOUT } = {},
) {
  const deadline = Date.now() + timeout;
  for (let tries = 1; ; tries++) {
    if (await target.isVisible()) return;
    await gesture();
    if (await shows(target, Math.min(GESTURE_TRY, deadline - Date.now()))) return;
    if (Date.now() >= deadline) throw new Error(`${what} did not show within ${timeout / 1000} s (${tries} tries)`);
  }
}

/**
 * Runs `label` from the context menu of `target` (a tree row): right-clicks until the menu
 * shows the item, then clicks the item until the menu closes — a click that lands while the
 * menu is still settling is ignored by the workbench, and a busy machine makes that likely.
 * @param {import('playwright-core').Page} page
 * @param {import('playwright-core').Locator} target
 * @param {string} label
 */
export async function chooseFromContextMenu(page, target, label) {
  const menu = page.locator('.context-view .monaco-menu');
  const item = menu.locator('.action-item', { hasText: new RegExp(`^${label}$`) });
  await retryUntilVisible(item, () => target.click({ button: 'right' }), { what: `the context menu item ${label}` });
  await eventually(`the ${label} menu item to be taken`, async () => {
    if (await menu.isVisible()) await item.click({ timeout: GESTURE_TRY }).catch(() => undefined);
    return !(await menu.isVisible());
  });
}

/**
 * Clicks the status bar's edge so the workbench (not a webview) has the keyboard focus.
 * @param {import('playwright-core').Page} page
 */
async function focusWorkbench(page) {
  await page.locator('.part.statusbar').click({ position: { x: 5, y: 5 } });
}

/**
 * Opens a quick input with `key` (when it is not open), types `text` and accepts the row that
 * contains `rowText`. Retries: the key again while the input does not show, the text again
 * while the row does not show, and every other miss closes the quick input so the next try
 * gets a freshly computed list.
 * @param {import('playwright-core').Page} page
 * @param {{ key: string, text: string, rowText: string, timeout?: number }} what
 */
async function pickInQuickInput(page, { key, text, rowText, timeout = UI_TIMEOUT * 2 }) {
  const deadline = Date.now() + timeout;
  const box = page.locator('.quick-input-widget input');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: rowText }).first();
  const focused = page.locator('.quick-input-list .monaco-list-row.focused', { hasText: rowText }).first();
  let missing = 'the quick input';
  // A quick input still open (or closing) from the previous gesture is not ours: let it close,
  // or close it, so the key below opens a fresh one.
  if (await box.isVisible()) {
    const closed = await box.waitFor({ state: 'hidden', timeout: GESTURE_TRY }).then(
      () => true,
      () => false,
    );
    if (!closed) await page.keyboard.press('Escape');
  }
  for (let tries = 1; Date.now() < deadline; tries++) {
    const left = () => Math.max(1, Math.min(GESTURE_TRY, deadline - Date.now()));
    if (!(await box.isVisible())) {
      // Pressed only while the input is closed: pressed again on an open quick input, Ctrl+P
      // would move the selection instead.
      await focusWorkbench(page);
      await page.keyboard.press(key);
      if (!(await shows(box, left()))) {
        missing = 'the quick input';
        continue;
      }
    }
    // The input may close under us (a late Escape, focus lost): then this try is a miss.
    if (
      !(await box.fill(text, { timeout: left() }).then(
        () => true,
        () => false,
      ))
    ) {
      missing = 'an open quick input to type into';
      continue;
    }
    if (await shows(row, left())) {
      if (await focused.isVisible()) await page.keyboard.press('Enter');
      else await row.click();
      return;
    }
    missing = `a row "${rowText}"`;
    if (tries % 2 === 0) await page.keyboard.press('Escape');
  }
  throw new Error(`${missing} did not show within ${timeout / 1000} s (${key}, "${text}")`);
}

/**
 * Runs a command from the command palette (F1) by its title, retrying the palette and the
 * typing until the command's row shows.
 * @param {import('playwright-core').Page} page
 * @param {string} title
 * @param {{ timeout?: number }} [options]
 */
export function runCommand(page, title, options = {}) {
  return pickInQuickInput(page, { key: 'F1', text: `>${title}`, rowText: title, ...options });
}

/**
 * Switches VS Code to the Light Modern color theme as a person does (Preferences: Color
 * Theme, then the theme's row) and waits until the workbench is light.
 * @param {import('playwright-core').Page} page
 */
export async function chooseLightTheme(page) {
  await runCommand(page, 'Preferences: Color Theme');
  const input = page.locator('.quick-input-widget input');
  await input.fill('Light Modern');
  await page
    .locator('.quick-input-widget .monaco-list-row', { hasText: 'Light Modern' })
    .first()
    .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  await input.press('Enter');
  await page.locator('.monaco-workbench.vs').waitFor({ state: 'attached', timeout: UI_TIMEOUT });
}

/**
 * Opens a workspace file with Quick Open (Ctrl+P), retrying until its row shows.
 * @param {import('playwright-core').Page} page
 * @param {string} name e.g. `greet.js`
 * @param {{ timeout?: number }} [options]
 */
export function quickOpen(page, name, options = {}) {
  return pickInQuickInput(page, { key: 'Control+P', text: name, rowText: name, ...options });
}

/**
 * Waits until the transcript of the chat webview in `frame` has kept the same geometry
 * (scroll position and height, which items are rendered and where) for `frames` animation
 * frames in a row: rendered, measured, anchored. Paced by the page's frames, not a clock.
 * @param {import('playwright-core').Frame} frame
 * @param {{ frames?: number, timeout?: number }} [options]
 */
export async function transcriptSettled(frame, { frames = 5, timeout = UI_TIMEOUT } = {}) {
  await frame.evaluate(() => delete window.__cpSettle);
  await frame.waitForFunction(
    (n) => {
      const s = document.querySelector('.scroll');
      const items = [...document.querySelectorAll('[data-testid="transcript"] [data-id]')];
      const key = JSON.stringify([
        s?.scrollTop,
        s?.scrollHeight,
        items.length,
        items[0]?.getAttribute('data-id'),
        items.at(-1)?.getAttribute('data-id'),
        ...items.map((e) => Math.round(e.getBoundingClientRect().top)),
      ]);
      const st = window.__cpSettle;
      if (st?.key === key) st.same++;
      else window.__cpSettle = { key, same: 0 };
      return (window.__cpSettle?.same ?? 0) >= n;
    },
    frames,
    { polling: 'raf', timeout },
  );
}

/**
 * Resolves after `n` animation frames of `target` (a page or a frame): what was changed
 * before is laid out and painted (e.g. hover styles, a chart redrawn on the next frame).
 * @param {import('playwright-core').Page | import('playwright-core').Frame} target
 * @param {number} [n]
 */
export function nextFrames(target, n = 3) {
  return target.evaluate(
    (count) =>
      new Promise((resolve) => {
        let k = 0;
        const tick = () => (++k >= count ? resolve(undefined) : requestAnimationFrame(tick));
        requestAnimationFrame(tick);
      }),
    n,
  );
}

/**
 * Starts recording, inside `frame`, whether `selector` ever shows text matching `pattern`
 * (checked on every DOM change), so a state that lasts only a moment (a "Copied" label, a
 * retry countdown) cannot be missed by a slow test. `seen()` waits until it was.
 * @param {import('playwright-core').Frame} frame
 * @param {string} key a name for this recording
 * @param {string} selector
 * @param {string} pattern a RegExp source
 * @returns {Promise<{ seen(timeout?: number): Promise<void> }>}
 */
export async function recordWhenShown(frame, key, selector, pattern) {
  await frame.evaluate(
    ([k, sel, src]) => {
      const seen = (window.__cpSeen ??= {});
      seen[k] = false;
      const re = new RegExp(src);
      const check = () => {
        const el = /** @type {HTMLElement | null} */ (document.querySelector(sel));
        if (el && !el.hidden && re.test(el.textContent ?? '')) {
          seen[k] = true;
          observer.disconnect();
        }
      };
      const observer = new MutationObserver(check);
      observer.observe(document.documentElement, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
      check();
    },
    [key, selector, pattern],
  );
  return {
    seen: (timeout = UI_TIMEOUT) =>
      frame.waitForFunction((k) => window.__cpSeen?.[k] === true, key, { timeout }).then(() => undefined),
  };
}
