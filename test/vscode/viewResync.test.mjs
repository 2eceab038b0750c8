// The chat view hidden and shown again in the middle of a turn (VS Code disposes a hidden
// webview and builds a new one): the new view shows what the old one did — the answer streamed
// so far, the Stop button, an edit waiting for approval — and the turn goes on into it. The
// answer is held mid-stream by the fake server's stream hold, so nothing depends on timing.
//   node --import tsx --test test/vscode/viewResync.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { eventually, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';
import { screenshot } from './workbench.mjs';

const ANSWER = Array.from(
  { length: 12 },
  (_, i) => `Step ${i + 1} of the explanation: the module reads its input, checks it and writes the result.`,
).join(' ');

describe('the chat view hidden and shown again mid-turn', { timeout: suiteTimeout(300_000) }, () => {
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
    if (w) await screenshot(w.page, 'view-resync-last').catch(() => undefined);
    const invalid = w?.fake.invalidRequests.map((r) => r.error) ?? [];
    await w?.close();
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });

  test('the answer streamed so far comes back, and the rest streams into the new view', async () => {
    const w = world();
    const hold = w.streamHold.holdAfter(14);
    w.fake.script({ text: ANSWER, chunkChars: 8, deltaDelayMs: 1 });
    await w.send('Explain the module');
    await hold.reached;
    // Held after 15 events: message_start, content_block_start, ping and 12 deltas of 8 characters.
    const held = ANSWER.slice(0, 12 * 8).trim();
    const streaming = () => w.frame.locator('.item.assistant.streaming .text');
    /** What the streaming answer shows once every held delta arrived (a condition, not a moment's read). */
    const shows = async (/** @type {string} */ what) => {
      let shown = '';
      await eventually(`the streaming answer to show ${JSON.stringify(what)}`, async () => {
        shown = (await streaming().last().innerText({ timeout: UI_TIMEOUT })).trim();
        return shown === what;
      }).catch(() => assert.fail(`the streaming answer shows ${JSON.stringify(shown)}, not ${JSON.stringify(what)}`));
      assert.equal(await streaming().count(), 1, 'one answer streams');
    };
    await shows(held);
    assert.ok(held.length < ANSWER.length, 'the answer is held mid-way');

    await w.hideAndReopenChat();
    await shows(held);
    await w.frame
      .locator('.composer button.primary.stop')
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT })
      .catch(() => assert.fail('the new view shows Stop while the turn runs'));
    await screenshot(w.page, 'view-resync-mid-answer');

    hold.release();
    await w.waitForAnswer('Step 12 of the explanation');
    await w.waitIdle();
    const answers = await w.frame.locator('.item.assistant .text').allInnerTexts();
    assert.equal(answers.filter((t) => t.includes('Step 1 of')).length, 1, 'the answer shows once');
    assert.equal(answers.at(-1)?.trim(), ANSWER, 'whole, nothing lost or doubled at the seam');
  });

  test('an edit waiting for approval is still there to approve, and the turn goes on', async () => {
    const w = world();
    w.fake.script(
      { toolUses: [{ name: 'edit_file', input: { path: 'src/greet.js', old_string: 'Hello', new_string: 'Hi' } }] },
      { text: 'Greet now says Hi.' },
    );
    await w.send('Make greet shorter');
    const pending = () => w.frame.locator('[data-testid="approval"][data-state="pending"]');
    await pending().waitFor({ state: 'visible', timeout: UI_TIMEOUT });

    await w.hideAndReopenChat();
    await pending()
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT })
      .catch(() => assert.fail('the new view shows the edit waiting for approval'));
    await screenshot(w.page, 'view-resync-approval');
    await pending().locator('[data-testid="approve"]').click();
    await w.waitForAnswer('Greet now says Hi.');
    await w.waitIdle();
    assert.match(readFileSync(join(w.dirs.workspace, 'src/greet.js'), 'utf8'), /Hi, \$\{name\}/);
    assert.equal((await w.frame.locator('.item.tool.done').count()) >= 1, true, 'the edit shows done');
  });
});
