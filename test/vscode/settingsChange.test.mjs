// Settings changed mid-session, the way a user changes them, reach the next request in a real
// VS Code: with the chat open, the Settings UI (User tab) sets `contextPipeline.maxToolRounds`
// from 25 to 1 and then `contextPipeline.baseUrl` from fake server A to fake server B, both
// saved to the user's settings.json. Once the header shows B, the next message goes to B only,
// and a turn that keeps asking for tools stops after 1 tool round.
//   node --import tsx --test test/vscode/settingsChange.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { lastUserText } from '../fake-anthropic/request.ts';
import { startAgentWorld } from './agentHarness.mjs';
import { readUserSettings } from './codeServer.mjs';
import { eventually, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';

/**
 * @typedef {import('../fake-anthropic/index.ts').FakeAnthropic} FakeAnthropic
 * @typedef {import('../fake-anthropic/types.ts').RecordedRequest} RecordedRequest
 * @typedef {import('../fake-anthropic/request.ts').ApiRequest} ApiRequest
 */

/**
 * The text of the last user message a recorded request carried.
 * @param {RecordedRequest | undefined} r
 */
function userTextOf(r) {
  assert.ok(r, 'a request was recorded');
  return lastUserText(/** @type {ApiRequest} */ (r.body));
}

/**
 * Finds a user setting in the Settings UI as a person does: Preferences: Open User Settings
 * (unless open), the User tab, `@id:<key>` in the search box. Returns the setting's row.
 * @param {import('./agentHarness.mjs').AgentWorld} w
 * @param {string} key
 */
async function findUserSetting(w, key) {
  const editor = w.page.locator('.settings-editor');
  if (!(await editor.isVisible())) {
    await w.command('Preferences: Open User Settings');
    await editor.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
  }
  await editor.locator('.settings-tabs-widget .action-label[aria-label="User"]').click();
  await editor.locator('.settings-header .suggest-input-container').click();
  await w.page.keyboard.press('ControlOrMeta+A');
  await w.page.keyboard.type(`@id:${key}`);
  return editor.locator(`.setting-item-contents[data-key="${key}"]`);
}

/**
 * Changes a user setting in the Settings UI: a text or number is typed into its input, a
 * boolean ticks or unticks its checkbox. Resolves once VS Code has saved it to the user's
 * settings.json.
 * @param {import('./agentHarness.mjs').AgentWorld} w
 * @param {string} key
 * @param {string | number | boolean} value
 */
async function setUserSetting(w, key, value) {
  const row = await findUserSetting(w, key);
  if (typeof value === 'boolean') {
    const box = row.locator('[role="checkbox"]').first();
    await box.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    if ((await box.getAttribute('aria-checked')) !== String(value)) await box.click();
  } else await row.locator('input.setting-control-focus-target').fill(String(value));
  await eventually(`${key} saved to the user settings`, () => readUserSettings(w.dirs.userData)[key] === value);
}

/**
 * Closes the Settings editor (in VS Code 1.139 a modal over the workbench, chat included).
 * @param {import('./agentHarness.mjs').AgentWorld} w
 */
async function closeSettings(w) {
  await w.page.locator('.monaco-modal-editor-block .action-label[aria-label^="Close Modal Editor"]').click();
  await w.page.locator('.settings-editor').waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
}

describe('settings changed mid-session in a real VS Code', { timeout: suiteTimeout(600_000) }, () => {
  /** @type {import('./agentHarness.mjs').AgentWorld | undefined} */
  let w;
  /** @type {FakeAnthropic | undefined} */
  let b;
  /** Requests server A had received when the settings were changed. */
  let aBefore = 0;

  /** The endpoint badge's accessible name (it carries the base URL's origin). */
  const endpointLabel = async () =>
    (await world().frame.locator('[data-testid="base-url"]').getAttribute('aria-label', { timeout: UI_TIMEOUT })) ?? '';
  const world = () => {
    assert.ok(w, 'the world started');
    return w;
  };
  const serverB = () => {
    assert.ok(b, 'server B started');
    return b;
  };

  before(async () => {
    w = await startAgentWorld({
      workspaceFiles: { 'src/greet.js': 'export function greet(name) {\n  return `Hello, ${name}!`;\n}\n' },
    });
    const { startFakeAnthropic } = await import('../fake-anthropic/index.ts');
    b = await startFakeAnthropic({ port: 0 });
  });
  after(async () => {
    /** @type {unknown[]} whatever the closes rejected with */
    const errors = [];
    if (w) {
      const { screenshot } = await import('./workbench.mjs');
      await screenshot(w.page, 'settings-change-last').catch(() => undefined);
    }
    const invalid = [...(w?.fake.invalidRequests ?? []), ...(b?.invalidRequests ?? [])].map((r) => r.error);
    await w?.close().catch((e) => errors.push(e));
    await b?.close().catch((e) => errors.push(e));
    assert.deepEqual(errors, [], 'cleanup');
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });

  test('before the change: server A answers, and a turn may run more than one tool round', async () => {
    const { fake: a, frame } = world();
    assert.match(await endpointLabel(), new RegExp(`127\\.0\\.0\\.1:${a.port}\\b`), 'the header names server A');
    a.script(
      { toolUses: [{ name: 'list_files', input: { path: 'src' } }] },
      { toolUses: [{ name: 'read_file', input: { path: 'src/greet.js' } }] },
      { text: 'Answer from server A after two tool rounds.' },
    );
    await world().send('First message, to A');
    await world().waitForAnswer('Answer from server A after two tool rounds.');
    await world().waitIdle();
    await a.idle();
    assert.equal(a.requests.length, 3, 'A got the first request and one per tool round (the limit is 25)');
    assert.match(userTextOf(a.requests[0]), /First message, to A/);
    assert.equal(await frame.locator('.item.tool.done').count(), 2);
    assert.equal(serverB().requests.length, 0);
  });

  test('maxToolRounds and baseUrl changed in the Settings UI: the header shows B and the next message goes to B only', async () => {
    const { fake: a } = world();
    const bUrl = serverB().url;
    aBefore = a.requests.length;
    // The limit first, then the URL: the header follows the extension host's configuration, so
    // once it names B the host has every change saved before it too.
    await setUserSetting(world(), 'contextPipeline.maxToolRounds', 1);
    await setUserSetting(world(), 'contextPipeline.baseUrl', bUrl);
    await closeSettings(world());
    await eventually(`the header to name ${bUrl}`, async () =>
      new RegExp(`127\\.0\\.0\\.1:${serverB().port}\\b`).test(await endpointLabel()),
    );
    serverB().script({ text: 'Answer from server B.' });
    await world().send('Second message, to B');
    await world().waitForAnswer('Answer from server B.');
    await world().waitIdle();
    await serverB().idle();
    await a.idle();
    assert.equal(serverB().requests.length, 1, 'B got exactly one request');
    assert.match(userTextOf(serverB().requests[0]), /Second message, to B/);
    // The conversation so far went along: B saw the first message too.
    assert.ok(
      JSON.stringify(serverB().requests[0].body).includes('First message, to A'),
      'B got the whole conversation',
    );
    assert.equal(a.requests.length, aBefore, 'A got nothing new');
  });

  test('maxToolRounds 1: a turn that keeps asking for tools stops after one tool round', async () => {
    const { fake: a, frame } = world();
    const sent = serverB().requests.length;
    // Every answer asks for another tool; only the limit can end this turn. The ids are B's own:
    // each fake server numbers its tool calls from 1, so B's default ids would repeat A's, which
    // the extension refuses (the real API never repeats one).
    serverB().script(
      { toolUses: [{ id: 'toolu_01ServerB0000000000001', name: 'list_files', input: { path: 'src' } }] },
      { toolUses: [{ id: 'toolu_01ServerB0000000000002', name: 'read_file', input: { path: 'src/greet.js' } }] },
    );
    const toolsBefore = await frame.locator('.item.tool.done').count();
    await world().send('Third message, keep using tools');
    await frame
      .locator('.item.notice', { hasText: 'Stopped after 1 tool round in one turn' })
      .first()
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await world().waitIdle();
    await serverB().idle();
    // Round 1's request is answered with a tool call, the tool runs, and the loop stops
    // before round 2's request: one request for this turn, the second step never used.
    assert.equal(serverB().requests.length - sent, 1, 'B got one request for this turn');
    assert.match(userTextOf(serverB().requests.at(-1)), /Third message, keep using tools/);
    assert.equal(serverB().pendingSteps, 1, 'the second tool call was never asked for');
    assert.equal(await frame.locator('.item.tool.done').count(), toolsBefore + 1, 'the one tool round ran');
    assert.equal(a.requests.length, aBefore, 'A still got nothing new');
  });

  test('workspaceFacts unticked in the Settings UI: the chat says the project context changed, and the next request has no facts', async () => {
    const { frame } = world();
    // The block's closing tag: the static prompt names the block too.
    const factsIn = (/** @type {{ body: unknown } | undefined} */ r) =>
      JSON.stringify(r?.body ?? {}).includes('</workspace_facts>');
    assert.ok(factsIn(serverB().requests.at(-1)), 'the requests so far carried the workspace facts');
    await setUserSetting(world(), 'contextPipeline.workspaceFacts', false);
    await closeSettings(world());
    await frame
      .locator('.item.notice', {
        hasText: 'Project context reloaded: instruction files unchanged; workspace facts changed.',
      })
      .first()
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const sent = serverB().requests.length;
    // B still holds the tool call the previous turn never asked for: it answers this message,
    // and the one-round limit ends the turn again.
    assert.equal(serverB().pendingSteps, 1);
    const stops = frame.locator('.item.notice', { hasText: 'Stopped after 1 tool round in one turn' });
    const stopsBefore = await stops.count();
    await world().send('Fourth message, no facts');
    await eventually('the turn to stop at the tool-round limit', async () => (await stops.count()) > stopsBefore);
    await world().waitIdle();
    await serverB().idle();
    assert.equal(serverB().requests.length - sent, 1);
    assert.ok(!factsIn(serverB().requests.at(-1)), 'the workspace facts block is gone from the system prompt');
  });
});
