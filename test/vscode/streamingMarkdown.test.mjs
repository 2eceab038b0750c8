// An answer's Markdown renders while it streams (a heading, bold, a list, a code fence still
// open), also in a view hidden and shown again mid-answer, and the finished answer keeps the
// streamed body when it renders the same. Code blocks and an edit's diff at the side bar's
// default width (about 300 px), dark and light: a block's <code> has no inline-code background,
// and long lines scroll inside their block. The stream is held by the fake server's stream
// hold, so nothing depends on timing.
//   node --import tsx --test test/vscode/streamingMarkdown.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { eventually, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';
import { screenshot, SCREENSHOT_DIR } from './workbench.mjs';

const LONG_LINE = `const message = "${'a long line that does not fit in a narrow side bar '.repeat(4).trim()}";`;
const ANSWER = [
  '## Plan',
  '',
  'The fix has **two** parts:',
  '',
  '- check the `exp` claim',
  '- allow 30 s of clock skew',
  '',
  '```js',
  LONG_LINE,
  'const skew = 30_000;',
  '```',
  '',
  'Done: the code above is long.',
].join('\n');
const CHUNK = 8;
// The fake's stream is message_start, content_block_start, ping, then the deltas; holdAfter(n)
// lets n waits pass, so n + 1 events are sent: n - 2 deltas of CHUNK characters.
const HOLD_AT = ANSWER.indexOf('const skew');
const HOLD = Math.ceil(HOLD_AT / CHUNK) + 2;

/**
 * The computed style the tests read of the first element matching `selector` in the chat.
 * @param {import('./agentHarness.mjs').AgentWorld} w
 * @param {string} selector
 */
const styleOf = (w, selector) =>
  w.frame
    .locator(selector)
    .first()
    .evaluate((/** @type {HTMLElement} */ node) => {
      const s = getComputedStyle(node);
      const box = node.getBoundingClientRect();
      return {
        background: s.backgroundColor,
        padding: s.padding,
        overflowX: s.overflowX,
        whiteSpace: s.whiteSpace,
        scrolls: node.scrollWidth > node.clientWidth,
        right: box.right,
        viewport: document.documentElement.clientWidth,
      };
    });

