// `@` mentions in a real VS Code against the fake Anthropic server: typing `@a` in the composer
// lists the workspace's matching files (not node_modules), the keyboard moves through them,
// Enter inserts `@src/a.ts` and attaches the file as a chip with its tokens, and the message
// carries the file's content once as an <attached_file> block before the words; Escape closes
// the picker without inserting; a binary file is refused with a chip that says why.
//   node --import tsx --test test/vscode/mentions.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { eventually, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';

const A_TS = 'export const answer = 42; // MENTIONED-FILE-MARKER\n';

/**
 * @typedef {import('../fake-anthropic/request.ts').ApiRequest} ApiRequest the body of a `/v1/messages` request
 * @typedef {ApiRequest['messages'][number]} MessageParam one message of a request
 */

/**
 * The text blocks of the last user message of the last request, in order.
 * @param {import('./agentHarness.mjs').AgentWorld} w a world that has sent a message
 * @returns {string[]}
 */
function lastUserTexts(w) {
  const body = /** @type {ApiRequest} */ (w.fake.requests.at(-1)?.body);
  const last = /** @type {MessageParam} */ (body.messages.at(-1));
  assert.equal(last.role, 'user');
  /** @type {Exclude<MessageParam['content'], string>} */
  const content = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  return content.filter((b) => b.type === 'text').map((b) => b.text);
}

describe('@ mentions in a real VS Code', { timeout: suiteTimeout(600_000) }, () => {
  /** @type {import('./agentHarness.mjs').AgentWorld | undefined} */
  let w;
  const world = () => {
    assert.ok(w, 'the world started');
    return w;
  };

  before(async () => {
    w = await startAgentWorld({
      workspaceFiles: {
        'src/a.ts': A_TS,
        'src/app.ts': 'export const app = 1;\n',
        'node_modules/pkg/a.ts': 'never offered\n',
        'assets/logo.bin': 'PNG\u0000\u0001\u0002binary',
      },
      // The light theme was looked at too; the picker and chips use the theme's suggest-widget and error colours.
      settings: { 'workbench.colorTheme': 'Default Dark Modern' },
    });
  });
  after(async () => {
    const invalid = w?.fake.invalidRequests.map((r) => r.error) ?? [];
    await w?.close();
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });

  test('@a lists src/a.ts first, Enter attaches it with its tokens, and the message carries its content', async () => {
    const { frame, fake, page } = world();
    const input = frame.getByRole('textbox', { name: 'Message' });
    const picker = frame.getByTestId('mention-picker');
    const options = frame.locator('[data-testid="mention-list"] [role="option"]');
    await input.click();
    await input.pressSequentially('@a');
    await options.first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const paths = await options.evaluateAll((os) => os.map((o) => o.getAttribute('data-path')));
    assert.equal(paths[0], 'src/a.ts', JSON.stringify(paths));
    assert.ok(paths.includes('src/app.ts'), JSON.stringify(paths));
    assert.ok(
      !paths.some((p) => p?.startsWith('node_modules/')),
      `node_modules is never offered: ${JSON.stringify(paths)}`,
    );
    // A listbox the input points into.
    assert.equal(await input.getAttribute('aria-expanded'), 'true');
    assert.equal(await input.getAttribute('aria-activedescendant'), await options.first().getAttribute('id'));
    assert.equal(await options.first().getAttribute('aria-selected'), 'true');
    const { screenshot } = await import('./workbench.mjs');
    await screenshot(page, 'mentions-picker-narrow');

    // Down and up again: the active option follows.
    await input.press('ArrowDown');
    assert.equal(await input.getAttribute('aria-activedescendant'), await options.nth(1).getAttribute('id'));
    await input.press('ArrowUp');
    assert.equal(await input.getAttribute('aria-activedescendant'), await options.first().getAttribute('id'));
    await input.press('Enter');
    await picker.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    assert.equal(await input.inputValue(), '@src/a.ts ', 'the mention is completed, nothing sent');
    assert.equal(fake.requests.length, 0, 'Enter chose the file; it did not send');

    // The chip: the file and its tokens, the exact block on hover.
    const chip = frame.locator('[data-testid="pending-context"] .pending-chip[data-tag="attached_file"]');
    await chip.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match((await chip.innerText()).replace(/\s+/g, ' ').trim(), /^attached src\/a\.ts [\d,]+ tok$/);
    assert.match(
      /** @type {string} */ (await chip.getAttribute('title')),
      /<attached_file>The user attached the file src\/a\.ts:\nexport const answer = 42;/,
    );
    await screenshot(page, 'mentions-chip');

    await input.pressSequentially('what is the answer?');
    fake.script({ text: 'The answer is 42.' });
    await world().send('@src/a.ts what is the answer?');
    await world().waitForAnswer('The answer is 42.');
    await world().waitIdle();
    const texts = lastUserTexts(world());
    const attached = texts.filter((t) => t.startsWith('<attached_file>'));
    assert.equal(attached.length, 1, JSON.stringify(texts));
    assert.equal(attached[0], `<attached_file>The user attached the file src/a.ts:\n${A_TS}\n</attached_file>`);
    assert.equal(texts.at(-1), '@src/a.ts what is the answer?', 'the words come last, after the file');
    // Spent: the chip is gone, and the bubble shows what went with the message.
    await chip.waitFor({ state: 'detached', timeout: UI_TIMEOUT });
    const sentChip = frame.locator('.item.user').last().locator('.chip[data-tag="attached_file"] summary');
    assert.equal((await sentChip.innerText()).trim(), 'attached · src/a.ts');

    // The next message does not carry it again.
    fake.script({ text: 'Still 42.' });
    await world().send('and again?');
    await world().waitForAnswer('Still 42.');
    await world().waitIdle();
    assert.equal(lastUserTexts(world()).filter((t) => t.includes('MENTIONED-FILE-MARKER')).length, 0);
  });

  test('Escape closes the picker without inserting; a binary file is refused with a chip that says why', async () => {
    const { frame, page } = world();
    const input = frame.getByRole('textbox', { name: 'Message' });
    const picker = frame.getByTestId('mention-picker');
    const options = frame.locator('[data-testid="mention-list"] [role="option"]');
    await input.click();
    await input.pressSequentially('see @ap');
    await options.first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await input.press('Escape');
    await picker.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    assert.equal(await input.inputValue(), 'see @ap', 'nothing inserted');
    assert.equal(await input.getAttribute('aria-expanded'), 'false');
    assert.equal(await frame.locator('.pending-chip[data-tag="attached_file"]').count(), 0, 'nothing attached');

    // A click chooses too; the binary file comes back as a refusal.
    await input.fill('');
    await input.pressSequentially('@logo');
    const logo = options.filter({ hasText: 'logo.bin' });
    await logo.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await logo.click();
    assert.equal(await input.inputValue(), '@assets/logo.bin ');
    const refused = frame.locator('.pending-chip.refused');
    await refused.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match(await refused.innerText(), /not attached[\s\S]*assets\/logo\.bin[\s\S]*binary file/);
    const { screenshot, widenSidebar } = await import('./workbench.mjs');
    await screenshot(page, 'mentions-refused');
    await refused.locator('.chip-remove').click();
    await refused.waitFor({ state: 'detached', timeout: UI_TIMEOUT });

    // Wide: the picker again, for the screenshot.
    await widenSidebar(page);
    await input.fill('');
    await input.click();
    await input.pressSequentially('@src');
    await options.first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await eventually('both src files listed', async () => (await options.count()) >= 2);
    await screenshot(page, 'mentions-picker-wide');
    await input.press('Escape');
    await picker.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
  });
});
