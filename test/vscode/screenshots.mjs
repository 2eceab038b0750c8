// Screenshots of the chat for looking at the layout (not a test): a short conversation against
// the fake Anthropic server, one Compact Now, then three PNGs in <outDir>:
//   chat-header.png            the side bar's title, the Chat view's title bar with its actions
//                              (hovered, so they show) and the webview's own header (model,
//                              session, cost, context meter), cropped to that region
//   chat-full.png              the whole window: the chat with the conversation (Compactions collapsed)
//   chat-with-compactions.png  the whole window with the Compactions view expanded (one row),
//                              showing how much height the transcript keeps
//   chat-with-compactions-600.png  the same in a window 600 px high (the header folds into one row)
// It prints the transcript's height with the Compactions view collapsed and expanded.
// Needs the packaged extension (CP_VSIX overrides which):
//   npm run package && node --import tsx test/vscode/screenshots.mjs /tmp/shots
// Cleans up code-server, the fake server and the browser, also on failure or Ctrl+C.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startAgentWorld } from './agentHarness.mjs';
import { COMPACTION_WORLD, SUMMARISER } from './compactionScenario.mjs';
import { eventually, UI_TIMEOUT } from './timeouts.mjs';

// Answers long enough (a few hundred tokens) that summarising the older turns saves tokens.
/** @type {(n: number) => string} */
const DETAIL = (n) =>
  Array.from(
    { length: 6 },
    (_, i) =>
      `Detail ${n}.${i + 1}: validateToken() in src/auth.ts compares the expiry against Date.now() without the clock-skew allowance, so a token that expires within the skew window is still accepted.`,
  ).join(' ');
const TURNS = [
  { q: 'What does src/auth.ts do at line 42?', head: 'Line 42 of src/auth.ts rejects expired tokens.' },
  { q: 'Where is the session middleware?', head: 'The middleware lives in src/session.ts.' },
  { q: 'How would you test the fix?', head: 'Add a unit test with a fake clock.' },
];
const SUMMARY =
  'The user asked about `src/auth.ts` line 42 and the session middleware; the assistant found the missing clock-skew allowance.';

const outArg = process.argv[2];
if (!outArg) {
  process.stderr.write('usage: node --import tsx test/vscode/screenshots.mjs <outDir>\n');
  process.exit(2);
}
const OUT = resolve(outArg);
mkdirSync(OUT, { recursive: true });

/** @type {Promise<import('./agentHarness.mjs').AgentWorld> | undefined} */
let starting;
/** @type {import('./agentHarness.mjs').AgentWorld | undefined} */
let world;
/** @type {Promise<void> | undefined} */
let closing;
/**
 * Closes everything the world started, once. While the world is still starting it waits for
 * that first (startAgentWorld stops what it started when it fails), then closes it.
 */
function closeWorld() {
  closing ??= (starting ?? Promise.resolve()).then(
    (started) => (started ?? world)?.close(),
    () => undefined,
  );
  return closing;
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    process.stderr.write(`[screenshots] ${signal}: cleaning up\n`);
    closeWorld().finally(() => process.exit(130));
  });
}

/**
 * Moves the pointer off the side bar (no hover effects) and lets the page paint.
 * @param {import('playwright-core').Page} page
 */
async function pointerAway(page) {
  const { nextFrames } = await import('./gestures.mjs');
  await page.mouse.move(700, (page.viewportSize()?.height ?? 900) - 1);
  await nextFrames(page);
}

/**
 * The chat transcript's visible height in CSS pixels (the scrolling area of the webview).
 * @param {import('playwright-core').Frame} frame the chat webview's frame
 * @returns {Promise<number>}
 */
function transcriptHeight(frame) {
  return frame.locator('.scroll').evaluate((el) => el.clientHeight);
}

