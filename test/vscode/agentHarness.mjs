// Shared set-up of the agent tests: the packaged extension in a fresh code-server whose
// settings point it at the fake Anthropic server, a headless chromium page on the workbench,
// and small helpers that act through the chat UI the way a person does.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installSession, sessionsDir } from './sessionFiles.mjs';
import { ensureHarness, REPO_ROOT } from './setup.mjs';
import { createStreamHold } from './streamHold.mjs';
import { eventually, UI_TIMEOUT, WORKBENCH_TIMEOUT } from './timeouts.mjs';

/** The packaged extension the tests install (CP_VSIX overrides it, e.g. a copy another build cannot clobber). */
export const VSIX = process.env.CP_VSIX ?? join(REPO_ROOT, 'dist', 'context-pipeline.vsix');

/**
 * Folders of one agent world (all under one temporary root).
 * @typedef {{ workspace: string, extensions: string, userData: string, tmp: string }} AgentDirs
 */

/**
 * What startAgentWorld resolves to: the running world and its gestures.
 * @typedef {Awaited<ReturnType<typeof startAgentWorld>>} AgentWorld
 */

/**
 * One line of a session file the extension wrote.
 * @typedef {import('../../src/core/session/entries.ts').SessionEntry} SessionEntry
 */

/**
 * A `/v1/messages` request the fake server validated and counted, as the tests read it: the
 * record's `body` (`unknown` there, since a body that is not JSON is kept as text) is the
 * validated request, with the `max_tokens` that endpoint requires, and `inputTokens` is set.
 * @typedef {import('../fake-anthropic/request.ts').ApiRequest & { readonly max_tokens: number }} SentBody
 * @typedef {import('../fake-anthropic/index.ts').RecordedRequest & { readonly body: SentBody, inputTokens: number }} SentRequest
 */

/**
 * Starts the fake API, code-server with the .vsix installed, and a browser page with the
 * Context Pipeline chat open. `workspaceFiles` maps relative paths to contents; `prepare(dirs)`
 * runs before code-server starts (e.g. to write session files); with `openChat: false` the
 * workbench is open but the chat is not (call openContextPipeline, then `refindFrame()`).
 * @param {{ workspaceFiles?: Record<string, string>, settings?: Record<string, unknown>, fakeWindow?: number,
 *   prepare?: (dirs: AgentDirs) => unknown, openChat?: boolean, extraExtensions?: string[] }} [options]
 * `extraExtensions`: folders of other extensions (a package.json and plain JS), linked in beside ours.
 */
