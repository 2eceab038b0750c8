// Smoke test in a real VS Code: packages the extension, installs the .vsix into a fresh
// code-server, opens the workbench in headless chromium and checks that the Context Pipeline
// container shows its Chat and Compactions views, that the chat webview rendered, and that
// the extension activated without errors.
//
//   node --test test/vscode/smoke.test.mjs
// Environment: CP_SKIP_PACKAGE=1 reuses dist/context-pipeline.vsix instead of running
// `npm run package`; CP_VSIX=<path> tests that .vsix instead (implies no packaging);
// CP_KEEP_TEMP=1 keeps the temp workspace, extensions and user data (logs) for inspection.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { ensureHarness, REPO_ROOT } from './setup.mjs';
import { suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';
/** @typedef {Awaited<ReturnType<typeof import('./codeServer.mjs').startCodeServer>>} CodeServer a running code-server */

const EXTENSION_ID = 'context-pipeline.context-pipeline';
const VSIX = process.env.CP_VSIX ? resolve(process.env.CP_VSIX) : join(REPO_ROOT, 'dist', 'context-pipeline.vsix');
const LOG_TIMEOUT_MS = UI_TIMEOUT;

test(
  'Context Pipeline installs from its .vsix, activates and shows its views in VS Code',
  { timeout: suiteTimeout(600_000) },
  async () => {
    await ensureHarness();
    // Imported after setup: they need the harness's node_modules (playwright-core).
    const { installExtension, readExtensionHostLogs, readOutputChannelLogs, startCodeServer } =
      await import('./codeServer.mjs');
    const { chatFrame, launchBrowser, openContextPipeline, openWorkbench, screenshot, viewHeader } =
      await import('./workbench.mjs');

    if (process.env.CP_SKIP_PACKAGE === '1' || process.env.CP_VSIX) {
      log(`not packaging; using the existing ${VSIX}`);
    } else {
      packageExtension();
    }

    const root = mkdtempSync(join(tmpdir(), 'cp-vscode-smoke-'));
    const dirs = {
      workspace: join(root, 'workspace'),
      extensions: join(root, 'extensions'),
      userData: join(root, 'user-data'),
      tmp: join(root, 'tmp'), // VS Code's IPC sockets, removed with the rest
    };
    mkdirSync(dirs.tmp);
    writeWorkspace(dirs.workspace);

    /** @type {CodeServer | undefined} */
    let server;
    let browser;
    let page;
    let failure;
    try {
      const installedDir = await installExtension(VSIX, dirs.extensions, dirs.userData);
      log(`installed the .vsix to ${installedDir}`);

      server = await startCodeServer({
        workspaceDir: dirs.workspace,
        extensionsDir: dirs.extensions,
        userDataDir: dirs.userData,
        env: { TMPDIR: dirs.tmp, ANTHROPIC_API_KEY: undefined }, // hermetic: never reach the real API
      });
      log(`code-server at ${server.url}`);

      browser = await launchBrowser();
      page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await openWorkbench(page, server.url);
      await openContextPipeline(page);

      for (const name of ['Chat', 'Compactions']) {
        await viewHeader(page, name).waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      }
      const frame = await chatFrame(page);
      await frame.locator('[data-testid="chat-root"]').waitFor({ state: 'visible', timeout: UI_TIMEOUT });

      const activation = new RegExp(`ExtensionService#_doActivateExtension ${escapeRegExp(EXTENSION_ID)}\\b`);
      const exthost = await waitFor('the extension host log to report the activation', () => {
        const text = readExtensionHostLogs(/** @type {CodeServer} */ (server).logsDir)
          .map((l) => l.text)
          .join('\n');
        return activation.test(text) ? text : undefined;
      });
      const failures = exthost
        .split('\n')
        .filter(
          (line) =>
            (/\[error\]/i.test(line) && /context-pipeline/i.test(line)) ||
            new RegExp(`activating extension.*${escapeRegExp(EXTENSION_ID)}.*failed`, 'i').test(line),
        );
      assert.deepEqual(failures, [], 'the extension host log reports errors from the extension');

      await waitFor(
        '"Context Pipeline activated" in the "Context Pipeline" output channel',
        () =>
          readOutputChannelLogs(/** @type {CodeServer} */ (server).logsDir, 'Context Pipeline').some((l) =>
            l.text.includes('Context Pipeline activated'),
          ) || undefined,
      );

      // A first run: no key and an empty chat show the welcome card with Set API key.
      const welcome = frame.locator('[data-testid="welcome"]');
      await welcome.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      assert.match(await welcome.innerText(), /Set API key[\s\S]*npm run fake-anthropic/);
      log(`screenshot: ${await screenshot(page, 'smoke-context-pipeline')}`);

      // A person's first actions: preview what a message would send, then send it with no API
      // key set (the smoke server has none) and read the clear error.
      await page.setViewportSize({ width: 1400, height: 900 });
      const input = frame.getByRole('textbox', { name: 'Message' });
      await input.fill('Explain what src/greet.js does.');
      await frame.getByRole('button', { name: 'Preview' }).click();
      const ledger = frame.locator('[data-testid="preview"] table.ledger');
      await ledger.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      const total = await frame.locator('[data-testid="preview"] .total').innerText();
      assert.match(total, /≈ [\d,]+ tokens \([\d.]+% of the window\)/);
      const rows = await ledger.locator('tbody tr').allInnerTexts();
      assert.ok(
        rows.some((r) => /tools · tool schema/.test(r)),
        `the tool definitions: ${rows.join(' | ')}`,
      );
      assert.ok(
        rows.some((r) => /system · text/.test(r)),
        `a system prompt row: ${rows.join(' | ')}`,
      );
      assert.ok(
        rows.some((r) => /user · text/.test(r) && r.includes('Explain what src/greet.js does.')),
        `the user's words: ${rows.join(' | ')}`,
      );
      const notes = await frame.locator('[data-testid="preview"] .note').allInnerTexts();
      assert.ok(
        notes.some((n) => n.includes('cl100k_base')),
        `the tiktoken bundle loaded from the .vsix: ${notes.join(' | ')}`,
      );
      log(`screenshot: ${await screenshot(page, 'smoke-request-preview')}`);

      await input.press('Enter');
      const error = frame.locator('.item.error');
      await error.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      assert.match(await error.innerText(), /No Anthropic API key is set/);
      await error.locator('button', { hasText: 'Set API key' }).waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      // Refused before it entered the conversation: the words are back in the message box, not in the chat.
      await frame.waitForFunction(
        () => document.querySelector('textarea')?.value.includes('Explain what src/greet.js does.'),
        undefined,
        { timeout: UI_TIMEOUT },
      );
      assert.equal(await frame.locator('.item.user').count(), 0, 'the message did not enter the conversation');
      log(`screenshot: ${await screenshot(page, 'smoke-no-api-key')}`);
    } catch (err) {
      failure = err;
      await reportFailure(page, server, screenshot, readExtensionHostLogs);
    }
    const cleanupErrors = await cleanUp(browser, server, root);
    if (failure) throw failure;
    if (cleanupErrors.length) throw new Error(`cleanup failed: ${cleanupErrors.map((e) => e.message).join('; ')}`);
  },
);

/** `npm run package` in the repo; prints its output only when it fails. */
function packageExtension() {
  const start = Date.now();
  const res = spawnSync('npm', ['run', 'package'], { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (res.error) throw new Error(`Could not run npm run package: ${res.error.message}`);
  if (res.status !== 0) {
    throw new Error(`npm run package exited with ${res.status ?? res.signal}:\n${res.stdout}${res.stderr}`);
  }
  log(`npm run package: ${VSIX} in ${((Date.now() - start) / 1000).toFixed(1)} s`);
}

/** @param {string} dir */
function writeWorkspace(dir) {
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# Smoke workspace\n\nA tiny project for the Context Pipeline smoke test.\n');
  writeFileSync(join(dir, 'src', 'greet.js'), 'export function greet(name) {\n  return `Hello, ${name}!`;\n}\n');
}

/**
 * Prints what helps to see why the test failed: a screenshot and the extension host's last log lines.
 * @param {import('playwright-core').Page | undefined} page
 * @param {CodeServer | undefined} server
 * @param {typeof import('./workbench.mjs').screenshot} screenshot
 * @param {typeof import('./codeServer.mjs').readExtensionHostLogs} readExtensionHostLogs
 */
async function reportFailure(page, server, screenshot, readExtensionHostLogs) {
  if (page) {
    try {
      log(`failure screenshot: ${await screenshot(page, 'smoke-context-pipeline-failure')}`);
    } catch (err) {
      log(`could not take a failure screenshot: ${err.message}`);
    }
  }
  if (server) {
    const logs = readExtensionHostLogs(server.logsDir);
    if (logs.length === 0) log(`no extension host log under ${server.logsDir}`);
    for (const { file, text } of logs) {
      log(`last lines of ${file}:\n${text.trimEnd().split('\n').slice(-40).join('\n')}`);
    }
    log(`code-server output: ${server.outputLog}`);
  }
}

/**
 * Closes the browser, stops code-server and removes the temp dirs; returns (and prints) what failed.
 * @param {import('playwright-core').Browser | undefined} browser
 * @param {CodeServer | undefined} server
 * @param {string} root
 */
async function cleanUp(browser, server, root) {
  /** @type {Error[]} */
  const errors = [];
  await browser?.close().catch((err) => errors.push(err));
  await server?.stop().catch((err) => errors.push(err));
  if (process.env.CP_KEEP_TEMP === '1') {
    log(`CP_KEEP_TEMP=1: kept ${root}`);
  } else {
    try {
      rmSync(root, { recursive: true, force: true });
    } catch (err) {
      errors.push(err);
    }
  }
  for (const err of errors) log(`cleanup error: ${err.stack ?? err}`);
  return errors;
}

/**
 * Polls `probe` until it returns a value other than undefined; throws after LOG_TIMEOUT_MS.
 * @template T
 * @param {string} what
 * @param {() => T | undefined} probe
 * @returns {Promise<T>}
 */
async function waitFor(what, probe) {
  const deadline = Date.now() + LOG_TIMEOUT_MS;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${LOG_TIMEOUT_MS / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250)); // poll interval for log files
  }
}

/** @param {string} s */
function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** @param {string} line */
function log(line) {
  process.stderr.write(`[smoke] ${line}\n`);
}
