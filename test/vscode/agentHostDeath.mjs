// The agent suite's extension-host deaths: the host killed mid-turn, and killed while an edit
// waits for approval; after the restart nothing completed is lost and the session goes on with
// requests the API accepts. Registered inside agent.test.mjs's suite, on its world.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UI_TIMEOUT } from './timeouts.mjs';

/**
 * Registers the host-death tests in the current suite.
 * @param {() => import('./agentHarness.mjs').AgentWorld} world the suite's world, started in its before hook
 */
export function hostDeathTests(world) {
  test('killing the extension host mid-turn loses no completed message', async () => {
    const w = world();
    await w.newSession();
    w.fake.script({ text: 'First answer, saved.' });
    await w.send('one');
    await w.waitForAnswer('First answer, saved.');
    // Held far longer than the test; the fake lets go as soon as the killed host's connection closes.
    w.fake.script({ toolUses: [{ name: 'list_files', input: {} }] }, { delayMs: 600_000, text: 'never delivered' });
    await w.send('two');
    await w.frame.locator('.item.tool.done').waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const killed = w.killExtensionHost();
    process.stderr.write(`[agent] killed extension host ${killed.join(', ')}\n`);
    await w.page.reload();
    await w.reopen();
    await w.frame.locator('.item.user', { hasText: 'two' }).waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const users = await w.frame.locator('.item.user .text').allInnerTexts();
    const answers = await w.frame.locator('.item.assistant .text').allInnerTexts();
    assert.deepEqual(users, ['one', 'two']);
    assert.deepEqual(answers, ['First answer, saved.']);
    assert.equal(await w.frame.locator('.item.tool.done').count(), 1, 'the completed tool round is back');
    assert.equal(await w.frame.locator('.item.assistant.silent').count(), 1, 'its tool-only answer keeps its header');
    // The session of this test: the one whose messages include "two" (ids sort by second, so two sessions of one second may tie).
    const latest = w
      .sessionEntries()
      .find((f) =>
        f.entries.some(
          (e) => e.type === 'message' && e.message.blocks.some((b) => b.type === 'text' && b.text === 'two'),
        ),
      );
    assert.ok(latest, 'the session file of this test exists');
    const roles = latest.entries.filter((e) => e.type === 'message').map((e) => e.message.role);
    assert.deepEqual(roles, ['user', 'assistant', 'user', 'assistant', 'user'], 'every completed message is on disk');
    // The conversation goes on from where it stopped, with a history the API accepts.
    w.fake.script({ text: 'Back after the crash.' });
    await w.send('three');
    await w.waitForAnswer('Back after the crash.');
    // The "No answer" stand-in is the extension's quiet notice line, not a Claude message.
    const note = w.frame.locator('.item.notice.stand-in');
    assert.match(await note.innerText(), /^\[No answer/);
    assert.equal(await note.locator('.who').count(), 0, 'no header: the "No answer" note is not Claude\'s');
  });

  test('a session whose host died while its tool round ran goes on: the open call is answered as interrupted', async () => {
    const w = world();
    await w.newSession();
    // An edit waiting for approval: the tool round is running, its call saved, its result not.
    w.fake.script({
      text: 'Editing greet.',
      toolUses: [
        {
          name: 'edit_file',
          input: { path: 'src/greet.js', old_string: 'export function greet', new_string: 'export function hi' },
        },
      ],
    });
    await w.send('Rename greet');
    await w.frame
      .locator('[data-testid="approval"][data-state="pending"]')
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const killed = w.killExtensionHost();
    process.stderr.write(`[agent] killed extension host ${killed.join(', ')} during a tool round\n`);
    await w.page.reload();
    await w.reopen();
    await w.frame.locator('.item.user', { hasText: 'Rename greet' }).waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const before = w.fake.requests.length;
    w.fake.script({ text: 'Picked up after the interrupted edit.' });
    await w.send('Where were we?');
    await w.waitForAnswer('Picked up after the interrupted edit.');
    const sent = /** @type {import('./agentHarness.mjs').SentRequest[]} */ (w.fake.requests)
      .slice(before)
      .filter((r) => r.path === '/v1/messages');
    assert.ok(sent.length > 0 && sent.every((r) => r.valid), 'every request after the restart is valid');
    const last = sent.at(-1)?.body.messages.at(-1);
    assert.ok(last && Array.isArray(last.content));
    const result = last.content.find((b) => b.type === 'tool_result');
    assert.ok(result && result.type === 'tool_result', 'the open call is answered in the next message');
    assert.equal(result.is_error, true);
    assert.match(JSON.stringify(result.content), /the turn ended before this tool returned a result/);
    assert.equal(await w.frame.locator('.item.error').count(), 0, 'no error in the chat');
  });
}
