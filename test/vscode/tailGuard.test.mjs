// A session resumed in a much smaller window, in a real VS Code: a turn that wrote a ~20k-token
// file with write_file and stopped there, resumed with a 24k-token window. Before the tail
// guard every request of it was "prompt is too long"; the tail guard then cut the call's input.
// Now the next message puts a stand-in answer after that round, so the round is no longer the
// newest, and a message past twice the protected tail's budget is not protected for the
// budget's sake (regions.ts): it is summarised like any older round. The next message must go
// through, the summary must stand after the user's words, and the Compactions view must list
// the record with the original; the record keeps the whole input. (The tail guard's own e2e,
// where the newest message itself outgrows the window, is pastedWords.test.mjs.)
//   npm run package && node --import tsx --test test/vscode/tailGuard.test.mjs
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { closeWorld, startResumedWorld } from './agentHarness.mjs';
import { ui } from './longTurnScenario.mjs';
import { sessionBuilder } from './sessionFiles.mjs';
import { suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';

const WINDOW = 24_000;
const CHAT_MODEL = 'claude-sonnet-4-6';
const PATH = 'src/generated/all.ts';
/** About 20 000 tokens of distinct code: more than a 24k window leaves beside an answer's reserve. */
const CONTENT = Array.from(
  { length: 1_100 },
  (_, i) => `export function step${i}(a: number): number { return a * ${i}; }`,
).join('\n');

/**
 * @typedef {import('../fake-anthropic/request.ts').ApiRequest} ApiRequest the body of a `/v1/messages` request
 * @typedef {import('../../src/core/session/entries.ts').CompactionEntry} CompactionEntry
 */

/** The session file, built with the extension's own code: the request, the write, its result. */
async function buildWriteSession() {
  const s = await sessionBuilder('tail');
  s.user({ userText: `Generate ${PATH} with one step function per case.` });
  s.assistant([
    { type: 'text', text: 'Writing the whole module. WRITE-STARTED' },
    { type: 'tool_use', id: 'toolu_write01', name: 'write_file', input: { path: PATH, content: CONTENT } },
  ]);
  s.user({ toolResults: [{ toolUseId: 'toolu_write01', content: `Wrote ${CONTENT.length} characters to ${PATH}.` }] });
  return s.file(CHAT_MODEL);
}

describe(
  'a resumed session whose last round outgrows a smaller window, in a real VS Code',
  { timeout: suiteTimeout(600_000) },
  () => {
    /** @type {import('./agentHarness.mjs').AgentWorld} */
    let world;
    /** @type {string} */
    let sessions;
    /** @type {Awaited<ReturnType<typeof buildWriteSession>>} */
    let session;
    /** @type {typeof import('./workbench.mjs')} */
    let workbench;
    before(async () => {
      workbench = await import('./workbench.mjs');
      session = await buildWriteSession();
      ({ world, sessions } = await startResumedWorld(session, {
        window: WINDOW,
        workspaceFiles: { 'README.md': '# Generated\n' },
      }));
      await workbench.widenSidebar(world.page);
    });

    after(() => closeWorld(world, 'tail-guard-last'));

    test('the next message goes through with the written round summarised; the chat and the Compactions view show it', async () => {
      await workbench.openContextPipeline(world.page);
      await world.refindFrame();
      const f = world.frame;
      await f
        .locator('.item.assistant', { hasText: 'WRITE-STARTED' })
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      world.fake.script({ match: { model: CHAT_MODEL }, text: `${PATH} is written. TAIL-OK` });
      await world.send('Is the module complete?');
      await world.waitForAnswer('TAIL-OK', UI_TIMEOUT);
      await world.waitIdle();

      assert.deepEqual(
        world.fake.invalidRequests.map((r) => r.error),
        [],
        'no request was refused',
      );
      const chat = /** @type {import('./agentHarness.mjs').SentRequest[]} */ (world.fake.requests).filter(
        (r) => r.path === '/v1/messages' && r.body?.model === CHAT_MODEL,
      );
      const body = /** @type {ApiRequest} */ (chat.at(-1)?.body);
      const sent = JSON.stringify(body.messages);
      assert.ok(!sent.includes('export function step0('), 'the written file is no longer in the request');
      assert.ok(
        sent.indexOf('Generate src/generated/all.ts') < sent.indexOf('conversation_summary'),
        "the user's words stand before the summary",
      );

      const card = f.locator('.summary-card').first();
      await card.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await workbench.screenshot(world.page, 'tail-guard-chat');

      // The record, with the original, in the session file and in the Compactions view.
      const stored = readFileSync(join(sessions, session.file), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const record = /** @type {CompactionEntry | undefined} */ (stored.find((e) => e.type === 'compaction'));
      assert.ok(record, 'a compaction record was saved');
      assert.equal(record.layer, 'summarise');
      const original = record.originals.flatMap((m) => m.blocks).find((b) => b.type === 'tool_use');
      assert.equal(
        /** @type {{ content?: string }} */ (original?.type === 'tool_use' ? original.input : {}).content,
        CONTENT,
        'the record keeps the whole input',
      );
      const u = ui(world, workbench);
      const pane = await u.compactionsPane();
      await u.enlargeCompactions();
      const row = u.recordRow(pane, record);
      await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      assert.match(await row.locator('.label-name').innerText(), /^Auto \(hard\) · /);
      // The turn's only automatic compaction stands on its own (no group), under it the summary
      // and the replaced turns in plain words; the write's original named by its call.
      assert.equal(
        await pane.locator('.monaco-list-row[aria-level="2"]').count(),
        1,
        'the compaction is the only row under the session',
      );
      await u.setExpanded(row, true);
      const children = pane.locator('.monaco-list-row[aria-level="3"]');
      await children
        .filter({ has: world.page.locator('.label-name', { hasText: /^Summary$/ }) })
        .first()
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      const region = children.filter({ has: world.page.locator('.label-name', { hasText: /^Turns? \d/ }) }).first();
      await u.setExpanded(region, true);
      await pane
        .locator('.monaco-list-row[aria-level="4"]')
        .filter({ has: world.page.locator('.label-name', { hasText: `write_file ${PATH}` }) })
        .first()
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await workbench.screenshot(world.page, 'tail-guard-tree');
    });
  },
);
