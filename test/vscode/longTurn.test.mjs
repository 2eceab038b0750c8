// One long agent turn in the smallest useful window, in a real VS Code against the fake
// Anthropic server. The window is 24 000 tokens, the fake server's too, so an oversized
// request is refused. ONE user request runs 42 read_file rounds over files of 200 lines
// (~2 700 tokens each), then gives the final answer: compaction has to happen inside the turn.
//  - Masking off: the older rounds are summarised while the turn runs (layer `summarise`); the
//    chat shows the summary card and the Compactions view the records with their originals;
//    Restore of a summary a later one folded in is refused, with the reason shown; after a
//    second turn, Compact Now's preview matches what the run then does, and Restore of that
//    compaction brings the originals back.
//  - Masking on (the default): the same turn completes; older results are masked in the turn.
// Every request must be valid and none refused as too long.
//   node esbuild.mjs && npm run package && node test/vscode/setup.mjs
//   node --import tsx --test --test-concurrency=1 test/vscode/longTurn.test.mjs
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';

import { GESTURE_TRY, UI_TIMEOUT } from './timeouts.mjs';
/** Upper bound for the whole 42-round turn on a busy machine (it takes about a minute). */
const TURN_TIMEOUT = 600_000;
const CHAT_MODEL = 'claude-sonnet-4-6';
const SUMMARISER = 'claude-haiku-4-5';
const WINDOW = 24_000;
const ROUNDS = 42;
const LINES = 200;

const pad = (n) => String(n).padStart(2, '0');
const modulePath = (n) => `src/mod${pad(n)}.ts`;
/** A module of LINES lines of small exported functions. */
function moduleSource(n) {
  const out = [`// ${modulePath(n)}: module ${n} of the audit fixture (${LINES} lines)`];
  for (let k = 1; out.length < LINES; k++)
    out.push(
      `export function mod${pad(n)}Step${k}(input: number): number {`,
      `  return input * ${k} + ${n}; // step ${k} of module ${n}`,
      '}',
    );
  return out.slice(0, LINES).join('\n') + '\n';
}
const WORKSPACE = Object.fromEntries(
  Array.from({ length: ROUNDS }, (_, i) => [modulePath(i + 1), moduleSource(i + 1)]),
);

const REQUEST = `Audit every module under src/: read all ${ROUNDS} files one by one, then tell me which ones multiply before adding.`;
const FINAL = `Audit done: I read all ${ROUNDS} modules. Every one of them multiplies the input by the step number before adding the module number.`;
const SUMMARY =
  'The assistant is auditing the modules under src/ one file at a time with read_file, as the user asked. Each module src/modNN.ts exports functions modNNStepK(input) that return input * K + NN. Nothing unusual found so far; the audit continues with the next file.';
const SECOND = 'Which module would you refactor first?';
const SECOND_ANSWER = 'I would start with src/mod01.ts: it is the template the other modules copy.';
const WARNING_TOAST = '.notifications-toasts .notification-toast';

const fmt = (n) => Math.round(n).toLocaleString('en-US');
const num = (s) => Number(s.replace(/,/g, ''));