describe('Markdown while it streams, and code at the side bar width', { timeout: suiteTimeout(400_000) }, () => {
  /** @type {import('./agentHarness.mjs').AgentWorld | undefined} */
  let w;
  const world = () => {
    assert.ok(w, 'the world started');
    return w;
  };

  before(async () => {
    w = await startAgentWorld({
      workspaceFiles: { 'src/skew.js': 'export const SKEW_MS = 0;\n' },
      settings: { 'workbench.colorTheme': 'Default Dark Modern' },
    });
  });
  after(async () => {
    if (w) await screenshot(w.page, 'streaming-markdown-last').catch(() => undefined);
    const invalid = w?.fake.invalidRequests.map((r) => r.error) ?? [];
    await w?.close();
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });

  test('headings, bold, lists and an open code fence render mid-stream, again after the view comes back, and the end keeps the body', async () => {
    const w = world();
    const hold = w.streamHold.holdAfter(HOLD);
    w.fake.script({ text: ANSWER, chunkChars: CHUNK, deltaDelayMs: 1 });
    await w.send('Plan the skew fix');
    await hold.reached;
    const held = ANSWER.slice(0, (HOLD - 2) * CHUNK);
    const answer = () => w.frame.locator('.item.assistant.streaming .text');
    const rendered = async () => {
      await eventually('every held delta to show, in the code block', async () =>
        ((await answer().locator('.code-block pre code').textContent()) ?? '').endsWith(
          held.slice(held.indexOf(LONG_LINE)),
        ),
      );
      assert.equal(await answer().count(), 1, 'one streaming answer');
      assert.equal(await answer().locator('h2').innerText(), 'Plan');
      assert.equal(await answer().locator('strong').innerText(), 'two');
      assert.deepEqual(await answer().locator('li').allInnerTexts(), [
        'check the exp claim',
        'allow 30 s of clock skew',
      ]);
      assert.equal(await answer().locator(':not(pre) > code').innerText(), 'exp');
      assert.equal(await answer().locator('.code-block .code-lang').innerText(), 'js');
      const text = await answer().innerText();
      for (const raw of ['##', '**', '```']) assert.ok(!text.includes(raw), `no raw ${raw} in ${JSON.stringify(text)}`);
    };
    await rendered();
    await screenshot(w.page, 'streaming-markdown-mid-answer');

    await w.hideAndReopenChat();
    await rendered();
    // The streamed body, marked: the finished answer keeps it when it renders the same.
    // (A property, not an attribute: an attribute would make it differ from the finished render.)
    await answer().evaluate((node) => Object.assign(node, { streamedBody: true }));
    hold.release();
    await w.waitForAnswer('Done: the code above is long.');
    await w.waitIdle();
    const done = w.frame.locator('.item.assistant:not(.streaming) .text.markdown').last();
    assert.equal(
      await done.evaluate((node) => 'streamedBody' in node),
      true,
      'the streamed body stays: nothing swapped at the end',
    );
    assert.equal(await done.locator('h2').count(), 1);
    assert.equal(await done.locator('.code-block').count(), 1);
    assert.ok((await done.locator('.code-block .tok-string').count()) > 0, 'the finished block is coloured');
    assert.equal((await done.locator('p').last().innerText()).trim(), 'Done: the code above is long.');
  });

  test('code blocks and an edit’s diff at the side bar width: no inline-code background, long lines scroll inside (dark and light)', async () => {
    const w = world();
    w.fake.script(
      {
        toolUses: [
          {
            name: 'edit_file',
            input: { path: 'src/skew.js', old_string: 'export const SKEW_MS = 0;', new_string: `export ${LONG_LINE}` },
          },
        ],
      },
      { text: 'Edited.' },
    );
    await w.send('Add the message');
    const card = w.frame.locator('[data-testid="approval"][data-state="pending"]');
    await card.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    for (const theme of ['dark', 'light']) {
      if (theme === 'light') {
        const { chooseLightTheme } = await import('./gestures.mjs');
        await chooseLightTheme(w.page);
      }
      const code = await styleOf(w, '.item.assistant .code-block pre code');
      assert.equal(code.background, 'rgba(0, 0, 0, 0)', `${theme}: a block's code has no background of its own`);
      assert.equal(code.padding, '0px', `${theme}: nor padding`);
      for (const selector of ['.item.assistant .code-block pre', '[data-testid="approval-diff"]']) {
        const pre = await styleOf(w, selector);
        assert.equal(pre.overflowX, 'auto', `${theme}: ${selector} scrolls sideways`);
        assert.equal(pre.whiteSpace, 'pre', `${theme}: ${selector} keeps its lines`);
        assert.ok(pre.scrolls, `${theme}: ${selector}'s long line scrolls inside it`);
        assert.ok(pre.right <= pre.viewport, `${theme}: ${selector} fits the view (${pre.right} > ${pre.viewport})`);
        const scrolled = await w.frame
          .locator(selector)
          .first()
          .evaluate((node) => {
            node.scrollLeft = 80;
            return node.scrollLeft;
          });
        assert.ok(scrolled > 0, `${theme}: ${selector} scrolls sideways on its own`);
        // Its right edge is shaded while the lines go on past it, and not once scrolled to the end.
        const shade = () =>
          w.frame
            .locator(selector)
            .first()
            .evaluate((node) =>
              Number(getComputedStyle(/** @type {Element} */ (node.parentElement), '::after').opacity),
            );
        await eventually(`${theme}: ${selector}'s right edge shaded`, async () => (await shade()) > 0.5);
        await w.frame
          .locator(selector)
          .first()
          .evaluate((node) => (node.scrollLeft = node.scrollWidth));
        await eventually(`${theme}: no shade at the end of ${selector}`, async () => (await shade()) < 0.5);
        await w.frame
          .locator(selector)
          .first()
          .evaluate((node) => (node.scrollLeft = 80));
      }
      const widths = await card
        .locator('[data-testid="approval-diff"] .line')
        .evaluateAll((lines) => lines.map((l) => Math.round(l.getBoundingClientRect().width)));
      assert.equal(
        new Set(widths).size,
        1,
        `${theme}: every diff line is as wide as the longest: ${widths.join(', ')}`,
      );
      await card.scrollIntoViewIfNeeded();
      await card.screenshot({ path: join(SCREENSHOT_DIR, `streaming-markdown-card-${theme}.png`) });
      await w.frame
        .locator('.item.assistant .code-block')
        .first()
        .screenshot({ path: join(SCREENSHOT_DIR, `streaming-markdown-block-${theme}.png`) });
      await screenshot(w.page, `streaming-markdown-diff-${theme}`);
      await w.frame.locator('.item.assistant .code-block').first().scrollIntoViewIfNeeded();
      await screenshot(w.page, `streaming-markdown-code-${theme}`);
    }
    await card.locator('[data-testid="approve"]').click();
    await w.waitForAnswer('Edited.');
    await w.waitIdle();
  });
});
