// A session whose history breaks the API's image limits, in a real VS Code: 25 retina
// screenshots (2560×1440) returned by tool calls, written into the extension's session storage
// before the window opens and resumed when the chat opens. The API refuses a request of more
// than 20 images with one over 2000 px, and keeps refusing every later request that carries
// them (anthropics/claude-code#13480); the fake server refuses it the same way. The next
// message must go through, the oldest 5 screenshots sent as notes, and the budget panel must
// say what was repaired. The session file keeps all 25.
//   npm run package && node --import tsx --test test/vscode/imageLimits.test.mjs
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { budgetFrame } from './budgetFrame.mjs';
import { installSession, sessionBuilder } from './sessionFiles.mjs';
import { suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';

const SHOTS = 25;

/**
 * @typedef {import('../fake-anthropic/request.ts').ApiRequest} ApiRequest the body of a `/v1/messages` request
 */

/** The session file, built with the extension's own code: 25 screenshots, then the answer. */
async function buildScreenshotSession() {
  // A 2560×1440 PNG's signature and header: all a size check reads.
  const { pngBase64 } = await import('../unit/support/images.ts');
  const retina = pngBase64(2560, 1440);
  const s = await sessionBuilder('shots');
  s.user({ userText: 'Capture every page of the app and tell me which one renders badly.' });
  for (let i = 1; i <= SHOTS; i++) {
    const id = `toolu_shot${String(i).padStart(2, '0')}`;
    s.assistant([{ type: 'tool_use', id, name: 'read_file', input: { path: `shots/page-${i}.png` } }]);
    s.user({
      toolResults: [
        {
          toolUseId: id,
          content: [
            { type: 'text', text: `SHOT-${i}: page ${i} captured` },
            { type: 'image', mediaType: 'image/png', data: retina },
          ],
        },
      ],
    });
  }
  s.assistant([{ type: 'text', text: `All ${SHOTS} pages captured. SHOTS-DONE` }]);
  return s.file('claude-sonnet-4-6');
}

/**
 * Images in a request body, oldest first (their tool result's text beside them).
 * @param {ApiRequest} body
 */
function imagesIn(body) {
  return body.messages.flatMap((m) =>
    typeof m.content === 'string'
      ? []
      : m.content.flatMap((b) =>
          b.type === 'tool_result' && Array.isArray(b.content) ? b.content.filter((p) => p.type === 'image') : [],
        ),
  ).length;
}

describe('a resumed session over the API’s image limits, in a real VS Code', { timeout: suiteTimeout(600_000) }, () => {
  /** @type {import('./agentHarness.mjs').AgentWorld} */
  let world;
  /** @type {string} */
  let sessions;
  /** @type {Awaited<ReturnType<typeof buildScreenshotSession>>} */
  let session;
  before(async () => {
    session = await buildScreenshotSession();
    world = await startAgentWorld({
      workspaceFiles: { 'README.md': '# Screenshots\n' },
      openChat: false,
      prepare: (dirs) => {
        sessions = installSession(dirs, session);
      },
    });
  });

  after(async () => {
    if (!world) return;
    const { screenshot } = await import('./workbench.mjs');
    await screenshot(world.page, 'image-limits-last').catch(() => undefined);
    await world.close();
  });

  test('the next message goes through with the newest 20 screenshots; the panel says what was repaired', async () => {
    const { openContextPipeline, screenshot } = await import('./workbench.mjs');
    await openContextPipeline(world.page);
    await world.refindFrame();
    const f = world.frame;
    await f.locator('.item.assistant', { hasText: 'SHOTS-DONE' }).waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    world.fake.script({ match: { model: 'claude-sonnet-4-6' }, text: 'Page 25 renders badly. IMAGES-OK' });
    const input = f.getByRole('textbox', { name: 'Message' });
    await input.fill('Which page renders badly?');
    await input.press('Enter');
    await f
      .locator('.item.assistant:not(.streaming) .text', { hasText: 'IMAGES-OK' })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.deepEqual(
      world.fake.invalidRequests.map((r) => r.error),
      [],
      'no request was refused',
    );
    const req = world.fake.requests.filter((r) => r.path === '/v1/messages' && r.valid).at(-1);
    assert.ok(req, 'a valid request reached the server');
    const body = /** @type {ApiRequest} */ (req.body);
    assert.equal(imagesIn(body), 20, 'the newest 20 screenshots were sent');
    const text = JSON.stringify(body.messages);
    assert.match(text, /\[Image \(2560×1440 px\) left out of this request: the request holds images over 2000 px/);
    assert.ok(text.includes('SHOT-1: page 1') && text.includes('SHOT-25: page 25'), 'every tool result is there');
    // A screenshot's card counts its image (about 1,600 tokens), not its caption alone.
    const cardTokens = Number(
      ((await f.locator('details.item.tool .result-tokens').last().textContent()) ?? '').replace(/[^\d]/g, ''),
    );
    assert.ok(cardTokens > 1_000, `the last screenshot's card shows ${cardTokens} tokens`);
    await screenshot(world.page, 'image-limits-chat');

    // The budget panel's ledger names the repair of the last request.
    await world.command('Context Pipeline: Show Context Budget');
    const budget = await budgetFrame(world.page);
    const repairs = budget.locator('[data-testid="ledger-repairs"]');
    await repairs.waitFor({ state: 'attached', timeout: UI_TIMEOUT });
    await budget.evaluate(() =>
      document.querySelector('[data-testid="ledger-repairs"]')?.scrollIntoView({ block: 'center' }),
    );
    assert.match(
      (await repairs.textContent()) ?? '',
      /Repaired before sending: 5 images over the API's image limits sent as a note\./,
    );
    await screenshot(world.page, 'image-limits-budget');

    // The session file still holds every screenshot.
    const file = readdirSync(sessions).find((n) => n === session.file);
    assert.ok(file);
    const stored = readFileSync(join(sessions, file), 'utf8');
    assert.equal((stored.match(/"type":"image"/g) ?? []).length, SHOTS, 'the state keeps its images');
  });
});
