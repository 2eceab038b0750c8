// The Context Budget panel's webview frame, shared by the tests that open the panel.
import { UI_TIMEOUT } from './timeouts.mjs';

/** The frame of the budget panel's webview (polled while it loads; fails after `timeout`). */
export async function budgetFrame(page, timeout = UI_TIMEOUT) {
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
    await page.waitForTimeout(250); // poll interval while the webview loads
  }
}
