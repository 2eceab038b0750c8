// A session whose newest messages alone outgrow the window, in a real VS Code: a turn that
// wrote a ~20k-token file with write_file and stopped there (the call and its result are the
// newest round, which no compaction touches), resumed with a 24k-token window. Before the tail
// guard every request of it was "prompt is too long". The next message must go through with
// the call's input cut in the middle (the note says so), the chat must say what was done, and
// the Compactions view must list the record with the original; the session file keeps it whole.
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
  'a resumed session whose newest round outgrows the window, in a real VS Code',
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

    test('the next message goes through with the call’s input cut; the chat and the Compactions view say so', async () => {
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

      const chat = /** @type {import('./agentHarness.mjs').SentRequest[]} */ (world.fake.requests).filter(
        (r) => r.path === '/v1/messages' && r.body?.model === CHAT_MODEL,
      );
      assert.equal(chat.length, 1, 'one request, not refused and sent again');
      const body = /** @type {ApiRequest} */ (chat[0]?.body);
      const sent = JSON.stringify(body.messages);
      assert.match(
        sent,
        /characters of this input left out so the request fits the context window; the call ran with the whole text/,
      );
      assert.ok(sent.includes(`"path":"${PATH}"`), 'the call keeps its path');

      const notice = f.locator('.item.notice', {
        hasText: 'The newest messages alone were more than the context window leaves',
      });
      await notice.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      assert.match(
        await notice.innerText(),
        /one large block \(a tool call's input or an answer\) cut in the middle, about [\d,]+ tokens freed/,
      );
      await workbench.screenshot(world.page, 'tail-guard-chat');

      // The record, with the original, in the session file and in the Compactions view.
      const stored = readFileSync(join(sessions, session.file), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const record = /** @type {CompactionEntry | undefined} */ (stored.find((e) => e.type === 'compaction'));
      assert.ok(record, 'a compaction record was saved');
      assert.equal(record.layer, 'tail-guard');
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
      await u.setExpanded(row, true);
      const region = pane.locator('.monaco-list-row[aria-level="3"]').first();
      await region.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await workbench.screenshot(world.page, 'tail-guard-tree');
    });
  },
);
