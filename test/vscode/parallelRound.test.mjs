// One round of 8 parallel read_file calls whose results together are more than a 24k window
// leaves for them, in a real VS Code against the fake Anthropic server: the round guard saves
// the largest to files so the next request fits. Before it, the turn ended with "prompt is too
// long" (compaction can never shrink the newest round). Every request must be valid.
//   node esbuild.mjs && npm run package && node test/vscode/setup.mjs
//   node --import tsx --test --test-concurrency=1 test/vscode/parallelRound.test.mjs
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';
import { CHAT_MODEL, modulePath, moduleSource, TURN_TIMEOUT, WINDOW } from './longTurnScenario.mjs';

/**
 * @typedef {import('./agentHarness.mjs').SentRequest} SentRequest
 * @typedef {import('./longTurnScenario.mjs').BlockMessage} BlockMessage
 * @typedef {import('@anthropic-ai/sdk/resources/messages').ToolResultBlockParam} ToolResultBlockParam
 * @typedef {import('@anthropic-ai/sdk/resources/messages').ToolUseBlockParam} ToolUseBlockParam
 */

const FILES = 8;
const WORKSPACE = Object.fromEntries(Array.from({ length: FILES }, (_, i) => [modulePath(i + 1), moduleSource(i + 1)]));
const REQUEST = `Read the ${FILES} modules under src/ at once and tell me what they share.`;
const FINAL = `All ${FILES} modules multiply the input by the step number before adding the module number.`;

describe('a round of parallel calls larger than the window', { timeout: suiteTimeout(600_000) }, () => {
  /** @type {import('./agentHarness.mjs').AgentWorld} */
  let w;
  /** @type {typeof import('./workbench.mjs')} */
  let workbench;

  before(async () => {
    workbench = await import('./workbench.mjs');
    w = await startAgentWorld({
      workspaceFiles: WORKSPACE,
      fakeWindow: WINDOW,
      settings: { 'contextPipeline.contextWindow': WINDOW },
    });
    await workbench.widenSidebar(w.page);
  });

  after(async () => {
    if (!w) return;
    await workbench.screenshot(w.page, 'parallel-round-last').catch(() => undefined);
    const invalid = w.fake.invalidRequests.map((r) => r.error);
    await w.close();
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });

  test(`${FILES} parallel reads complete with the largest results saved to files, and the chat says so`, async () => {
    w.fake.script(
      {
        match: { model: CHAT_MODEL },
        text: `Reading all ${FILES} modules at once.`,
        toolUses: Array.from({ length: FILES }, (_, i) => ({ name: 'read_file', input: { path: modulePath(i + 1) } })),
      },
      { match: { model: CHAT_MODEL }, text: FINAL },
    );
    const first = w.fake.requests.length;
    await w.send(REQUEST);
    const error = w.frame.locator('.item.error').first();
    const failed = error.waitFor({ state: 'attached', timeout: TURN_TIMEOUT }).then(
      async () => `the turn ended with: ${await error.innerText()}`,
      () => undefined,
    );
    const why = await Promise.race([
      w.waitForAnswer('All 8 modules multiply', TURN_TIMEOUT).then(() => undefined),
      failed,
    ]);
    if (why) assert.fail(why);
    await w.waitIdle();

    const reqs = /** @type {SentRequest[]} */ (w.fake.requests.slice(first));
    const chat = reqs.filter((r) => r.body?.model === CHAT_MODEL);
    const [toolsMessage, resultsMessage] = /** @type {BlockMessage[]} */ (chat[1].body.messages.slice(-2));
    assert.equal(chat.length, 2, 'the calls, then the answer: no retry after a refusal');
    const results = resultsMessage.content.filter(
      /** @returns {b is ToolResultBlockParam} */ (b) => b.type === 'tool_result',
    );
    assert.equal(results.length, FILES);
    const spilled = results.filter((b) =>
      /is not shown inline because this round's 8 tool results together/.test(JSON.stringify(b.content)),
    );
    assert.ok(spilled.length >= 1, 'results were saved to files');
    for (const b of spilled) {
      const path = /saved in full to (\S+?\.txt)\./.exec(JSON.stringify(b.content))?.[1];
      assert.ok(path && existsSync(path), `the spill file ${path} exists`);
      assert.match(readFileSync(path, 'utf8'), /export function mod\d\dStep1\(/, 'it holds the module');
    }
    assert.ok(
      chat[1].inputTokens + chat[1].body.max_tokens <= WINDOW,
      `the request fits: ${chat[1].inputTokens} tokens`,
    );

    const notice = w.frame.locator('.item.notice', { hasText: "This tool round's 8 results came to about" });
    await notice.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match(await notice.innerText(), /\d results? saved to files \(a preview and the path stay\)/);
    // The card of a saved result shows what the model saw: the notice, the path and the preview.
    const calls = toolsMessage.content.filter(/** @returns {b is ToolUseBlockParam} */ (b) => b.type === 'tool_use');
    const input = /** @type {{ path?: string } | undefined} */ (
      calls.find((c) => c.id === spilled[0]?.tool_use_id)?.input
    );
    const path = input?.path;
    assert.ok(path, 'the call of a saved result');
    const card = w.frame.locator('.item.tool', { hasText: path }).first();
    await card.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const row = await card.locator('summary').innerText();
    assert.match(row, /^Read \S+ ✓ · saved to a file · \d+ ms · [\d,]+ tokens$/);
    assert.ok(row.startsWith(`Read ${path} ✓`), `the row names the file read: ${row}`);
    await card.locator('summary').click();
    await card
      .locator('pre', { hasText: 'is not shown inline because' })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await w.page.mouse.move(10, 890);
    await workbench.screenshot(w.page, 'parallel-round');
  });
});
