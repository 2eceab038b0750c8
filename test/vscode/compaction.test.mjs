// Explicit, reversible compaction in a real VS Code against the fake Anthropic server, through
// the UI: three turns of chat, "Context Pipeline: Compact Now" from the command palette (its
// preview in the input box, instructions for the summariser), the re-rendered transcript, the
// Compactions tree (summary, replaced turns, an original message opened read-only), then
// Restore from the tree's context menu, after which the next request carries the whole
// original history again. Every request the fake server received must be valid.
//   node --import tsx --test test/vscode/compaction.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { compactionsPane, enlargeCompactions, expand, row } from './compactionsPane.mjs';
import {
  A1,
  A1_HEAD,
  A2,
  A2_HEAD,
  A3,
  A3_HEAD,
  CHAT_MODEL,
  COMPACTION_WORLD,
  Q1,
  Q2,
  Q3,
  SUMMARISER,
  SUMMARY,
  threeTurns,
} from './compactionScenario.mjs';
import { eventually as poll, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';
/**
 * @typedef {import('./agentHarness.mjs').AgentWorld} AgentWorld
 * @typedef {import('../fake-anthropic/types.ts').RecordedRequest} RecordedRequest
 * @typedef {import('../fake-anthropic/request.ts').ApiRequest} ApiRequest the body of a `/v1/messages` request
 * @typedef {RecordedRequest & { body: ApiRequest }} MessagesRequest a recorded `/v1/messages` request, its body read
 * @typedef {import('playwright-core').Locator} Locator
 * @typedef {{ x: number, y: number, width: number, height: number }} Box a bounding box (one that exists)
 */
const INSTRUCTIONS = 'focus on the auth bug';

/**
 * All text of a request's messages (text blocks of every message), joined.
 * @param {RecordedRequest} req
 */
function requestText(req) {
  return /** @type {ApiRequest} */ (req.body).messages
    .flatMap((m) =>
      typeof m.content === 'string' ? [m.content] : m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])),
    )
    .join('\n');
}

/**
 * Polls `check` until it returns a truthy value (or throws its last failure after the UI timeout).
 * @template T
 * @param {() => T | undefined | null | false | Promise<T | undefined | null | false>} check
 * @param {{ what?: string }} [options]
 * @returns {Promise<T>}
 */
const eventually = (check, { what = 'condition' } = {}) => poll(what, check);