export async function startAgentWorld({
  workspaceFiles = {},
  settings = {},
  fakeWindow,
  prepare,
  openChat = true,
  extraExtensions = [],
} = {}) {
  await ensureHarness();
  const { startFakeAnthropic } = await import('../fake-anthropic/index.ts');
  const { installExtension, linkExtension, startCodeServer } = await import('./codeServer.mjs');
  const { chatFrame, framesWith, launchBrowser, openContextPipeline, openWorkbench } = await import('./workbench.mjs');
  const { runCommand } = await import('./gestures.mjs');

  const root = mkdtempSync(join(tmpdir(), 'cp-vscode-agent-'));
  const dirs = {
    workspace: join(root, 'workspace'),
    extensions: join(root, 'extensions'),
    userData: join(root, 'user-data'),
    tmp: join(root, 'tmp'),
  };
  mkdirSync(dirs.tmp, { recursive: true });
  for (const [rel, content] of Object.entries(workspaceFiles)) {
    mkdirSync(join(dirs.workspace, rel, '..'), { recursive: true });
    writeFileSync(join(dirs.workspace, rel), content);
  }
  mkdirSync(dirs.workspace, { recursive: true });
  if (prepare) await prepare(dirs);

  const streamHold = createStreamHold();
  // What started so far is stopped again when a later step fails (the caller gets no world to close).
  /** @type {import('../fake-anthropic/index.ts').FakeAnthropic | undefined} */
  let fake;
  /** @type {Awaited<ReturnType<typeof startCodeServer>> | undefined} */
  let server;
  /** @type {import('playwright-core').Browser | undefined} */
  let browser;
  /** @type {import('playwright-core').Page | undefined} */
  let page;
  /** @type {import('playwright-core').Frame} The chat webview; unset (undefined) while `openChat` is false and until refindFrame(). */
  let frame;
  // Where a world's start-up time goes (printed, never asserted: the suite's timing table sums these).
  const marks = [performance.now()];
  try {
    fake = await startFakeAnthropic({
      port: 0,
      ...(fakeWindow ? { window: fakeWindow } : {}),
      sleep: streamHold.sleep,
    });
    await installExtension(VSIX, dirs.extensions, dirs.userData);
    for (const folder of extraExtensions) linkExtension(folder, dirs.extensions);
    marks.push(performance.now());
    server = await startCodeServer({
      workspaceDir: dirs.workspace,
      extensionsDir: dirs.extensions,
      userDataDir: dirs.userData,
      env: { TMPDIR: dirs.tmp, ANTHROPIC_API_KEY: 'sk-ant-test-key-for-the-fake-server' },
      settings: { 'contextPipeline.baseUrl': fake.url, ...settings },
    });
    marks.push(performance.now());
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await openWorkbench(page, server.url);
    marks.push(performance.now());
    if (openChat) {
      await openContextPipeline(page);
      frame = await chatFrame(page);
    }
    marks.push(performance.now());
    const secs = (/** @type {number} */ i) => (((marks[i + 1] ?? 0) - (marks[i] ?? 0)) / 1000).toFixed(1);
    console.log(
      `# [harness] world started in ${(((marks.at(-1) ?? 0) - (marks[0] ?? 0)) / 1000).toFixed(1)} s: ` +
        `fake server + install ${secs(0)} s, code-server ${secs(1)} s, browser + workbench ${secs(2)} s, chat view ${secs(3)} s`,
    );
  } catch (err) {
    await browser?.close().catch(() => undefined);
    await server?.stop().catch(() => undefined);
    await fake?.close().catch(() => undefined);
    if (process.env.CP_KEEP_TEMP !== '1') rmSync(root, { recursive: true, force: true });
    throw err;
  }

  const world = {
    fake,
    /** Holds the fake's answer stream mid-way (a step with `deltaDelayMs`) until released. */
    streamHold,
    server,
    page,
    dirs,
    get frame() {
      return frame;
    },
    /** Re-finds the chat webview after VS Code recreated it (the view was collapsed or hidden). */
    async refindFrame() {
      frame = await chatFrame(page);
    },
    /** Runs Developer: Reload Window, waits for the reloaded workbench and re-finds the chat. */
    async reloadWindow() {
      const reloaded = page.waitForEvent('framenavigated', {
        predicate: (f) => f === page.mainFrame(),
        timeout: WORKBENCH_TIMEOUT,
      });
      await world.command('Developer: Reload Window');
      await reloaded;
      await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: WORKBENCH_TIMEOUT });
      await page.locator('.part.activitybar').waitFor({ state: 'visible', timeout: WORKBENCH_TIMEOUT });
      await openContextPipeline(page);
      frame = await chatFrame(page);
    },
    /**
     * Shows another view container in the side bar (the Explorer), which disposes the chat
     * webview (no retained context), then opens the chat again and re-finds it.
     */
    async hideAndReopenChat() {
      await page.locator('.part.activitybar [aria-label^="Explorer"]').first().click();
      await page
        .locator('.part.sidebar .composite.title', { hasText: 'Explorer' })
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await openContextPipeline(page);
      frame = await chatFrame(page);
    },
    /** Navigates to the workbench again and re-finds the chat webview (after the extension host was killed). */
    async reopen() {
      await openWorkbench(page, server.url);
      await openContextPipeline(page);
      frame = await chatFrame(page);
    },
    /**
     * Types a message and presses Enter once the composer is idle (shows Send).
     * @param {string} text
     */
    async send(text) {
      const input = frame.getByRole('textbox', { name: 'Message' });
      await input.fill(text);
      // Enter while a turn is still finishing (its answer shown, the composer not yet back to
      // Send) is ignored, as for a person: wait for the composer first, so a busy machine
      // cannot make the message vanish.
      await this.waitIdle();
      await input.press('Enter');
      // A key goes wherever the window's focus is when it is dispatched: a panel that just
      // opened can take the focus between Playwright focusing the box and pressing the key (the
      // box then still holds the text, nothing queued). Wait until the box took the message —
      // emptied, or queued behind a turn — and press again if the key went elsewhere.
      let presses = 1;
      await eventually('the message box to take the message', async () => {
        if ((await input.inputValue()) !== text) return true;
        if (await frame.getByTestId('queued-note').isVisible()) return true;
        presses++;
        await input.press('Enter');
        return false;
      });
      if (presses > 1)
        console.log(`# [harness] Enter reached the message box on press ${presses}: the focus had moved`);
    },
    /**
     * Waits until an assistant item with this text is shown and no longer streaming.
     * @param {string} text
     * @param {number} [timeout]
     */
    async waitForAnswer(text, timeout = UI_TIMEOUT) {
      try {
        await frame
          .locator('.item.assistant:not(.streaming) .text', { hasText: text })
          .first()
          .waitFor({ state: 'visible', timeout });
      } catch (err) {
        // Say what the chat showed instead, so a failure on a busy machine can be explained.
        const seen = await frame
          .locator('.item')
          .allInnerTexts()
          .then((items) => items.slice(-4).map((t) => `  | ${t.replace(/\s+/g, ' ').slice(0, 200)}`))
          .catch((/** @type {Error} */ e) => [`  (the chat could not be read: ${e.message})`]);
        const composer = await frame
          .getByRole('textbox', { name: 'Message' })
          .inputValue({ timeout: 1_000 })
          .catch(() => '(unreadable)');
        const button = await frame
          .locator('.composer button.primary')
          .innerText({ timeout: 1_000 })
          .catch(() => '(unreadable)');
        const queued = await frame
          .getByTestId('queued-note')
          .isVisible()
          .catch(() => false);
        const focus = await page
          .evaluate(() => document.activeElement?.className ?? '(none)')
          .catch(() => '(unreadable)');
        const chatFrames = await framesWith(page, 'chat-root').catch(
          () => /** @type {import('playwright-core').Frame[]} */ ([]),
        );
        const at = chatFrames.indexOf(frame);
        const frames = `${chatFrames.length} live chat frame(s); this test's frame is ${at < 0 ? 'not among them' : `number ${at + 1}`}`;
        const { readOutputChannelLogs } = await import('./codeServerLogs.mjs');
        const logTail = readOutputChannelLogs(server.logsDir, 'Context Pipeline')
          .flatMap((l) => l.text.split('\n'))
          .filter((l) => l.trim() !== '')
          .slice(-25)
          .map((l) => `  | ${l.slice(0, 240)}`);
        throw new Error(
          `${/** @type {Error} */ (err).message}\nthe chat's last items:\n${seen.join('\n')}\nthe composer holds: ${JSON.stringify(composer)} (button ${JSON.stringify(button)}${queued ? ', queued' : ''}; the window's focus: ${JSON.stringify(focus)}; ${frames}); the fake server has ${fake.requests.length} requests\nthe Context Pipeline log's last lines:\n${logTail.join('\n')}`,
          { cause: err },
        );
      }
    },
    /** Waits until the turn is over (the composer shows Send again). */
    async waitIdle(timeout = UI_TIMEOUT) {
      await frame
        .locator('.composer button.primary:not(.stop)', { hasText: 'Send' })
        .waitFor({ state: 'visible', timeout });
    },
    /**
     * Runs a command from the command palette by its title (retrying the palette and the typing until its row shows).
     * @param {string} title
     */
    async command(title) {
      await runCommand(page, title);
    },
    /** Starts a new, empty session and waits for the empty chat. */
    async newSession() {
      if (fake.pendingSteps > 0)
        throw new Error(`${fake.pendingSteps} scripted step(s) of the previous test were never used`);
      await world.command('Context Pipeline: New Session');
      await frame.locator('.empty').waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    },
    /**
     * The last request the fake server recorded, as the tests read it.
     * @returns {SentRequest}
     */
    lastRequest() {
      const r = fake.requests.at(-1);
      if (!r) throw new Error('the fake server has recorded no request');
      return /** @type {SentRequest} */ (r);
    },
    /**
     * The content blocks of the last message of the last request ([] when its content is a string).
     * @returns {import('@anthropic-ai/sdk/resources/messages').ContentBlockParam[]}
     */
    lastBlocks() {
      const content = world.lastRequest().body.messages.at(-1)?.content;
      return Array.isArray(content) ? content : [];
    },
    /**
     * Session files written by the extension, parsed into entries.
     * @returns {{ file: string, entries: SessionEntry[] }[]}
     */
    sessionEntries() {
      const dir = sessionsDir(dirs);
      return readdirSync(dir)
        .filter((f) => /^[0-9T-]+-[0-9a-z]+\.jsonl$/.test(f))
        .map((f) => ({
          file: f,
          entries: readFileSync(join(dir, f), 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l)),
        }));
    },
    /** Kills the extension host process (as a crash would), leaving code-server running. */
    killExtensionHost() {
      const table = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
        .split('\n')
        .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
        .filter((m) => m !== null)
        .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }));
      const tree = new Set([server.process.pid]);
      for (let grew = true; grew;) {
        grew = false;
        for (const p of table)
          if (tree.has(p.ppid) && !tree.has(p.pid)) {
            tree.add(p.pid);
            grew = true;
          }
      }
      const hosts = table.filter((p) => tree.has(p.pid) && /extensionHost/.test(p.args));
      if (hosts.length === 0) throw new Error('no extension host process found under code-server');
      for (const h of hosts) process.kill(h.pid, 'SIGKILL');
      return hosts.map((h) => h.pid);
    },
    async close() {
      /** @type {Error[]} */
      const errors = [];
      await browser.close().catch((e) => errors.push(e));
      await server.stop().catch((e) => errors.push(e));
      await fake.close().catch((e) => errors.push(e));
      if (process.env.CP_KEEP_TEMP !== '1') rmSync(root, { recursive: true, force: true });
      if (errors.length) throw new Error(`cleanup failed: ${errors.map((e) => e.message).join('; ')}`);
    },
  };
  return world;
}