/** Polls `check` until it returns a truthy value (or throws its last failure after `timeout`). */
async function eventually(check, { timeout = UI_TIMEOUT, interval = 100, what = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw last ?? new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

/** All text of a request's messages (text blocks and tool results), joined. */
function requestText(req) {
  const part = (b) =>
    b.type === 'text'
      ? [b.text]
      : b.type === 'tool_result'
        ? [typeof b.content === 'string' ? b.content : b.content.map((p) => p.text ?? '').join('\n')]
        : [];
  return req.body.messages
    .flatMap((m) => (typeof m.content === 'string' ? [m.content] : m.content.flatMap(part)))
    .join('\n');
}

/**
 * Sends the long request (ROUNDS reads, then the final answer; summaries queued for whoever
 * asks) and waits for the final answer, failing at once on an error in the chat. Checks what
 * the fake server saw: every request valid, one per round in order, the user's words in each.
 */
async function runLongTurn(w) {
  w.fake.script(
    ...Array.from({ length: ROUNDS }, (_, i) => ({
      match: { model: CHAT_MODEL },
      toolUses: [{ name: 'read_file', input: { path: modulePath(i + 1) } }],
    })),
    { match: { model: CHAT_MODEL }, text: FINAL },
  );
  w.fake.script(...Array.from({ length: 40 }, () => ({ match: { model: SUMMARISER }, text: SUMMARY })));
  const first = w.fake.requests.length;
  await w.send(REQUEST);
  const error = w.frame.locator('.item.error, .item.notice:has-text("Stopped after")').first();
  const failed = error.waitFor({ state: 'attached', timeout: TURN_TIMEOUT }).then(
    async () =>
      `the turn ended with: ${await error.innerText()}; refused: ${JSON.stringify(w.fake.invalidRequests.map((r) => r.error?.message))}`,
    () => undefined, // the answer came first and the page moved on, or it closed
  );
  const why = await Promise.race([
    w.waitForAnswer('Audit done: I read all', TURN_TIMEOUT).then(() => undefined),
    failed,
  ]);
  if (why) assert.fail(why);
  await w.waitIdle();
  const reqs = w.fake.requests.slice(first);
  const chat = reqs.filter((r) => r.body?.model === CHAT_MODEL);
  assert.deepEqual(
    reqs.filter((r) => !r.valid).map((r) => r.error),
    [],
    'every request of the turn was valid: none refused as too long',
  );
  assert.equal(chat.length, ROUNDS + 1, 'one chat request per round, plus the final one');
  const peak = Math.max(...chat.map((r) => r.inputTokens));
  assert.ok(
    peak + chat[0].body.max_tokens <= WINDOW,
    `the largest prompt (${peak}) and the answer reserve fit the window`,
  );
  for (let i = 1; i < chat.length; i++) {
    const result = chat[i].body.messages.at(-1).content.find((b) => b.type === 'tool_result');
    assert.ok(result && !result.is_error, `request ${i + 1} carries the result of round ${i}`);
    assert.match(
      JSON.stringify(result.content),
      new RegExp(`mod${pad(i)}Step1\\(`),
      `round ${i} read ${modulePath(i)}`,
    );
    assert.ok(requestText(chat[i]).includes(REQUEST), `request ${i + 1} still carries the user's words verbatim`);
  }
  assert.equal(await w.frame.locator('.item.error').count(), 0, 'no error in the chat');
  return { reqs, chat, peak };
}

/** The entries of the session file that holds the long request. */
function sessionOf(w) {
  const file = w
    .sessionEntries()
    .find((f) =>
      f.entries.some(
        (e) => e.type === 'message' && e.message.blocks.some((b) => b.type === 'text' && b.text === REQUEST),
      ),
    );
  assert.ok(file, 'the session file exists');
  return file.entries;
}
/** Its compaction records, in the order they were written. */
const recordsOf = (w) =>
  sessionOf(w)
    .filter((e) => e.type === 'compaction')
    .map((e) => ({ ...e, layer: e.meta.layer, regions: JSON.parse(e.meta.regions) }));
const describeRecords = (records) =>
  records.map((r) => `${r.layer}/${r.trigger} ${fmt(r.tokensBefore)}→${fmt(r.tokensAfter)}`).join('; ');

/** Helpers acting on one world's UI. */
function ui(w, workbench) {
  return {
    /** The Compactions pane (expanded) of the side bar. */
    async compactionsPane() {
      const header = workbench.viewHeader(w.page, 'Compactions');
      await header.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
      await eventually(async () => (await header.getAttribute('aria-expanded')) === 'true', {
        what: 'the Compactions view to expand',
      });
      return w.page
        .locator('.part.sidebar .pane')
        .filter({ has: w.page.locator('.pane-header[aria-label="Compactions Section"]') });
    },
    /** The tree row of a compaction record (by its "before → after" description). */
    recordRow(pane, rec) {
      return pane
        .locator('.monaco-list-row[aria-level="2"]')
        .filter({
          has: w.page.locator('.label-description', { hasText: `${fmt(rec.tokensBefore)} → ${fmt(rec.tokensAfter)}` }),
        })
        .first();
    },
    /** Clicks a tree row (which toggles it) until it is in the state wanted. */
    async setExpanded(r, expanded) {
      await r.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      if ((await r.getAttribute('aria-expanded')) !== String(expanded)) await r.click();
      await eventually(async () => (await r.getAttribute('aria-expanded')) === String(expanded), {
        what: 'a tree row to toggle',
      });
    },
    /** Scrolls the Compactions tree back to its top (the newest compaction). */
    async treeToTop(pane) {
      const session = pane.locator('.monaco-list-row[aria-level="1"]').first();
      await pane.locator('.monaco-list').first().hover();
      await eventually(async () => (await session.isVisible()) || void (await w.page.mouse.wheel(0, -1_000)), {
        what: 'the tree to scroll to its top',
      });
    },
    /** Drags the sash above the Compactions pane up so the tree has room; drags again while a busy machine swallowed the drag. */
    async enlargeCompactions() {
      const header = workbench.viewHeader(w.page, 'Compactions');
      const top = (await header.boundingBox()).y;
      const deadline = Date.now() + UI_TIMEOUT;
      for (;;) {
        let best;
        for (const s of await w.page.locator('.part.sidebar .monaco-sash.horizontal').all()) {
          const b = await s.boundingBox();
          const now = (await header.boundingBox()).y;
          if (b && b.width > 0 && (!best || Math.abs(b.y - now) < Math.abs(best.y - now))) best = b;
        }
        assert.ok(best, 'the sash above the Compactions view was found');
        const [x, y] = [best.x + best.width / 2, best.y + best.height / 2];
        await w.page.mouse.move(x, y);
        await w.page.mouse.down();
        await w.page.mouse.move(x, y - 120, { steps: 5 });
        await w.page.mouse.move(x, y - 240, { steps: 5 });
        await w.page.mouse.up();
        const grew = await eventually(async () => (await header.boundingBox()).y < top - 150, {
          what: 'the Compactions view to grow',
          timeout: GESTURE_TRY,
        }).then(
          () => true,
          () => false,
        );
        if (grew) return;
        if (Date.now() > deadline) throw new Error('the Compactions view did not grow after dragging its sash');
      }
    },
    /** Runs Restore from a tree row's context menu. */
    async restore(r) {
      await r.click({ button: 'right' });
      const menu = w.page.locator('.context-view .monaco-menu');
      const item = menu.locator('.action-item', { hasText: /^Restore$/ });
      await item.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      // A click that lands while the menu is still settling can be ignored: click until the menu closes.
      await eventually(
        async () => {
          if (await menu.isVisible()) await item.click({ timeout: 2_000 }).catch(() => undefined);
          return !(await menu.isVisible());
        },
        { what: 'the Restore menu item to be taken' },
      );
    },
    /** Scrolls the chat's (virtualised) transcript to its top or bottom. */
    async scrollChat(where) {
      await w.frame.evaluate((to) => {
        const s = /** @type {HTMLElement} */ (document.querySelector('.scroll'));
        s.scrollTop = to === 'top' ? 0 : s.scrollHeight;
      }, where);
    },
    async shot(name, list) {
      await w.page.mouse.move(10, 890);
      list.push(await workbench.screenshot(w.page, name));
    },
  };
}

describe('one long turn in a 24k window, masking off: summaries inside the turn', { timeout: 1_200_000 }, () => {
  let w;
  let workbench;
  let u;
  let turn;
  const shots = [];

  before(async () => {
    workbench = await import('./workbench.mjs');
    w = await startAgentWorld({
      workspaceFiles: WORKSPACE,
      fakeWindow: WINDOW,
      // keepRecentTurns 0: only the token budget protects the newest history, so the turn in
      // progress is compacted from the soft threshold on; keepRecentTokens 0: a short second turn
      // leaves the first one to Compact Now.
      settings: {
        'contextPipeline.contextWindow': WINDOW,
        'contextPipeline.maxToolRounds': 60,
        'contextPipeline.maskToolResults': false,
        'contextPipeline.keepRecentTurns': 0,
        'contextPipeline.keepRecentTokens': 0,
      },
    });
    u = ui(w, workbench);
    await workbench.widenSidebar(w.page);
  });

  after(async () => {
    if (!w) return;
    await workbench.screenshot(w.page, 'long-turn-last').catch(() => undefined);
    const invalid = w.fake.invalidRequests.map((r) => r.error);
    process.stderr.write(
      `[long-turn] the fake server received ${w.fake.requests.length} requests, ${invalid.length} invalid; screenshots: ${shots.join(', ')}\n`,
    );
    await w.close();
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });

  test(`one request runs ${ROUNDS} read_file rounds and completes with no refusal`, async () => {
    turn = await runLongTurn(w);
    const summaries = turn.reqs.filter((r) => r.body?.model === SUMMARISER);
    process.stderr.write(
      `[long-turn] masking off: ${turn.chat.length} chat requests, peak prompt ${turn.peak} of ${WINDOW} tokens, ${summaries.length} summariser requests\n`,
    );
    await u.scrollChat('bottom');
    await u.shot('long-turn-end', shots);
  });

  test('the summaries were made inside the turn, and the chat shows them', async () => {
    const entries = sessionOf(w);
    const records = recordsOf(w);
    process.stderr.write(`[long-turn] compactions: ${describeRecords(records)}\n`);
    const summarised = records.filter((r) => r.layer === 'summarise');
    assert.ok(summarised.length >= 1, 'at least one summary');
    assert.equal(records.filter((r) => r.layer === 'mask').length, 0, 'masking is off');
    for (const r of summarised) {
      assert.deepEqual(
        r.regions.map((g) => [g.firstTurn, g.lastTurn]),
        [[1, 1]],
        'each summary covers rounds of turn 1, the turn in progress',
      );
      assert.ok(
        r.tokensAfter < r.tokensBefore,
        `the summary is smaller than what it replaced (${r.tokensBefore} → ${r.tokensAfter})`,
      );
    }
    const finalAt = entries.findIndex(
      (e) => e.type === 'message' && e.message.blocks.some((b) => b.type === 'text' && b.text === FINAL),
    );
    assert.ok(
      entries.findIndex((e) => e.type === 'compaction') < finalAt,
      'the first summary was written before the final answer',
    );
    // The summariser was asked between chat requests, and the next chat request carried the summary after the user's words.
    const firstSum = turn.reqs.findIndex((r) => r.body?.model === SUMMARISER);
    const next = turn.reqs.slice(firstSum).find((r) => r.body?.model === CHAT_MODEL);
    assert.ok(firstSum > 0 && next && next !== turn.chat[0], 'chat requests came before and after the first summary');
    const text = requestText(next);
    assert.ok(
      /Summary of turns? 1(–1)?:/.test(text) && text.includes(SUMMARY),
      'the request after the summary carries it',
    );
    assert.ok(text.indexOf(REQUEST) < text.indexOf(SUMMARY), "the user's words stand before the in-turn summary");
    const results = turn.chat
      .at(-1)
      .body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b) => b.type === 'tool_result');
    assert.ok(
      results.length < ROUNDS / 2,
      `the last request carries ${results.length} of the ${ROUNDS} results; the others are in the summary`,
    );

    // The chat: the request, then the card that stands for the summarised rounds.
    await u.scrollChat('top');
    const card = w.frame.locator('.summary-card').first();
    await card.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(
      await card.locator('summary').innerText(),
      'Earlier tool rounds of turn 1 were compacted into a summary.',
    );
    const firstTwo = await w.frame
      .locator('.transcript [data-id]')
      .evaluateAll((els) => els.slice(0, 2).map((e) => e.className));
    assert.match(firstTwo[0], /\buser\b/, `the user's request comes first: ${firstTwo}`);
    assert.match(firstTwo[1], /summary-card/, `then the summary: ${firstTwo}`);
    assert.deepEqual(
      await w.frame.locator('.item.user .text').allInnerTexts(),
      [REQUEST],
      'the request is shown once, verbatim',
    );
    await card.locator('summary').click();
    await card
      .locator('.summary-text', { hasText: 'one file at a time' })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await u.shot('long-turn-summary-card', shots);
    await card.locator('summary').click();
  });

  test('the Compactions view lists the summaries with their originals', async () => {
    const records = recordsOf(w);
    const pane = await u.compactionsPane();
    const session = pane.locator('.monaco-list-row[aria-level="1"]').first();
    await session.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await u.enlargeCompactions();
    assert.equal(
      await session.locator('.label-description').innerText(),
      `${records.length} compaction${records.length === 1 ? '' : 's'}`,
    );
    const newest = records.at(-1);
    const row = u.recordRow(pane, newest);
    await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match(await row.locator('.label-name').innerText(), /^Auto \((hard|soft)\) · /);
    await u.setExpanded(row, true);
    await pane
      .locator('.monaco-list-row[aria-level="3"]', { hasText: 'Summary' })
      .first()
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const region = pane
      .locator('.monaco-list-row[aria-level="3"]')
      .filter({ has: w.page.locator('.label-name', { hasText: /^Turns? 1(–1)?$/ }) })
      .first();
    assert.equal(
      await region.locator('.label-description').innerText(),
      `${newest.originals.length} messages · ${fmt(newest.tokensBefore)} tokens`,
    );
    await u.setExpanded(region, true);
    const originals = pane.locator('.monaco-list-row[aria-level="4"]');
    await originals.first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const labels = await originals.locator('.label-name').allInnerTexts();
    assert.ok(
      labels.includes('assistant · turn 1') && labels.includes('user · turn 1'),
      `the originals are listed: ${labels.join(', ')}`,
    );
    await u.shot('long-turn-tree', shots);
    await u.setExpanded(row, false);
  });

  test('Restore of a summary that a later one folded in is refused, with the reason shown', async (t) => {
    const records = recordsOf(w);
    if (records.length < 2) return t.skip('only one summary: nothing was folded in');
    const pane = await u.compactionsPane();
    // The tree lists the newest first: End focuses (and reveals) the oldest.
    await u.recordRow(pane, records.at(-1)).click();
    await w.page.keyboard.press('End');
    const oldest = u.recordRow(pane, records[0]);
    await eventually(async () => (await oldest.getAttribute('class')).includes('focused'), {
      what: 'the oldest compaction to be focused',
    });
    await u.restore(oldest);
    const toast = w.page.locator(WARNING_TOAST, { hasText: 'could not restore' });
    await toast.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match(await toast.innerText(), /A later compaction includes part of this one; restore that one first\./);
    assert.ok(
      !(await oldest.locator('.label-description').innerText()).includes('restored'),
      'the refused compaction is not marked restored',
    );
    assert.ok(!sessionOf(w).some((e) => e.type === 'restore'), 'nothing was restored');
    await u.shot('long-turn-restore-refused', shots);
  });

  test('Compact Now after a second turn: the preview matches the run, and Restore brings the originals back', async () => {
    w.fake.script({ match: { model: CHAT_MODEL }, text: SECOND_ANSWER });
    await w.send(SECOND);
    await w.waitForAnswer(SECOND_ANSWER);
    await w.waitIdle();
    const before = recordsOf(w).length;

    await w.command('Context Pipeline: Compact Now');
    const widget = w.page.locator('.quick-input-widget');
    const prompt = widget.locator('.quick-input-message', { hasText: 'Would compact' });
    await prompt.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const sentence = await prompt.innerText();
    const m =
      /Would compact (turns? [\d–]+(?:, turns? [\d–]+)*): about ([\d,]+) → ([\d,]+) tokens \(saves ~([\d,]+)\)\. The whole prompt: about ([\d,]+) → ([\d,]+) tokens\./.exec(
        sentence,
      );
    assert.ok(m, sentence);
    const [, turns, a, , c, promptBefore] = m;
    await u.shot('long-turn-compact-now-preview', shots);
    await widget.locator('input').press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    await w.page
      .locator(WARNING_TOAST, { hasText: 'compaction done' })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });

    const manual = recordsOf(w).slice(before);
    assert.ok(
      manual.length >= 1 && manual.every((r) => r.trigger === 'manual' && r.layer === 'summarise'),
      `Compact Now wrote summaries: ${describeRecords(manual)}`,
    );
    const ran = manual
      .flatMap((r) => r.regions)
      .map((g) => (g.firstTurn === g.lastTurn ? `turn ${g.firstTurn}` : `turns ${g.firstTurn}–${g.lastTurn}`))
      .join(', ');
    assert.equal(ran, turns, 'the run compacted the turns the preview named');
    const tokensBefore = manual.reduce((n, r) => n + r.tokensBefore, 0);
    const off = Math.abs(num(a) - tokensBefore) / tokensBefore;
    process.stderr.write(
      `[long-turn] Compact Now preview: ${turns}, about ${a} tokens (saves ~${c}; prompt ${promptBefore}); the run: ${describeRecords(manual)} (${(off * 100).toFixed(2)} % off)\n`,
    );
    assert.ok(
      off <= 0.03,
      `the preview's "about ${a}" is within 3 % of the ${fmt(tokensBefore)} tokens the run replaced`,
    );
    assert.ok(num(promptBefore) > num(a), 'the whole prompt is more than the compacted part');

    // The chat: turn 1 is one summary card now; the second turn stands as it was.
    await eventually(
      async () => (await w.frame.locator('.item.assistant .text', { hasText: 'Audit done' }).count()) === 0,
      { what: 'the final answer of turn 1 to be compacted' },
    );
    assert.equal(
      await w.frame.locator('.summary-card summary').first().innerText(),
      'Turn 1 was compacted into a summary.',
    );
    assert.deepEqual(
      await w.frame.locator('.item.user .text').allInnerTexts(),
      [REQUEST, SECOND],
      "the user's words stay verbatim",
    );

    // The tree shows it; Restore brings the originals back in the chat and marks it restored.
    const pane = await u.compactionsPane();
    await u.treeToTop(pane);
    const row = u.recordRow(pane, manual.at(-1));
    await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match(await row.locator('.label-name').innerText(), /^Manual · /);
    await u.restore(row);
    await w.page
      .locator(WARNING_TOAST, { hasText: 'the original messages are back' })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await eventually(async () => (await row.locator('.label-description').innerText()).endsWith('· restored'), {
      what: 'the compaction to show "· restored"',
    });
    assert.ok(
      sessionOf(w).some((e) => e.type === 'restore' && e.compactionId === manual.at(-1).id),
      'the restore is in the session file',
    );
    await w.waitForAnswer('Audit done: I read all');
    assert.equal(
      await w.frame.locator('.summary-card summary').first().innerText(),
      'Earlier tool rounds of turn 1 were compacted into a summary.',
      'the in-turn summary is back, as before Compact Now',
    );
    await u.shot('long-turn-restored', shots);
  });
});

