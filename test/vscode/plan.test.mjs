// The agent's plan in a real VS Code against the fake Anthropic server: a scripted agent calls
// update_plan twice, the checklist above the composer shows and updates ("1 of 3 done" → "2 of
// 3 done", the step in progress highlighted), Compact Now summarises the turns that made the
// plan, the summariser is given the plan and the next request carries it once (asserted on what
// the fake server received), and the user clears the plan (saved to the session file).
// Screenshots of the checklist in the dark and the light theme, narrow and wide side bar.
//   CP_SKIP_PACKAGE=1 node --import tsx --test test/vscode/plan.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { REPO_ROOT } from './setup.mjs';
import { eventually, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';
/**
 * @typedef {import('./agentHarness.mjs').AgentWorld} AgentWorld
 * @typedef {import('../fake-anthropic/types.ts').RecordedRequest} RecordedRequest
 * @typedef {import('../fake-anthropic/request.ts').ApiRequest} ApiRequest
 */
const SUMMARISER = 'claude-haiku-4-5';
const PLAN_HEADING = 'Your plan, carried over the context compaction (update_plan)';
const SHOTS = join(REPO_ROOT, 'test-results', 'screenshots');
/** @param {number} n */
const DETAIL = (n) =>
  Array.from(
    { length: 8 },
    (_, i) =>
      `Detail ${n}.${i + 1}: validateToken() in src/auth.ts compares the expiry against Date.now() without the clock-skew allowance, so a token near expiry is still accepted.`,
  ).join(' ');
/** @param {Array<[string, 'pending' | 'in_progress' | 'completed', string?]>} s */
const steps = (s) => s.map(([step, status, note]) => ({ step, status, ...(note ? { note } : {}) }));
const PLAN1 = steps([
  ['Find where tokens are validated', 'completed'],
  ['Add the clock-skew allowance to validateToken()', 'in_progress', 'src/auth.ts line 4'],
  ['Write a unit test with a fake clock', 'pending'],
]);
const PLAN2 = steps([
  ['Find where tokens are validated', 'completed'],
  ['Add the clock-skew allowance to validateToken()', 'completed'],
  ['Write a unit test with a fake clock', 'in_progress'],
]);

/**
 * Every text of a request's messages (text blocks and tool inputs), joined.
 * @param {RecordedRequest} req
 */
function requestText(req) {
  return /** @type {ApiRequest} */ (req.body).messages
    .flatMap((m) =>
      typeof m.content === 'string'
        ? [m.content]
        : m.content.flatMap((b) =>
            b.type === 'text' ? [b.text] : b.type === 'tool_use' ? [JSON.stringify(b.input)] : [],
          ),
    )
    .join('\n');
}

describe('the plan: checklist, compaction, clear — in a real VS Code', { timeout: suiteTimeout(600_000) }, () => {
  /** @type {AgentWorld} */
  let w;
  /** @type {string[]} */
  const saved = [];

  before(async () => {
    w = await startAgentWorld({
      workspaceFiles: { 'src/auth.ts': 'export const validateToken = (t: { exp: number }) => t.exp > Date.now();\n' },
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
      `[plan] ${w.fake.requests.length} requests, ${w.fake.invalidRequests.length} invalid; screenshots: ${saved.join(', ')}\n`,
    );
    const invalid = w.fake.invalidRequests.map((r) => r.error);
    await w.close();
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });

  /**
   * Saves a screenshot of the chat view (the checklist above the composer) to test-results/screenshots.
   * @param {string} name
   */
  async function shoot(name) {
    mkdirSync(SHOTS, { recursive: true });
    await w.page.mouse.move(1, 899);
    const { nextFrames } = await import('./gestures.mjs');
    await nextFrames(w.page);
    const path = join(SHOTS, `${name}.png`);
    // The whole chat view: the checklist between the transcript and the composer.
    const app = w.frame.locator('#app');
    await app.screenshot({ path, animations: 'disabled' });
    process.stderr.write(`[plan] ${name}: the chat is ${Math.round((await app.boundingBox())?.width ?? 0)} px wide\n`);
    saved.push(path);
    return path;
  }

  const count = () => w.frame.locator('.plan .plan-count');

  test('update_plan shows the checklist and updates it as the agent works', async () => {
    w.fake.script(
      { text: 'I will plan this first.', toolUses: [{ name: 'update_plan', input: { steps: PLAN1 } }] },
      { text: `Planned. ${DETAIL(1)}` },
    );
    await w.send('Fix the token expiry bug in src/auth.ts');
    await w.waitForAnswer('Planned.');
    await w.waitIdle();
    await eventually('the checklist shows 1 of 3 done', async () => (await count().innerText()) === '1 of 3 done');
    assert.equal(await w.frame.locator('.plan').getAttribute('open'), '');
    assert.deepEqual(await w.frame.locator('.plan-step.completed .plan-step-text').allInnerTexts(), [PLAN1[0]?.step]);
    assert.deepEqual(await w.frame.locator('.plan-step.in-progress .plan-step-text').allInnerTexts(), [PLAN1[1]?.step]);
    assert.equal(await w.frame.locator('.plan-step.in-progress .plan-note').innerText(), 'src/auth.ts line 4');
    // The call's result, as the model read it, does not repeat the plan.
    const second = w.fake.requests.at(-1);
    assert.ok(second);
    const result = JSON.stringify(/** @type {ApiRequest} */ (second.body).messages.at(-1));
    assert.match(result, /Plan updated: 1 of 3 done; in progress: Add the clock-skew allowance/);
    assert.ok(!result.includes('Write a unit test with a fake clock'), 'the result does not echo the plan');
    // The tool row in the transcript says how far the plan is.
    await w.frame.locator('.item.tool', { hasText: 'Plan: 1 of 3 done' }).first().waitFor({ timeout: UI_TIMEOUT });

    w.fake.script(
      { toolUses: [{ name: 'update_plan', input: { steps: PLAN2 } }] },
      { text: `Step 2 is done. ${DETAIL(2)}` },
    );
    await w.send('Go on');
    await w.waitForAnswer('Step 2 is done.');
    await w.waitIdle();
    await eventually('the checklist shows 2 of 3 done', async () => (await count().innerText()) === '2 of 3 done');
    assert.deepEqual(await w.frame.locator('.plan-step.in-progress .plan-step-text').allInnerTexts(), [PLAN2[2]?.step]);
    assert.equal(await w.frame.locator('.plan-step.completed').count(), 2);
    await shoot('plan-dark-narrow');
  });

  test('collapsed, the header keeps the count and names the step in progress', async () => {
    await w.frame.locator('.plan-summary .plan-title').click();
    await eventually('collapsed', async () => (await w.frame.locator('.plan').getAttribute('open')) === null);
    assert.equal(await w.frame.locator('.plan-steps').isVisible(), false);
    assert.ok((await w.frame.locator('.plan-current').innerText()).includes('Write a unit test'));
    await shoot('plan-dark-collapsed');
    await w.frame.locator('.plan-summary .plan-title').click();
    await eventually('open again', async () => (await w.frame.locator('.plan').getAttribute('open')) === '');
  });

  test('after Compact Now the summariser is given the plan and the next request carries it once', async () => {
    w.fake.script({ text: `Third answer. ${DETAIL(3)}` });
    await w.send('And the test?');
    await w.waitForAnswer('Third answer.');
    await w.waitIdle();

    w.fake.script({
      match: { model: SUMMARISER },
      text: 'Step 1 and 2 of the plan are done: validateToken() got the allowance.',
    });
    const before = w.fake.requests.length;
    await w.command('Context Pipeline: Compact Now');
    const widget = w.page.locator('.quick-input-widget');
    const prompt = widget.locator('.quick-input-message', { hasText: 'Would compact' });
    await prompt.waitFor({ timeout: UI_TIMEOUT });
    assert.match(await prompt.innerText(), /Then carries the plan \(2 of 3 done\)/, 'the preview names the plan');
    await widget.locator('input').press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    const summariserReq = await eventually('the summariser request', () =>
      w.fake.requests.slice(before).find((r) => /** @type {ApiRequest} */ (r.body).model === SUMMARISER),
    );
    const asked = requestText(summariserReq);
    assert.ok(
      asked.includes('<plan>') && asked.includes('3. [>] Write a unit test with a fake clock'),
      asked.slice(-1200),
    );
    await w.frame
      .locator('.item.notice', { hasText: /^Compacted [\d.]+k? → [\d.]+k? tokens \(summary\)\.$/ })
      .waitFor({ timeout: UI_TIMEOUT });
    assert.equal(await count().innerText(), '2 of 3 done', 'the checklist is not compacted');

    w.fake.script({ text: 'Writing the test now.' });
    const sentBefore = w.fake.requests.length;
    await w.send('Continue');
    await w.waitForAnswer('Writing the test now.');
    await w.waitIdle();
    const next = w.fake.requests.slice(sentBefore).find((r) => /** @type {ApiRequest} */ (r.body).model !== SUMMARISER);
    assert.ok(next);
    const text = requestText(next);
    assert.equal(text.split(PLAN_HEADING).length - 1, 1, 'the plan is carried exactly once');
    assert.ok(text.includes('2. [x] Add the clock-skew allowance to validateToken()'));
    assert.ok(text.includes('3. [>] Write a unit test with a fake clock'));
    await w.frame
      .locator('.item.notice', { hasText: 'Your plan, carried over the compaction for Claude' })
      .first()
      .waitFor({ timeout: UI_TIMEOUT });
  });

  test('the checklist in the light theme, and in a wide side bar', async () => {
    const { chooseLightTheme } = await import('./gestures.mjs');
    await chooseLightTheme(w.page);
    await shoot('plan-light-narrow');
    const { widenSidebar } = await import('./workbench.mjs');
    await widenSidebar(w.page, 300);
    await shoot('plan-light-wide');
  });

  test('the user clears the plan: the checklist goes and the Clear is saved', async () => {
    await w.frame.locator('.plan-clear').click();
    await w.frame.locator('.plan').waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    await eventually('the Clear in the session file', () => {
      const plans = w.sessionEntries().flatMap((f) => f.entries.flatMap((e) => (e.type === 'plan' ? [e] : [])));
      return plans.length === 3 && plans.at(-1)?.steps.length === 0;
    });
  });
});
