// Subagents in a real VS Code against the fake Anthropic server: a scripted main agent writes a
// plan and hands two explorations to subagents in one round (each scripted with its own tool
// round, on the subagent model); the parent's next request holds only their reports; the cards
// show what each did and cost, the budget panel bills them, and a card opens the subagent's own
// session. Compact Now follows, and the request after it carries the plan (asserted on what the
// fake server received). Then Stop while two subagents run ends everything, and the next request
// is valid. Screenshots of the subagent cards in the dark and the light theme.
//   CP_SKIP_PACKAGE=1 node --import tsx --test test/vscode/subagents.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { budgetFrame } from './budgetFrame.mjs';
import { REPO_ROOT } from './setup.mjs';
import { eventually, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';
/**
 * @typedef {import('./agentHarness.mjs').AgentWorld} AgentWorld
 * @typedef {import('../fake-anthropic/types.ts').RecordedRequest} RecordedRequest
 * @typedef {import('../fake-anthropic/request.ts').ApiRequest} ApiRequest
 */
const MAIN = 'claude-sonnet-4-6';
const SUB = 'claude-haiku-4-5';
const PLAN_HEADING = 'Your plan, carried over the context compaction (update_plan)';
/** Where the README's screenshots go: docs/screenshots/ with CP_UPDATE_DOCS_SCREENSHOTS=1, else test-results/. */
const SHOTS =
  process.env.CP_UPDATE_DOCS_SCREENSHOTS === '1'
    ? join(REPO_ROOT, 'docs', 'screenshots')
    : join(REPO_ROOT, 'test-results', 'screenshots');
/** What only the subagents read: it must never reach the parent's requests. */
const STORE_MARKER = 'STORE-FILE-BODY-7f3a';
const STORE = `// ${STORE_MARKER}\n${Array.from({ length: 60 }, (_, i) => `export function step${i}(s: string) { return s + ${i}; } // ${STORE_MARKER}`).join('\n')}\nexport function saveSession(id: string) { return step1(id); }\n`;
const LOCK = 'export function lockSession(id: string) { return `lock:${id}`; }\n';
const PLAN1 = [
  { step: 'Find where sessions are saved and locked', status: 'in_progress' },
  { step: 'Fix the lock release', status: 'pending' },
];
const PLAN2 = [
  { step: 'Find where sessions are saved and locked', status: 'completed' },
  { step: 'Fix the lock release', status: 'in_progress' },
];
/** @param {string} tag @param {string} what */
const task = (tag, what) => ({
  name: 'task',
  input: { description: what, prompt: `${tag}: ${what}. Report the file and the function.` },
});

/** @param {RecordedRequest} r */
const body = (r) => /** @type {ApiRequest} */ (r.body);
/** @param {RecordedRequest} r */
const firstUser = (r) => {
  const m = body(r).messages.find((x) => x.role === 'user');
  return typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content ?? '');
};

