// Rendered Markdown in the chat is safe: the scripted model answers with an XSS corpus
// mixed with ordinary Markdown, and in the real chat webview (code-server + chromium) the
// Markdown renders while nothing runs, nothing loads from the network and links never
// navigate the webview.
//   node --import tsx --test test/vscode/xss.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const CORPUS = [
  '# Corpus heading',
  '',
  'Some **bold** words, `inline code` and a list:',
  '',
  '- first item',
  '- second item',
  '',
  '<img src=x onerror="window.top.__xss=1">',
  '',
  '<style onload="window.__xss=1">body { display: none }</style>',
  '',
  '<script>window.__xss=1</script>',
  '',
  '[click](javascript:window.__xss=1)',
  '',
  '![remote](https://example.com/track.png)',
  '',
  '<a href="https://example.com" onclick="window.__xss=1">x</a>',
  '',
  '<iframe src="https://example.com"></iframe>',
  '',
  `An inline image: ![pixel](data:image/png;base64,${PIXEL})`,
  '',
  '```ts',
  'const answer: number = 42; // the answer',
  'export function greet(name: string) { return `Hello, ${name}`; }',
  '```',
  '',
  '| Name | Value |',
  '| :--- | ---: |',
  '| alpha | 1 |',
  '| beta | 2 |',
  '',
  '> A quoted line.',
  '',
  'Read more at [Anthropic](https://www.anthropic.com).',
].join('\n');

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);
/** This extension's packaged webview assets (dist/webview, media), as the resource host serves them. */
const OWN_ASSET = /\/extensions\/context-pipeline\.context-pipeline-[^/]+\/(dist\/webview|media)\/[^/]+$/;