/**
 * Starts a world whose session storage holds `session` before VS Code starts (opening the chat
 * resumes it), the chat not yet open; with `window`, the fake server enforces that window and
 * `contextPipeline.contextWindow` says so. Resolves to the world and the sessions folder.
 * @param {{ file: string, content: string }} session
 * @param {{ window?: number, workspaceFiles?: Record<string, string> }} [options]
 */
export async function startResumedWorld(session, { window, workspaceFiles = {} } = {}) {
  /** @type {string | undefined} */
  let sessions;
  const world = await startAgentWorld({
    workspaceFiles,
    openChat: false,
    ...(window ? { fakeWindow: window, settings: { 'contextPipeline.contextWindow': window } } : {}),
    prepare: (dirs) => {
      sessions = installSession(dirs, session);
    },
  });
  if (!sessions) throw new Error('the session was not installed');
  return { world, sessions };
}

/**
 * Ends a world: its last screenshot (`<lastShot>.png`, best effort), then close, then asserts
 * that the fake server refused no request the extension sent.
 * @param {AgentWorld | undefined} world
 * @param {string} lastShot
 */
export async function closeWorld(world, lastShot) {
  if (!world) return;
  const { screenshot } = await import('./workbench.mjs');
  await screenshot(world.page, lastShot).catch(() => undefined);
  const invalid = world.fake.invalidRequests.map((r) => r.error);
  await world.close();
  if (invalid.length > 0) throw new Error(`the fake server refused requests: ${invalid.join('; ')}`);
}