async function main() {
  starting = startAgentWorld(COMPACTION_WORLD);
  world = await starting;
  if (closing) throw new Error('interrupted');
  const w = world;
  const { page } = w;
  const { viewHeader } = await import('./workbench.mjs');
  const { transcriptSettled, nextFrames } = await import('./gestures.mjs');

  // A conversation of three turns.
  for (const [i, t] of TURNS.entries()) {
    w.fake.script({ text: `${t.head} ${DETAIL(i + 1)}` });
    await w.send(t.q);
    await w.waitForAnswer(t.head);
    await w.waitIdle();
  }

  // Compact Now from the command palette: accept the preview, wait for the summary card.
  w.fake.script({ match: { model: SUMMARISER }, text: SUMMARY });
  await w.command('Context Pipeline: Compact Now');
  const widget = page.locator('.quick-input-widget');
  await widget
    .locator('.quick-input-message', { hasText: 'Would compact' })
    .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  await widget.locator('input').press('Enter');
  await widget.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
  await w.frame.locator('.summary-card').first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  await w.frame
    .locator('.item.notice', { hasText: 'were compacted into a summary' })
    .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  if (w.fake.pendingSteps > 0) throw new Error(`${w.fake.pendingSteps} scripted step(s) were never used`);
  // No toast over the screenshots.
  await w.command('Notifications: Clear All Notifications');
  await page
    .locator('.notifications-toasts .notification-toast')
    .first()
    .waitFor({ state: 'detached', timeout: UI_TIMEOUT });
  await widget.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });

  // 1. The whole window, Compactions collapsed (its default).
  const compactionsHeader = viewHeader(page, 'Compactions');
  await compactionsHeader.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  if ((await compactionsHeader.getAttribute('aria-expanded')) === 'true') await compactionsHeader.click();
  await eventually(
    'the Compactions view to be collapsed',
    async () => (await compactionsHeader.getAttribute('aria-expanded')) === 'false',
  );
  await transcriptSettled(w.frame);
  await pointerAway(page);
  const collapsedHeight = await transcriptHeight(w.frame);
  const saved = [];
  const full = join(OUT, 'chat-full.png');
  await page.screenshot({ path: full, animations: 'disabled' });
  saved.push(full);

  // 2. The header region: side bar title, the Chat view's title bar (hovered: its actions show)
  //    and the webview's header.
  const chatHeader = viewHeader(page, 'Chat');
  await chatHeader.hover();
  await chatHeader.locator('.actions .action-item').first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  await nextFrames(page);
  const sidebar = await page.locator('.part.sidebar').boundingBox();
  const title = await page.locator('.part.sidebar .composite.title').boundingBox();
  const webviewHeader = await w.frame.locator('header.header').boundingBox();
  if (!sidebar || !title || !webviewHeader) throw new Error('the side bar, its title or the chat header has no box');
  const top = Math.floor(title.y);
  const header = join(OUT, 'chat-header.png');
  await page.screenshot({
    path: header,
    animations: 'disabled',
    clip: {
      x: sidebar.x,
      y: top,
      width: sidebar.width,
      height: Math.ceil(webviewHeader.y + webviewHeader.height + 6 - top),
    },
  });
  saved.push(header);
  const actions = await chatHeader
    .locator('.actions .action-item a')
    .evaluateAll((as) => as.map((a) => a.getAttribute('aria-label') ?? /** @type {HTMLElement} */ (a).title));
  const headerButtons = await w.frame
    .locator('header.header button')
    .evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label') ?? b.textContent ?? ''));
  const headerText = (await w.frame.locator('header.header').innerText()).replace(/\s+/g, ' ').trim();

  // 3. The Compactions view expanded (as a person would: a click on its header), its row shown.
  await compactionsHeader.click();
  await eventually(
    'the Compactions view to expand',
    async () => (await compactionsHeader.getAttribute('aria-expanded')) === 'true',
  );
  const pane = page
    .locator('.part.sidebar .pane')
    .filter({ has: page.locator('.pane-header[aria-label="Compactions Section"]') });
  await pane
    .locator('.monaco-list-row', { hasText: 'Manual · ' })
    .first()
    .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  await transcriptSettled(w.frame);
  await pointerAway(page);
  const expandedHeight = await transcriptHeight(w.frame);
  const paneBox = await pane.boundingBox();
  const withCompactions = join(OUT, 'chat-with-compactions.png');
  await page.screenshot({ path: withCompactions, animations: 'disabled' });
  saved.push(withCompactions);

  // 4. The same in a shorter window.
  await page.setViewportSize({ width: 1400, height: 600 });
  await transcriptSettled(w.frame);
  await pointerAway(page);
  const shortHeight = await transcriptHeight(w.frame);
  const short = join(OUT, 'chat-with-compactions-600.png');
  await page.screenshot({ path: short, animations: 'disabled' });
  saved.push(short);

  const invalid = w.fake.invalidRequests.map((r) => r.error);
  if (invalid.length) throw new Error(`the fake server received invalid requests: ${invalid.join('; ')}`);
  process.stdout.write(
    [
      ...saved.map((p) => `saved ${p}`),
      `side bar: ${Math.round(sidebar.width)}×${Math.round(sidebar.height)} px, window 1400×900`,
      `Chat view title actions: ${actions.join(', ')}`,
      `webview header: ${headerText}`,
      `webview header buttons: ${headerButtons.join(', ') || 'none'}`,
      `transcript height: ${collapsedHeight} px with Compactions collapsed, ${expandedHeight} px expanded (Compactions pane ${Math.round(paneBox?.height ?? 0)} px); ${shortHeight} px expanded in a window 600 px high`,
      '',
    ].join('\n'),
  );
}

try {
  await main();
} catch (err) {
  process.exitCode = 1;
  process.stderr.write(`[screenshots] failed: ${err?.stack ?? err}\n`);
  if (world) await world.page.screenshot({ path: join(OUT, 'failure.png') }).catch(() => undefined);
} finally {
  await closeWorld().catch((err) => {
    process.exitCode = 1;
    process.stderr.write(`[screenshots] ${err.message}\n`);
  });
}
