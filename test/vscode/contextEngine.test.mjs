// The context engine slot in a real VS Code: a second extension (test/vscode/fixtures/engine-extension,
// linked in beside the packaged one) registers engines through Context Pipeline's public API;
// `contextPipeline.contextEngine` chooses one. Its engine decides what each request carries (the
// session keeps the whole conversation), the budget panel names it, and every request is valid.
// A deliberately broken engine falls back to the built-in layered engine with one notice.
//   node --import tsx --test test/vscode/contextEngine.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { REPO_ROOT } from './setup.mjs';
import { startAgentWorld } from './agentHarness.mjs';
import { budgetFrame } from './budgetFrame.mjs';
import { screenshot } from './workbench.mjs';
import { suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';

const ENGINE_EXTENSION = join(REPO_ROOT, 'test', 'vscode', 'fixtures', 'engine-extension');

/** @typedef {import('./agentHarness.mjs').AgentWorld} AgentWorld */

describe('a context engine from another extension in a real VS Code', { timeout: suiteTimeout(600_000) }, () => {
  /** @type {AgentWorld[]} */
  const worlds = [];
  after(async () => {
    const invalid = worlds.flatMap((w) => w.fake.invalidRequests.map((r) => r.error));
    for (const w of worlds) await w.close();
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });

  test('the chosen engine assembles each request, and the budget panel names it', async () => {
    const w = await startAgentWorld({
      extraExtensions: [ENGINE_EXTENSION],
      settings: { 'contextPipeline.contextEngine': 'test-sliding' },
    });
    worlds.push(w);
    w.fake.script({ text: 'First answer.' });
    await w.send('First message, about apples');
    await w.waitForAnswer('First answer.');
    await w.waitIdle();
    w.fake.script({ text: 'Second answer.' });
    await w.send('Second message, about pears');
    await w.waitForAnswer('Second answer.');
    await w.waitIdle();
    await w.fake.idle();
    assert.equal(w.fake.requests.length, 2);
    const second = JSON.stringify(w.fake.requests[1]?.body);
    assert.ok(second.includes('Second message, about pears'), 'the newest turn was sent');
    assert.ok(!second.includes('First message, about apples'), 'the engine left the older turn out');
    // The chat (the session) still has the whole conversation.
    assert.equal(await w.frame.locator('.item.user', { hasText: 'First message, about apples' }).count(), 1);

    await w.command('Context Pipeline: Show Context Budget');
    const frame = await budgetFrame(w.page);
    await frame
      .locator('header', { hasText: 'engine Newest turn only (test)' })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(await frame.locator('[data-testid="budget-engine-fallback"]').count(), 0);
    await frame
      .locator('[data-testid="budget-forecast"]', { hasText: "the pipeline's own compaction is off" })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await screenshot(w.page, 'context-engine-budget');
  });

  test('a broken engine: the layered engine serves the requests, the chat says so once, the panel says why', async () => {
    const w = await startAgentWorld({
      extraExtensions: [ENGINE_EXTENSION],
      settings: { 'contextPipeline.contextEngine': 'test-broken' },
    });
    worlds.push(w);
    w.fake.script({ text: 'First answer.' }, { text: 'Second answer.' });
    await w.send('First message, about apples');
    await w.waitForAnswer('First answer.');
    await w.waitIdle();
    await w.send('Second message, about pears');
    await w.waitForAnswer('Second answer.');
    await w.waitIdle();
    await w.fake.idle();
    assert.equal(w.fake.requests.length, 2, 'both requests were sent');
    assert.ok(
      JSON.stringify(w.fake.requests[1]?.body).includes('First message, about apples'),
      'the layered engine sent the whole conversation',
    );
    const notices = w.frame.locator('.item.notice', {
      hasText: 'The context engine "Broken engine (test)" could not be used',
    });
    await notices.first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(await notices.count(), 1, 'said once');
    assert.match(await notices.first().innerText(), /deliberately broken/);

    await w.command('Context Pipeline: Show Context Budget');
    const frame = await budgetFrame(w.page);
    const why = frame.locator('[data-testid="budget-engine-fallback"]');
    await why.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match(
      await why.innerText(),
      /its assemble threw: deliberately broken; the layered engine served this request/,
    );
    await screenshot(w.page, 'context-engine-fallback');
  });

  test('an engine that never answers is left behind at the user’s time limit (contextEngineTimeoutSeconds)', async () => {
    const w = await startAgentWorld({
      extraExtensions: [ENGINE_EXTENSION],
      settings: { 'contextPipeline.contextEngine': 'test-silent', 'contextPipeline.contextEngineTimeoutSeconds': 1 },
    });
    worlds.push(w);
    w.fake.script({ text: 'Answered without the engine.' });
    await w.send('A message the silent engine never assembles');
    await w.waitForAnswer('Answered without the engine.');
    await w.waitIdle();
    const notice = w.frame.locator('.item.notice', {
      hasText: 'The context engine "Silent engine (test)" could not be used',
    });
    await notice.first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match(await notice.first().innerText(), /took longer than 1 s/);
  });
});
