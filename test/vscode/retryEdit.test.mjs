// Retry on the last answer and Edit-and-resend of the last message, through the chat's hover
// actions: Retry asks the same message again and the new answer replaces the first; Edit puts
// the words back in the composer ("Editing your last message"), and what is sent in its place
// goes instead of the old words. Each rewind is a record in the session file.
//   CP_SKIP_PACKAGE=1 node --import tsx --test test/vscode/retryEdit.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { lastUserText } from '../fake-anthropic/request.ts';
import { startAgentWorld } from './agentHarness.mjs';
import { eventually, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';

describe('Retry and Edit of the last turn', { timeout: suiteTimeout(300_000) }, () => {
  /** @type {import('./agentHarness.mjs').AgentWorld | undefined} */
  let w;
  const world = () => {
    assert.ok(w, 'the world started');
    return w;
  };

  before(async () => {
    w = await startAgentWorld({});
  });
  after(async () => {
    const invalid = w?.fake.invalidRequests.map((r) => r.error) ?? [];
    await w?.close();
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });

  test('Retry replaces the answer; Edit sends the changed words instead of the old ones', async () => {
    const { fake, frame, page } = world();
    fake.script({ text: 'The first answer.' }, { text: 'The second answer.' }, { text: 'The answer to the edit.' });
    await world().send('What is the capital of France?');
    await world().waitForAnswer('The first answer.');
    await world().waitIdle();

    // Retry: on the answer's hover actions, next to Copy.
    const answer = frame.locator('.item.assistant', { hasText: 'The first answer.' });
    await answer.hover();
    const { screenshot } = await import('./workbench.mjs');
    await screenshot(page, 'retry-hover');
    await answer.getByTestId('retry-last').click();
    await world().waitForAnswer('The second answer.');
    await world().waitIdle();
    await eventually(
      'the first answer to leave the chat',
      async () => (await frame.locator('.item.assistant', { hasText: 'The first answer.' }).count()) === 0,
    );
    await fake.idle();
    assert.equal(fake.requests.length, 2);
    assert.deepEqual(
      fake.requests.map((r) => lastUserText(/** @type {never} */ (r.body))),
      ['What is the capital of France?', 'What is the capital of France?'],
      'the same message was asked twice',
    );
    const second = /** @type {{ messages: Array<{ role: string }> }} */ (fake.requests[1]?.body);
    assert.equal(second.messages.length, 1, 'the first answer is not in the retried request');

    // Edit: the words go back to the composer, changed, sent in place of the old message.
    const mine = frame.locator('.item.user', { hasText: 'What is the capital of France?' });
    await mine.hover();
    await mine.getByTestId('edit-last').click();
    const input = frame.getByRole('textbox', { name: 'Message' });
    const note = frame.getByTestId('editing-note');
    await note.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match(await note.innerText(), /Editing your last message/);
    assert.equal(await input.inputValue(), 'What is the capital of France?', 'the composer holds the words');
    await screenshot(page, 'composer-editing');
    // Cancel puts back what the composer held (here: nothing), then Edit again.
    await note.getByRole('button', { name: 'Cancel' }).click();
    await note.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    assert.equal(await input.inputValue(), '', 'Cancel restores the composer');
    await mine.hover();
    await mine.getByTestId('edit-last').click();
    await note.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await input.fill('What is the capital of Italy?');
    await input.press('Enter');
    await world().waitForAnswer('The answer to the edit.');
    await world().waitIdle();
    await fake.idle();
    assert.equal(await note.isHidden(), true, 'editing ends with the send');
    const last = /** @type {never} */ (fake.requests.at(-1)?.body);
    assert.equal(lastUserText(last), 'What is the capital of Italy?');
    assert.ok(!JSON.stringify(last).includes('France'), 'the old words are not in the request');
    assert.equal(await frame.locator('.item.user').count(), 1, 'one message of yours: the edited one');
    assert.equal(
      await frame.locator('.item.user', { hasText: 'What is the capital of France?' }).count(),
      0,
      'the old message left the chat',
    );
    // The session file holds both rewinds as records (kept, restorable).
    const files = world().sessionEntries();
    assert.equal(files.length, 1, 'one session file');
    const kinds = (files[0]?.entries ?? []).flatMap((e) =>
      e.type === 'compaction' && e.layer === 'rewind' ? [e.strategy] : [],
    );
    assert.deepEqual(kinds, ['retry', 'edit']);
  });
});
