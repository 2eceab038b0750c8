// The API's own context management as strategies, in a real VS Code against the fake Anthropic
// server: with `server-clear-tool-uses` selected, a turn of tool rounds crosses the trigger, the
// request carries `context_management` and its beta header, the server clears old tool
// results and the budget panel's request row shows what it cleared; with `server-compact`,
// the server compacts, the Compactions view lists the compaction with its summary, and the next
// request sends the compaction block back with the compaction beta.
//   node --import tsx --test test/vscode/serverContext.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { budgetFrame } from './budgetFrame.mjs';
import { eventually, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';
/**
 * @typedef {import('./agentHarness.mjs').AgentWorld} AgentWorld
 * @typedef {import('../fake-anthropic/types.ts').RecordedRequest} RecordedRequest
 * @typedef {import('@anthropic-ai/sdk/resources/beta/messages/messages').MessageCreateParamsBase} BetaRequest
 *   the body of a `/v1/messages` request with the beta fields (`context_management`, compaction blocks)
 * @typedef {RecordedRequest & { body: BetaRequest }} BetaMessagesRequest a recorded `/v1/messages` request, its body read
 * @typedef {NonNullable<RecordedRequest['contextManagement']>} ContextManagement
 * @typedef {BetaMessagesRequest & { contextManagement: ContextManagement }} ManagedRequest
 *   a request the server applied its context management to
 */

const CHAT_MODEL = 'claude-sonnet-4-6';
const FILES = 4;
/** @param {number} n */
const big = (n) =>
  Array.from(
    { length: 60 },
    (_, i) => `export const value${n}_${i} = ${i * n}; // line ${i + 1} of module ${n}, long enough to weigh something`,
  ).join('\n') + '\n';
const WORKSPACE = Object.fromEntries(Array.from({ length: FILES }, (_, i) => [`src/m${i + 1}.ts`, big(i + 1)]));
const SUMMARY = 'We read four modules; each exports sixty numbered constants.';

describe(
  'server-side context management in a real VS Code, against the fake Anthropic API',
  { timeout: suiteTimeout(900_000) },
  () => {
    /** @type {AgentWorld} Set in before(); the hooks and tests run after it. */
    let w;
    /** @type {typeof import('./workbench.mjs')} */
    let workbench;

    before(async () => {
      workbench = await import('./workbench.mjs');
      w = await startAgentWorld({
        workspaceFiles: WORKSPACE,
        settings: {
          'contextPipeline.model': CHAT_MODEL,
          'contextPipeline.compactionStrategy': 'server-clear-tool-uses',
          'contextPipeline.serverTriggerTokens': 1000,
          'contextPipeline.serverKeepToolUses': 1,
          // The default minimum (10 % of the window) is more than this small scenario's results:
          // a minimum of one token lets the server clear as soon as the trigger is passed.
          'contextPipeline.clearAtLeastTokens': 1,
          'workbench.colorTheme': 'Default Dark Modern',
        },
      });
    });

    after(async () => {
      if (!w) return;
      await workbench.screenshot(w.page, 'server-context-last').catch(() => undefined);
      const invalid = w.fake.invalidRequests.map((r) => r.error);
      process.stderr.write(
        `[server-context] the fake server received ${w.fake.requests.length} requests, ${invalid.length} invalid\n`,
      );
      await w.close();
      assert.deepEqual(invalid, [], 'every request the extension sent was valid');
    });

    test('server-clear-tool-uses: the server clears old tool results and the budget panel shows it', async () => {
      const before = w.fake.requests.length;
      w.fake.script(
        ...Array.from({ length: FILES }, (_, i) => ({
          text: `Reading module ${i + 1}.`,
          toolUses: [{ name: 'read_file', input: { path: `src/m${i + 1}.ts` } }],
        })),
        { text: 'All four modules read.' },
      );
      await w.send('Read src/m1.ts to src/m4.ts one by one');
      await w.waitForAnswer('All four modules read.');
      await w.waitIdle();
      const reqs = /** @type {readonly BetaMessagesRequest[]} */ (w.fake.requests)
        .slice(before)
        .filter((r) => r.body.model === CHAT_MODEL);
      assert.ok(reqs.length >= FILES + 1, `${reqs.length} requests`);
      for (const r of reqs) {
        assert.ok(r.valid, 'valid');
        assert.match(
          r.headers['anthropic-beta'] ?? '',
          /context-management-2025-06-27/,
          'the context-management beta header',
        );
        assert.equal(r.body.context_management?.edits?.[0]?.type, 'clear_tool_uses_20250919');
      }
      const cleared = reqs.filter((r) => (r.contextManagement?.appliedEdits ?? []).length > 0);
      assert.ok(cleared.length >= 1, 'the server cleared tool results at least once');
      const last = /** @type {ManagedRequest} */ (cleared.at(-1));
      assert.ok(last.contextManagement.tokensBeforeEdits > 0);

      await w.command('Context Pipeline: Show Context Budget');
      const frame = await budgetFrame(w.page);
      const table = frame.locator('[data-testid="requests-table"]');
      await table.locator('tbody tr').first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await eventually('a request row to show what the server cleared', async () =>
        /cleared/i.test(await table.innerText()),
      );
      await workbench.screenshot(w.page, 'server-context-budget');
      await w.page.keyboard.press('Control+W');
    });
  },
);

describe(
  'server compaction in a real VS Code, against the fake Anthropic API',
  { timeout: suiteTimeout(600_000) },
  () => {
    /** @type {AgentWorld} Set in before(); the hooks and tests run after it. */
    let w;
    /** @type {typeof import('./workbench.mjs')} */
    let workbench;

    before(async () => {
      workbench = await import('./workbench.mjs');
      w = await startAgentWorld({
        settings: { 'contextPipeline.model': CHAT_MODEL, 'contextPipeline.compactionStrategy': 'server-compact' },
      });
    });

    after(async () => {
      if (!w) return;
      await workbench.screenshot(w.page, 'server-compact-last').catch(() => undefined);
      const invalid = w.fake.invalidRequests.map((r) => r.error);
      await w.close();
      assert.deepEqual(invalid, [], 'every request the extension sent was valid');
    });

    test('the server compacts: the Compactions view lists it with its summary, and the block goes back with the next request', async () => {
      w.fake.script({ text: 'Continuing after the server compacted.', compaction: { summary: SUMMARY } });
      await w.send('Summarise what we did');
      await w.waitForAnswer('Continuing after the server compacted.');
      await w.waitIdle();
      w.fake.script({ text: 'Second answer after the compaction.' });
      await w.send('And now?');
      await w.waitForAnswer('Second answer after the compaction.');
      await w.waitIdle();
      const reqs = /** @type {readonly BetaMessagesRequest[]} */ (w.fake.requests).filter(
        (r) => r.body.model === CHAT_MODEL,
      );
      assert.match(reqs[0].headers['anthropic-beta'] ?? '', /compact-2026-01-12/, 'the compaction beta header');
      const next = /** @type {BetaMessagesRequest} */ (reqs.at(-1));
      assert.match(next.headers['anthropic-beta'] ?? '', /compact-2026-01-12/);
      const block = next.body.messages
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .find((b) => b.type === 'compaction');
      assert.ok(
        block && /** @type {string} */ (block.content).includes(SUMMARY),
        'the next request sends the compaction block back with its summary',
      );

      const header = workbench.viewHeader(w.page, 'Compactions');
      await header.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
      const pane = w.page
        .locator('.part.sidebar .pane')
        .filter({ has: w.page.locator('.pane-header[aria-label="Compactions Section"]') });
      const row = pane.locator('.monaco-list-row', { hasText: /server/i }).first();
      await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await workbench.screenshot(w.page, 'server-compact-tree');
    });
  },
);
