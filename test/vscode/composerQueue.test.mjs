// A message sent while a turn runs is queued, not lost: Enter during the turn shows "Queued",
// Escape takes it back, and a queued message goes by itself when the turn ends. The turn is
// held open by an edit waiting for approval, so nothing here depends on timing.
//   node --import tsx --test test/vscode/composerQueue.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { lastUserText } from '../fake-anthropic/request.ts';
import { startAgentWorld } from './agentHarness.mjs';
import { suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';

describe('the composer queues a message sent during a turn', { timeout: suiteTimeout(300_000) }, () => {
  /** @type {import('./agentHarness.mjs').AgentWorld | undefined} */
  let w;
  const world = () => {
    assert.ok(w, 'the world started');
    return w;
  };

  before(async () => {
    w = await startAgentWorld({
      workspaceFiles: { 'src/greet.js': 'export function greet(name) {\n  return `Hello, ${name}!`;\n}\n' },
    });
  });
  after(async () => {
    const invalid = w?.fake.invalidRequests.map((r) => r.error) ?? [];
    await w?.close();
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });

  test('Enter during the turn queues the message, Escape cancels, and a queued message goes when the turn ends', async () => {
    const { fake, frame, page } = world();
    fake.script(
      {
        toolUses: [
          {
            name: 'edit_file',
            input: { path: 'src/greet.js', old_string: 'Hello', new_string: 'Hi' },
          },
        ],
      },
      { text: 'Edited greet.' },
      { text: 'Answer to the queued question.' },
    );
    await world().send('Make greet shorter');
    const card = frame.locator('[data-testid="approval"][data-state="pending"]');
    await card.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const sent = fake.requests.length;
    const input = frame.getByRole('textbox', { name: 'Message' });
    const note = frame.locator('[data-testid="queued-note"]');
    await input.fill('And what does it return now?');
    await input.press('Enter');
    await note.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(await input.inputValue(), 'And what does it return now?', 'the text stays, editable');
    const { screenshot } = await import('./workbench.mjs');
    await screenshot(page, 'composer-queued');
    await input.press('Escape');
    await note.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    await input.press('Enter');
    await note.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(fake.requests.length, sent, 'nothing was sent while the turn runs');
    await card.locator('[data-testid="approve"]').click();
    await world().waitForAnswer('Edited greet.');
    await world().waitForAnswer('Answer to the queued question.');
    await world().waitIdle();
    await fake.idle();
    assert.equal(await note.isHidden(), true, 'the note goes with the message');
    assert.equal(await input.inputValue(), '', 'the composer is empty again');
    assert.match(lastUserText(/** @type {never} */ (fake.requests.at(-1)?.body)), /And what does it return now\?/);
    assert.equal(fake.requests.length, sent + 2, 'the rest of the turn, then the queued message: one request each');
  });
});