describe(
  'Compact Now and Restore in a real VS Code, against the fake Anthropic API',
  { timeout: suiteTimeout(600_000) },
  () => {
    /** @type {AgentWorld} Set in before(); the hooks and tests run after it. */
    let w;
    /** @type {typeof import('./workbench.mjs')} */
    let workbench;
    /** @type {string[]} */
    const screenshots = [];

    before(async () => {
      workbench = await import('./workbench.mjs');
      w = await startAgentWorld(COMPACTION_WORLD);
    });

    after(async () => {
      if (!w) return;
      await workbench.screenshot(w.page, 'compaction-last').catch(() => undefined);
      process.stderr.write(
        `[compaction] the fake server received ${w.fake.requests.length} requests, ${w.fake.invalidRequests.length} invalid; screenshots: ${screenshots.join(', ')}\n`,
      );
      const invalid = w.fake.invalidRequests.map((r) => r.error);
      await w.close();
      assert.deepEqual(invalid, [], 'every request the extension sent was valid');
    });

    test('three turns build a history', async () => {
      await threeTurns(w);
    });

    test('Compact Now previews, takes instructions and summarises the older turns', async () => {
      w.fake.script({ match: { model: SUMMARISER }, text: SUMMARY });
      const before = w.fake.requests.length;
      await w.command('Context Pipeline: Compact Now');

      // The input box: the preview of what would be compacted and the expected saving.
      const widget = w.page.locator('.quick-input-widget');
      const prompt = widget.locator('.quick-input-message', { hasText: 'Would compact' });
      await prompt.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      const promptText = await prompt.innerText();
      assert.match(promptText, /Would compact turns 1–2: about [\d,]+ → [\d,]+ tokens \(saves ~[\d,]+\)/, promptText);
      const input = widget.locator('input');
      await input.fill(INSTRUCTIONS);
      // The "compaction done" toast hides by itself after a while: recorded in the page from now
      // on, so the steps below cannot outlast it.
      const { recordWhenShown } = await import('./gestures.mjs');
      const done = await recordWhenShown(
        w.page.mainFrame(),
        'compaction-done',
        '.notifications-toasts',
        'compaction done',
      );
      await input.press('Enter');
      await widget.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });

      // The summariser was asked, with the user's instructions.
      const summariserReq = await eventually(
        () => w.fake.requests.slice(before).find((r) => /** @type {ApiRequest} */ (r.body).model === SUMMARISER),
        { what: 'the summariser request' },
      );
      assert.equal(summariserReq.valid, true);
      const summariserText = requestText(summariserReq);
      assert.ok(summariserText.includes(INSTRUCTIONS), 'the instructions reach the summariser');
      assert.ok(summariserText.includes(Q1) && summariserText.includes(A1_HEAD), 'the summariser sees turn 1');
      assert.ok(!summariserText.includes(A3_HEAD), 'the kept turn 3 is not summarised');
      assert.equal(w.fake.pendingSteps, 0, 'the scripted summary was used');

      // The transcript re-renders: the notice stands where the answers of turns 1–2 were.
      await w.frame
        .locator('.item.notice', { hasText: 'Turns 1–2 were compacted into a summary.' })
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      // The summary card expands to the summary itself.
      const card = w.frame.locator('.summary-card').first();
      await card.locator('summary').click();
      await card.locator('.summary-text', { hasText: 'line 42' }).waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await done.seen();
      const answers = await w.frame.locator('.item.assistant .text').allInnerTexts();
      assert.ok(
        !answers.some((t) => t.includes(A1_HEAD) || t.includes(A2_HEAD)),
        `the answers of turns 1–2 are gone: ${JSON.stringify(answers.map((t) => t.slice(0, 40)))}`,
      );
      assert.ok(
        answers.some((t) => t.includes(A3_HEAD)),
        'turn 3 is kept',
      );
      const users = (await w.frame.locator('.item.user .text').allInnerTexts()).join('\n');
      assert.ok(users.includes(Q1) && users.includes(Q2) && users.includes(Q3), 'the user’s words stay verbatim');
      // The questions the summary kept are one bubble each, not one merged bubble.
      assert.deepEqual(await w.frame.locator('[data-testid="transcript"] > .item.user .text').allInnerTexts(), [
        Q1,
        Q2,
        Q3,
      ]);
      // The live "Compacting…" line leaves its outcome.
      const outcome = w.frame.locator('.item.notice', {
        hasText: /^Compacted [\d.]+k? → [\d.]+k? tokens \(summary\)\.$/,
      });
      await outcome.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      // The compacted turns stay in view: a collapsed group after the card, which opens to them as they were.
      const group = w.frame.locator('[data-testid="transcript"] > [data-testid="compacted-group"]');
      assert.equal(await group.count(), 1);
      const title = group.locator(':scope > summary');
      assert.equal(await title.innerText(), '2 messages from you · 2 answers · summarised');
      assert.equal(await group.locator('.item').count(), 0, 'its items are asked for when it opens, not before');
      await title.click();
      await group
        .locator('.item.assistant .text', { hasText: A2_HEAD })
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      assert.deepEqual(await group.locator('.item.user .text').allInnerTexts(), [Q1, Q2]);
      assert.ok((await group.locator('.item.assistant .text').first().innerText()).startsWith(A1_HEAD));
      assert.equal(await group.locator('.pin').count(), 0, 'nothing in the originals can be pinned');
      await title.click();
    });

    test('the Compactions view lists the compaction, its summary and its originals (read-only)', async () => {
      const pane = await compactionsPane(w, workbench);
      const manual = row(pane, 'Manual · ');
      await manual.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await enlargeCompactions(w, workbench);
      await workbench.widenSidebar(w.page);
      const label = await manual.locator('.label-name').innerText();
      assert.match(label, /^Manual · /);
      const description = await manual.locator('.label-description').innerText();
      assert.match(description, /^[\d,]+ → [\d,]+ · summary$/, description);
      const [tokensBefore, tokensAfter] = description
        .replace(/ · .*$/, '')
        .split(' → ')
        .map((n) => Number(n.replace(/,/g, '')));
      assert.ok(tokensAfter < tokensBefore, description);

      await expand(manual);
      // By its exact label: the compaction's own row says "summary" in its description.
      const summaryRow = pane
        .locator('.monaco-list-row')
        .filter({ has: w.page.locator('.label-name', { hasText: /^\s*Summary\s*$/ }) })
        .first();
      await summaryRow.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      // Plain words: the row says what stands in place, never the layer's id ("Summary summarise").
      assert.equal((await summaryRow.locator('.label-name').innerText()).trim(), 'Summary');
      assert.ok(!/summarise/.test(await summaryRow.innerText()), 'no layer id beside the label');
      const turns = row(pane, 'Turns 1–2');
      await expand(turns);
      // By its label: the session's own row (titled by the first question) holds Q1 too.
      const original = pane
        .locator('.monaco-list-row', { hasText: Q1 })
        .filter({ has: w.page.locator('.label-name', { hasText: /^\s*Your message\s*$/ }) })
        .first();
      await original.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      assert.equal((await original.locator('.label-name').innerText()).trim(), 'Your message');
      assert.ok(
        (await original.locator('.label-description').innerText()).includes(Q1),
        'the original row shows the start of the user’s words',
      );
      const answer = pane.locator('.monaco-list-row', { hasText: A1_HEAD }).first();
      assert.ok(await answer.isVisible(), 'the original answer of turn 1 is listed');
      assert.equal((await answer.locator('.label-name').innerText()).trim(), "Claude's answer");
      await w.page.mouse.move(10, 890);
      screenshots.push(await workbench.screenshot(w.page, 'compaction-tree'));

      // Opening the original: a read-only document of the context-pipeline-record scheme.
      await original.click();
      const editor = w.page.locator('.part.editor .monaco-editor').first();
      await editor.locator('.view-lines', { hasText: Q1 }).waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      const tab = w.page.locator('.part.editor .tab.active');
      // A readable tab title: the turn and what the message is, not the message's id.
      const tabLabel = (await tab.getAttribute('aria-label')) ?? '';
      assert.match(tabLabel, /Turn 1 · your message\.md/, tabLabel);
      assert.ok(!/msg_/.test(tabLabel), tabLabel);
      const text = (await editor.locator('.view-lines').innerText()).replace(/\u00a0/g, ' ');
      assert.ok(text.includes('### user · turn 1'), text);
      assert.ok(text.includes(Q1), text);
      await editor.locator('.view-lines').click();
      await w.page.keyboard.type('x');
      await w.page
        .locator('.monaco-editor-overlaymessage', { hasText: /read-only/i })
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      assert.equal(
        (await editor.locator('.view-lines').innerText()).replace(/\u00a0/g, ' '),
        text,
        'typing does not change the original',
      );
      screenshots.push(await workbench.screenshot(w.page, 'compaction-original'));
    });

    test('Restore from the tree brings the originals back, and the next request has the whole history', async () => {
      const pane = await compactionsPane(w, workbench);
      const manual = row(pane, 'Manual · ');
      const { chooseFromContextMenu } = await import('./gestures.mjs');
      await chooseFromContextMenu(w.page, manual, 'Restore');

      await w.page
        .locator('.notifications-toasts .notification-toast', { hasText: 'the original messages are back' })
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await eventually(async () => (await manual.locator('.label-description').innerText()).endsWith('· restored'), {
        what: 'the compaction to show "· restored"',
      });

      // The transcript shows the original answers again, and no summary notice.
      await w.waitForAnswer(A1_HEAD);
      await w.waitForAnswer(A2_HEAD);
      assert.equal(await w.frame.locator('.item.notice', { hasText: 'were compacted into a summary' }).count(), 0);
      assert.deepEqual(await w.frame.locator('.item.user .text').allInnerTexts(), [Q1, Q2, Q3]);
      assert.equal(await w.frame.locator('.item.assistant .text').count(), 3);

      // The conversation goes on with the whole original history.
      w.fake.script({ text: 'Answer four, with the whole history in view.' });
      const before = w.fake.requests.length;
      await w.send('Fourth question');
      await w.waitForAnswer('Answer four, with the whole history in view.');
      await w.waitIdle();
      const req = /** @type {MessagesRequest} */ (w.fake.requests.at(-1));
      assert.ok(w.fake.requests.length > before);
      assert.equal(req.body.model, CHAT_MODEL);
      assert.equal(req.valid, true);
      const msgs = req.body.messages;
      assert.deepEqual(
        msgs.map((m) => m.role),
        ['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user'],
      );
      const all = requestText(req);
      assert.ok(
        all.includes(Q1) && all.includes(A1) && all.includes(A2) && all.includes(A3),
        'the original messages are sent verbatim',
      );
      assert.ok(!all.includes('Summary of turns') && !all.includes(SUMMARY), 'the summary is gone from the request');
      assert.equal(w.fake.invalidRequests.length, 0);

      // The screenshot: the restored compaction in the tree, and the chat scrolled back to the restored answer of turn 1.
      await w.command('View: Close All Editors');
      await w.page.locator('.part.editor .tab').first().waitFor({ state: 'detached', timeout: UI_TIMEOUT });
      await w.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
      await w.frame.locator('.item.user', { hasText: Q1 }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await w.frame.locator('.item.assistant', { hasText: A1_HEAD }).waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await w.page.mouse.move(10, 890);
      screenshots.push(await workbench.screenshot(w.page, 'compaction-restored'));
    });

    test('/compact in the chat input completes, takes instructions and compacts', async () => {
      const input = w.frame.getByRole('textbox', { name: 'Message' });
      await input.fill('');
      await input.pressSequentially('/co');
      const suggestion = w.frame.locator('.suggestions li', { hasText: '/compact' });
      await suggestion.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await input.press('Tab');
      assert.equal(await input.inputValue(), '/compact ');
      w.fake.script({
        match: { model: SUMMARISER },
        text: 'Turns 1–3 discussed `src/auth.ts` line 42 and the token check.',
      });
      const before = w.fake.requests.length;
      await input.pressSequentially('keep the auth details');
      await input.press('Enter');
      await eventually(
        async () =>
          /** @type {readonly MessagesRequest[]} */ (w.fake.requests)
            .slice(before)
            .some((r) => r.body.model === SUMMARISER && requestText(r).includes('keep the auth details')),
        { what: 'the summariser request with the /compact instructions' },
      );
      await eventually(
        async () => (await w.frame.locator('.item.notice', { hasText: 'compacted into a summary' }).count()) > 0,
        { what: 'the compacted turns in the chat' },
      );
      assert.equal(
        await w.frame.locator('.item.user .text', { hasText: '/compact' }).count(),
        0,
        'the slash command is not sent to the model as a message',
      );
      assert.equal(w.fake.invalidRequests.length, 0);
    });
  },
);
