// Choose Model in a real VS Code: a click on the model's name in the chat header opens a quick
// pick of the models the fake server's Models API lists (GET /v1/models), each with its window,
// prices and what a switch would mean for the open conversation; choosing one saves it to the
// user's settings, the header follows, and the next message goes to that model.
//   node --import tsx --test test/vscode/chooseModel.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { readUserSettings } from './codeServer.mjs';
import { eventually, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';

const START_MODEL = 'claude-sonnet-4-6';
const CHOSEN = 'claude-opus-4-6';

describe('Choose Model in a real VS Code', { timeout: suiteTimeout(300_000) }, () => {
  /** @type {import('./agentHarness.mjs').AgentWorld | undefined} */
  let w;
  const world = () => {
    assert.ok(w, 'the world started');
    return w;
  };

  before(async () => {
    w = await startAgentWorld({
      workspaceFiles: { 'src/greet.js': 'export function greet(name) {\n  return `Hello, ${name}!`;\n}\n' },
      settings: { 'contextPipeline.model': START_MODEL },
    });
  });
  after(async () => {
    if (w) {
      const { screenshot } = await import('./workbench.mjs');
      await screenshot(w.page, 'choose-model-last').catch(() => undefined);
    }
    const invalid = (w?.fake.invalidRequests ?? []).map((r) => r.error);
    await w?.close();
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });

  test('the header names the model; a first message goes to it', async () => {
    const { fake, frame } = world();
    const name = frame.locator('.header button.model');
    await eventually('the header to name the model', async () => (await name.innerText()) === START_MODEL);
    fake.script({ text: 'greet() returns a greeting for the name it is given.' });
    await world().send('What does greet do?');
    await world().waitForAnswer('greet() returns a greeting');
    await world().waitIdle();
    const first = fake.requests.at(-1);
    assert.ok(first, 'a request was recorded');
    assert.equal(/** @type {{ model: string }} */ (first.body).model, START_MODEL);
  });

  test("a click on the model's name lists the API's models with their window, prices and what a switch means", async () => {
    const { page, frame } = world();
    await frame.locator('.header button.model').click();
    const widget = page.locator('.quick-input-widget');
    const box = widget.locator('input');
    await box.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    // The fake's own model is on the API's list only: once it shows with a window, the list came from the API.
    await box.fill('fake-claude');
    const row = (/** @type {string} */ id) =>
      widget
        .locator('.quick-input-list .monaco-list-row', { has: page.locator('.label-name', { hasText: id }) })
        .first();
    await eventually('the Models API list to arrive', async () =>
      /200k window · price unknown/.test(
        await row('fake-claude')
          .innerText()
          .catch(() => ''),
      ),
    );
    await box.fill(CHOSEN);
    const opus = row(CHOSEN);
    await opus.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const text = (await opus.innerText()).replace(/\s+/g, ' ');
    assert.match(text, /200k window · \$5 \/ \$25 per MTok/, 'the window the API reports and the table price');
    assert.match(
      text,
      /Fills \d+ % of its window \(≈ [\d,]+ tokens\) · cache starts over: ≈ \$\d+\.\d\d to write it again/,
      'what switching means for this conversation',
    );
    const { screenshot } = await import('./workbench.mjs');
    await screenshot(page, 'choose-model');
    assert.ok((await opus.getAttribute('class'))?.includes('focused'), 'the filtered row is the active one');
    await page.keyboard.press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
  });

  test('the choice is saved to the user settings, the header follows, and the next message goes to it', async () => {
    const { fake, frame, dirs } = world();
    await eventually(
      'the model saved to the user settings',
      () => readUserSettings(dirs.userData)['contextPipeline.model'] === CHOSEN,
    );
    await eventually(
      'the header to name the new model',
      async () => (await frame.locator('.header button.model').innerText()) === CHOSEN,
    );
    fake.script({ text: 'Answered by the new model.' });
    await world().send('And now?');
    await world().waitForAnswer('Answered by the new model.');
    await world().waitIdle();
    const last = fake.requests.at(-1);
    assert.ok(last, 'a request was recorded');
    const body = /** @type {{ model: string, messages: unknown[] }} */ (last.body);
    assert.equal(body.model, CHOSEN);
    assert.ok(JSON.stringify(body.messages).includes('What does greet do?'), 'the conversation went along');
  });
});