describe('Markdown answers in the chat webview are rendered safely', { timeout: suiteTimeout(600_000) }, () => {
  /** @type {import('./agentHarness.mjs').AgentWorld} */
  let w;
  /** @type {string[]} URLs of every request the workbench page and its frames made */
  const requests = [];
  /** @type {string[]} `<type>: <message>` of every dialog */
  const dialogs = [];
  /** @type {string[]} uncaught errors in the page */
  const pageErrors = [];
  /** @type {string[]} URLs of pages (windows) the context opened */
  const popups = [];
  before(async () => {
    w = await startAgentWorld({ workspaceFiles: { 'README.md': '# Demo\n' } });
  });
  after(async () => {
    if (w) await w.close();
  });

  test('the XSS corpus renders as inert Markdown', async () => {
    const { page } = w;
    page.on('request', (r) => requests.push(r.url()));
    page.on('dialog', (d) => {
      dialogs.push(`${d.type()}: ${d.message()}`);
      void d.dismiss().catch(() => undefined);
    });
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.context().on('page', (p) => popups.push(p.url()));

    w.fake.script({ text: CORPUS, chunkChars: 40 });
    await w.send('Show me the corpus');
    await w.waitForAnswer('Corpus heading');
    await w.waitIdle();
    const f = w.frame;
    const answer = f.locator('.item.assistant:not(.streaming) .text.markdown').last();
    await answer.waitFor({ state: 'visible', timeout: UI_TIMEOUT });

    // The ordinary Markdown rendered.
    assert.equal(await answer.locator('h1').innerText(), 'Corpus heading');
    assert.deepEqual(await answer.locator('ul > li').allInnerTexts(), ['first item', 'second item']);
    assert.equal(await answer.locator('strong').first().innerText(), 'bold');
    assert.equal(await answer.locator(':not(pre) > code').first().innerText(), 'inline code');
    assert.equal(await answer.locator('.code-block .code-lang').innerText(), 'ts');
    assert.match(
      await answer.locator('.code-block pre code').innerText(),
      /const answer: number = 42; \/\/ the answer/,
    );
    assert.ok((await answer.locator('.code-block pre code .tok-keyword').count()) > 0, 'the ts block is coloured');
    assert.deepEqual(await answer.locator('table th').allInnerTexts(), ['Name', 'Value']);
    assert.deepEqual(await answer.locator('table td').allInnerTexts(), ['alpha', '1', 'beta', '2']);
    assert.equal(await answer.locator('table td.md-align-right').count(), 2, 'alignment kept as a class');
    assert.equal(await answer.locator('blockquote').innerText(), 'A quoted line.');
    const anthropic = answer.locator('a', { hasText: 'Anthropic' });
    assert.equal(await anthropic.getAttribute('href'), 'https://www.anthropic.com');

    // The raw HTML stayed text.
    assert.match(await answer.innerText(), /<img src=x onerror="window\.top\.__xss=1">/);
    assert.match(await answer.innerText(), /<script>window\.__xss=1<\/script>/);

    // Nothing active survived anywhere in the transcript.
    const audit = await f.evaluate(() => {
      const t = /** @type {HTMLElement} */ (document.querySelector('[data-testid="transcript"]'));
      const all = Array.from(t.querySelectorAll('*'));
      return {
        onAttrs: all.flatMap((e) =>
          Array.from(e.attributes)
            .filter((a) => /^on/i.test(a.name))
            .map((a) => `${e.tagName}[${a.name}]`),
        ),
        // The virtualised list's own spacers carry their height in a style; nothing from the model may.
        styleAttrs: all
          .filter((e) => e.hasAttribute('style') && !e.classList.contains('transcript-spacer'))
          .map((e) => e.tagName),
        forbidden: Array.from(
          t.querySelectorAll('script, iframe, style, object, embed, form, svg, link, meta, base'),
        ).map((e) => e.tagName),
        badHrefs: Array.from(t.querySelectorAll('[href]'))
          .map((e) => e.getAttribute('href') ?? '')
          .filter((h) => !/^https?:\/\//i.test(h)),
        images: Array.from(t.querySelectorAll('img')).map((i) => ({
          alt: i.alt,
          src: i.getAttribute('src'),
          loaded: i.complete && i.naturalWidth > 0,
        })),
        xss: window.__xss,
        topXss: (() => {
          try {
            return /** @type {Window} */ (window.top).__xss;
          } catch {
            return 'cross-origin';
          }
        })(),
        location: location.href,
      };
    });
    assert.deepEqual(audit.onAttrs, [], 'no on* attribute');
    assert.deepEqual(audit.styleAttrs, [], 'no style attribute');
    assert.deepEqual(audit.forbidden, [], 'no script/iframe/style/… element');
    assert.deepEqual(audit.badHrefs, [], 'only http(s) hrefs (no javascript:)');
    assert.equal(await f.locator('[data-testid="transcript"] a[href^="javascript" i]').count(), 0);
    const remote = audit.images.filter((i) => i.alt === 'remote');
    assert.ok(
      remote.every((i) => i.src === null),
      `the remote image has no src: ${JSON.stringify(remote)}`,
    );
    const pixel = audit.images.find((i) => i.alt === 'pixel');
    assert.ok(
      pixel?.src?.startsWith('data:image/png;base64,') && pixel.loaded,
      `the data: image is shown: ${JSON.stringify(pixel)}`,
    );
    assert.equal(audit.xss, undefined, 'window.__xss is undefined in the webview');
    assert.ok(audit.topXss === undefined || audit.topXss === 'cross-origin', 'window.top.__xss not set');
    assert.equal(await page.evaluate(() => window.__xss), undefined, 'window.__xss is undefined in the workbench');
    assert.deepEqual(dialogs, [], 'no dialog appeared');

    const { SCREENSHOT_DIR, screenshot } = await import('./workbench.mjs');
    await answer.locator('h1').scrollIntoViewIfNeeded();
    await f.evaluate(() => document.querySelector('.item.assistant h1')?.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'xss-corpus');
    await f.locator('[data-testid="chat-root"]').screenshot({ path: join(SCREENSHOT_DIR, 'xss-corpus-chat.png') });
    await f.evaluate(() => document.querySelector('.item.assistant .code-block')?.scrollIntoView({ block: 'end' }));
    await screenshot(page, 'xss-corpus-end');

    // Copy works (clipboard API or the host fallback) without an error. "Copied" shows for
    // 1.5 s only: it is recorded inside the webview, so a slow test cannot miss it.
    const { recordWhenShown } = await import('./gestures.mjs');
    const copied = await recordWhenShown(f, 'copied', '.code-block .code-copy', '^Copied$');
    await answer.locator('.code-block .code-copy').click();
    await copied.seen();

    // Clicking a link asks the host; the webview does not navigate. The host either asks (a
    // dialog) or opens a window: wait for whichever comes.
    await anthropic.click();
    const prompt = page.locator('.monaco-dialog-box', { hasText: /external website|open/i });
    const how = await Promise.any([
      prompt.waitFor({ state: 'visible', timeout: UI_TIMEOUT }).then(() => 'prompt'),
      page
        .context()
        .waitForEvent('page', { timeout: UI_TIMEOUT })
        .then(() => 'popup'),
    ]).catch(() => 'nothing');
    const sawPrompt = how === 'prompt';
    if (sawPrompt) {
      const text = await prompt.innerText();
      assert.match(text, /anthropic\.com/, `the host was asked to open the link: ${text}`);
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'xss-link-prompt.png') });
      await prompt.getByRole('button', { name: 'Cancel' }).click();
      await prompt.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    }
    // The host has handled the link, posted after the copy: a failed copy would have shown by now.
    assert.equal(
      await page.locator('.notifications-toasts .notification-toast', { hasText: /failed/i }).count(),
      0,
      'no error notification',
    );
    assert.deepEqual(pageErrors, [], 'no uncaught error in the page');
    process.stderr.write(
      `[xss] link prompt: ${sawPrompt}; popups: ${JSON.stringify(popups)}; open dialogs: ${await page.locator('.monaco-dialog-box').count()}\n`,
    );
    assert.ok(sawPrompt || popups.length > 0, 'the host opened (or asked to open) the link');
    assert.equal(await f.locator('[data-testid="transcript"]').count(), 1, 'the transcript is still there');
    assert.equal(await f.evaluate(() => location.href), audit.location, 'the webview did not navigate');
    assert.equal(await f.locator('.item.assistant h1', { hasText: 'Corpus heading' }).count(), 1);

    // Nothing went to the network beyond the local servers.
    const remoteRequests = requests.filter((u) => {
      if (!/^(https?|wss?):/i.test(u)) return false;
      const url = new URL(u);
      // The webview's own assets (e.g. the codicon font, loaded on first use) come through VS Code's
      // resource host, which the webview's service worker answers from the extension's folder.
      if (url.hostname.endsWith('.vscode-resource.vscode-cdn.net') && OWN_ASSET.test(url.pathname)) return false;
      return !LOCAL_HOSTS.has(url.hostname);
    });
    assert.deepEqual(remoteRequests, [], 'no request left 127.0.0.1/localhost');
    if (sawPrompt) assert.deepEqual(popups, [], 'no window opened while the prompt was cancelled');
    assert.deepEqual(dialogs, [], 'no dialog appeared');
  });
});