describe('the same long turn with masking on (the default)', { timeout: 900_000 }, () => {
  let w;
  let workbench;
  let u;
  const shots = [];

  before(async () => {
    workbench = await import('./workbench.mjs');
    w = await startAgentWorld({
      workspaceFiles: WORKSPACE,
      fakeWindow: WINDOW,
      settings: { 'contextPipeline.contextWindow': WINDOW, 'contextPipeline.maxToolRounds': 60 },
    });
    u = ui(w, workbench);
    await workbench.widenSidebar(w.page);
  });

  after(async () => {
    if (!w) return;
    await workbench.screenshot(w.page, 'long-turn-masked-last').catch(() => undefined);
    const invalid = w.fake.invalidRequests.map((r) => r.error);
    process.stderr.write(
      `[long-turn] masking on: the fake server received ${w.fake.requests.length} requests, ${invalid.length} invalid; screenshots: ${shots.join(', ')}\n`,
    );
    await w.close();
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });

  test(`${ROUNDS} rounds complete with older results masked inside the turn`, async () => {
    const turn = await runLongTurn(w);
    const records = recordsOf(w);
    process.stderr.write(
      `[long-turn] masking on: ${turn.chat.length} chat requests, peak prompt ${turn.peak} of ${WINDOW} tokens; compactions: ${describeRecords(records)}\n`,
    );
    const masked = records.filter((r) => r.layer === 'mask');
    assert.ok(masked.length >= 1, 'older results were masked');
    const entries = sessionOf(w);
    const finalAt = entries.findIndex(
      (e) => e.type === 'message' && e.message.blocks.some((b) => b.type === 'text' && b.text === FINAL),
    );
    assert.ok(
      entries.findIndex((e) => e.type === 'compaction' && e.meta.layer === 'mask') < finalAt,
      'the first masking happened before the final answer',
    );
    const stubs = turn.chat
      .at(-1)
      .body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter(
        (b) =>
          b.type === 'tool_result' &&
          JSON.stringify(b.content).includes('[Tool result cleared to save context: read_file'),
      );
    assert.ok(stubs.length >= 1, 'the last request carries masked results: the call stays, its output is a stub');

    // A masked card in the chat says what happened to its result.
    await u.scrollChat('bottom');
    await u.shot('long-turn-masked-end', shots);
    await u.scrollChat('top');
    const card = w.frame.locator('.item.tool', { hasText: 'read_file' }).first();
    await card.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match(
      await card.locator('summary').innerText(),
      /^read_file ✓ · result cleared · [\d,]+ tokens$/,
      'the collapsed card says its result was cleared',
    );
    await card.locator('summary').click();
    assert.match(
      await card.locator('pre').last().innerText(),
      /^\[Tool result cleared to save context: read_file src\/mod\d\d\.ts returned about [\d,]+ tokens\./,
    );
    await u.shot('long-turn-masked-card', shots);
  });
});