describe(
  'subagents: parallel, isolated, billed, stoppable — in a real VS Code',
  { timeout: suiteTimeout(600_000) },
  () => {
    /** @type {AgentWorld} */
    let w;
    /** @type {string[]} */
    const saved = [];

    before(async () => {
      w = await startAgentWorld({
        workspaceFiles: { 'src/store.ts': STORE, 'src/lock.ts': LOCK },
        settings: {
          'workbench.colorTheme': 'Default Dark Modern',
          'contextPipeline.keepRecentTurns': 1,
          'contextPipeline.keepRecentTokens': 0,
        },
      });
    });

    after(async () => {
      if (!w) return;
      process.stderr.write(
        `[subagents] ${w.fake.requests.length} requests, ${w.fake.invalidRequests.length} invalid; screenshots: ${saved.join(', ')}\n`,
      );
      const invalid = w.fake.invalidRequests.map((r) => r.error);
      await w.close();
      assert.deepEqual(invalid, [], 'every request the extension sent was valid');
    });

    /** @param {string} name */
    async function shoot(name) {
      mkdirSync(SHOTS, { recursive: true });
      await w.page.mouse.move(1, 899);
      const { nextFrames } = await import('./gestures.mjs');
      await nextFrames(w.page);
      const path = join(SHOTS, `${name}.png`);
      await w.frame.locator('#app').screenshot({ path, animations: 'disabled' });
      saved.push(path);
    }

    const cardOf = (/** @type {string} */ what) => w.frame.locator('.item.tool', { hasText: `Subagent: ${what}` });

    test('a plan and two subagents in parallel: the parent request holds only their reports', async () => {
      w.fake.script(
        {
          match: { model: MAIN },
          text: 'I will plan, then explore in parallel.',
          toolUses: [
            { name: 'update_plan', input: { steps: PLAN1 } },
            task('CHILD-A', 'Find where sessions are saved'),
            task('CHILD-B', 'Find where sessions are locked'),
          ],
        },
        {
          match: { model: SUB, firstUserTextIncludes: 'CHILD-A' },
          toolUses: [{ name: 'read_file', input: { path: 'src/store.ts' } }],
        },
        {
          match: { model: SUB, firstUserTextIncludes: 'CHILD-A' },
          text: 'REPORT-A: saveSession() in src/store.ts saves sessions.',
        },
        {
          match: { model: SUB, firstUserTextIncludes: 'CHILD-B' },
          toolUses: [{ name: 'search', input: { pattern: 'lockSession' } }],
        },
        {
          match: { model: SUB, firstUserTextIncludes: 'CHILD-B' },
          text: 'REPORT-B: lockSession() in src/lock.ts locks them.',
        },
        {
          match: { model: MAIN },
          text: 'Both reports are in.',
          toolUses: [{ name: 'update_plan', input: { steps: PLAN2 } }],
        },
        { match: { model: MAIN }, text: 'Explored: the store saves, the lock locks.' },
      );
      const before = w.fake.requests.length;
      await w.send('Why does the session lock leak?');
      await w.waitForAnswer('Explored: the store saves');
      await w.waitIdle();
      const sent = w.fake.requests.slice(before);
      const main = sent.filter((r) => body(r).model === MAIN);
      const subs = sent.filter((r) => body(r).model === SUB);
      assert.equal(main.length, 3);
      assert.equal(subs.length, 4, 'each subagent made its two requests on the subagent model');
      // The parent's request after the round: both reports, none of what the subagents read.
      const afterRound = JSON.stringify(body(main[1] ?? main[0]).messages);
      assert.ok(afterRound.includes('REPORT-A: saveSession()') && afterRound.includes('REPORT-B: lockSession()'));
      assert.ok(!afterRound.includes(STORE_MARKER), 'the file the subagent read never reached the parent');
      // A subagent's own request: its own prompt block, read-only tools, the task as its only message.
      const childA = subs.filter((r) => firstUser(r).includes('CHILD-A'));
      assert.equal(childA.length, 2);
      const a1 = body(childA[0] ?? subs[0]);
      assert.match(JSON.stringify(a1.system), /You are a subagent/);
      const tools = (a1.tools ?? []).map((t) => ('name' in t ? t.name : ''));
      assert.ok(tools.includes('read_file') && !tools.includes('task') && !tools.includes('update_plan'), tools.join());
      assert.ok(!JSON.stringify(a1.messages).includes('Why does the session lock leak'), 'it sees nothing of the chat');
      assert.ok(
        JSON.stringify(body(childA[1] ?? subs[0]).messages).includes(STORE_MARKER),
        'the subagent read the file',
      );

      // The checklist and the cards.
      await eventually(
        'the checklist shows 1 of 2 done',
        async () => (await w.frame.locator('.plan .plan-count').innerText()) === '1 of 2 done',
      );
      for (const what of ['Find where sessions are saved', 'Find where sessions are locked']) {
        const figures = cardOf(what).locator('[data-testid="subagent-figures"]');
        await figures.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
        assert.match(await figures.innerText(), /^2 rounds · 1 tool · [\d.,]+k? tokens · \$\d+\.\d{4}$/);
      }
      // The session files: two child sessions naming the parent, and the parent's bill.
      const files = w.sessionEntries();
      const children = files.filter((f) => f.entries[0]?.type === 'header' && f.entries[0].parent);
      assert.equal(children.length, 2);
      const parentId =
        children[0]?.entries[0]?.type === 'header' ? children[0].entries[0].parent?.sessionId : undefined;
      const parent = files.find((f) => f.entries[0]?.type === 'header' && f.entries[0].sessionId === parentId);
      assert.ok(parent, 'the children name their parent session');
      const records = parent.entries.flatMap((e) => (e.type === 'subagent' ? [e] : []));
      assert.deepEqual(records.map((r) => [r.state, r.requests, r.model]).sort(), [
        ['done', 2, SUB],
        ['done', 2, SUB],
      ]);
      await shoot('dark-subagents');
      const { chooseLightTheme } = await import('./gestures.mjs');
      await chooseLightTheme(w.page);
      await shoot('light-subagents');
    });

    test('a card opens the subagent transcript, and the budget panel bills the subagents', async () => {
      const card = cardOf('Find where sessions are saved');
      await card.locator('summary').click();
      await card.locator('[data-testid="subagent-open"]').click();
      const tab = w.page.locator('.part.editor .tab.active', { hasText: 'Subagent' });
      await tab.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      const editor = w.page.locator('.part.editor .editor-instance .monaco-editor');
      let shown = '';
      await eventually('the transcript to show', async () => {
        shown = (await editor.first().locator('.view-lines').innerText()).replace(/\u00a0/g, ' ');
        // Its first lines (the report comes after the file it read, below the fold).
        return shown.includes('# Subagent: Find where sessions are saved') ? shown : undefined;
      }).catch(async (/** @type {Error} */ err) => {
        await w.page.screenshot({ path: join(REPO_ROOT, 'test-results', 'subagents-transcript-failed.png') });
        throw new Error(`${err.message}; the editor shows: ${JSON.stringify(shown.slice(0, 400))}`);
      });
      await w.command('View: Close Editor');
      await card.locator('summary').click();

      await w.command('Context Pipeline: Show Context Budget');
      const frame = await budgetFrame(w.page);
      const row = frame.locator('[data-testid="subagents-row"]');
      await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      assert.equal(await row.innerText(), 'Subagents ×2');
      // The prompt cell says what it sums, in words and in its tooltip.
      const prompt = frame.locator('[data-testid="subagents-prompt"]');
      assert.match(await prompt.innerText(), /^[\d,.]+k? in \d+ requests?$/);
      assert.match(
        (await prompt.getAttribute('title')) ?? '',
        /^The prompt tokens of all \d+ subagent requests together/,
      );
      assert.match(
        await frame.locator('[data-testid="budget-history"] p.muted').last().innerText(),
        /3 requests and 2 subagents, \$\d+\.\d{4} in this session \(\$\d+\.\d{4} of it by subagents\)/,
      );
      // The Requests card with its Subagents row, for looking at (not a docs screenshot).
      const history = frame.locator('[data-testid="budget-history"]');
      const path = join(REPO_ROOT, 'test-results', 'screenshots', 'light-budget-subagents.png');
      mkdirSync(join(REPO_ROOT, 'test-results', 'screenshots'), { recursive: true });
      await history.screenshot({ path, animations: 'disabled' });
      saved.push(path);
      await w.command('View: Close Editor');
    });

    test('after Compact Now the next request carries the plan once', async () => {
      // A second turn, so the first (the subagents' round) is old enough to compact.
      w.fake.script({ match: { model: MAIN }, text: 'The lock is never released on error.' });
      await w.send('Where exactly?');
      await w.waitForAnswer('The lock is never released on error.');
      await w.waitIdle();
      w.fake.script({
        match: { model: SUB },
        text: 'The user asked why the lock leaks; two subagents found the store and the lock.',
      });
      const before = w.fake.requests.length;
      await w.command('Context Pipeline: Compact Now');
      const widget = w.page.locator('.quick-input-widget');
      await widget.locator('.quick-input-message', { hasText: 'Would compact' }).waitFor({ timeout: UI_TIMEOUT });
      await widget.locator('input').press('Enter');
      await widget.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
      await eventually('the summariser request', () =>
        w.fake.requests.slice(before).find((r) => body(r).model === SUB),
      );
      await w.frame
        .locator('.item.notice', { hasText: /^Compacted .* \(summary\)\.$/ })
        .waitFor({ timeout: UI_TIMEOUT });
      w.fake.script({ match: { model: MAIN }, text: 'Fixing the lock release now.' });
      const sentBefore = w.fake.requests.length;
      await w.send('Go on with the fix');
      await w.waitForAnswer('Fixing the lock release now.');
      await w.waitIdle();
      const next = w.fake.requests.slice(sentBefore).find((r) => body(r).model === MAIN);
      assert.ok(next);
      const text = JSON.stringify(body(next).messages);
      assert.equal(text.split(PLAN_HEADING).length - 1, 1, 'the plan is carried exactly once');
      assert.ok(text.includes('2. [>] Fix the lock release'), text.slice(-1500));
    });

    test('Stop while two subagents run ends them all; the next request is valid', async () => {
      await w.newSession();
      w.fake.script(
        { match: { model: MAIN }, toolUses: [task('CHILD-C', 'Scan the tests'), task('CHILD-D', 'Scan the docs')] },
        // Far longer than any wait here: only Stop ends them.
        { match: { model: SUB, firstUserTextIncludes: 'CHILD-C' }, delayMs: 600_000, text: 'never' },
        { match: { model: SUB, firstUserTextIncludes: 'CHILD-D' }, delayMs: 600_000, text: 'never' },
      );
      await w.send('Scan everything');
      for (const what of ['Scan the tests', 'Scan the docs'])
        await cardOf(what)
          .locator('[data-testid="subagent-figures"].running')
          .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await eventually(
        'both subagents asked the server',
        () =>
          w.fake.requests.filter((r) => body(r).model === SUB && /CHILD-[CD]/.test(firstUser(r))).length === 2 ||
          undefined,
      );
      await w.frame.locator('.composer button.stop').click();
      await w.frame.locator('.item.tool.cancelled').nth(1).waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      await w.waitIdle();
      for (const what of ['Scan the tests', 'Scan the docs'])
        assert.match(
          (await cardOf(what).locator('[data-testid="subagent-figures"]').getAttribute('class')) ?? '',
          /stopped/,
        );
      w.fake.script({ match: { model: MAIN }, text: 'Stopped; nothing more to scan.' });
      await w.send('Never mind.');
      await w.waitForAnswer('Stopped; nothing more to scan.');
      const results = w
        .lastRequest()
        .body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter((b) => b.type === 'tool_result');
      assert.equal(results.length, 2);
      for (const r of results) assert.ok(r.is_error && /Cancelled/.test(JSON.stringify(r.content)));
    });
  },
);
