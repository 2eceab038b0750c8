// One long agent turn in the smallest useful window, in a real VS Code against the fake
// Anthropic server. The window is 24 000 tokens, the fake server's too, so an oversized
// request is refused. ONE user request runs 42 read_file rounds over files of 200 lines
// (~2 700 tokens each), then gives the final answer: compaction has to happen inside the turn.
//  - Masking off: the older rounds are summarised while the turn runs (layer `summarise`); the
//    chat shows the summary card and the Compactions view the records with their originals;
//    Restore of a summary a later one folded in is refused, with the reason shown; after a
//    second turn, Compact Now's preview matches what the run then does, and Restore of that
//    compaction brings the originals back.
//  - Masking on (the default): longTurnMasked.test.mjs (the scenario: longTurnScenario.mjs).
// Every request must be valid and none refused as too long.
//   node esbuild.mjs && npm run package && node test/vscode/setup.mjs
//   node --import tsx --test --test-concurrency=1 test/vscode/longTurn.test.mjs
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UI_TIMEOUT } from './timeouts.mjs';
import {
  CHAT_MODEL,
  describeRecords,
  eventually,
  FINAL,
  fmt,
  longTurnWorld,
  num,
  recordsOf,
  REQUEST,
  requestText,
  ROUNDS,
  runLongTurn,
  SECOND,
  SECOND_ANSWER,
  sessionOf,
  SUMMARISER,
  SUMMARY,
  WARNING_TOAST,
  WINDOW,
} from './longTurnScenario.mjs';

/**
 * @typedef {import('./agentHarness.mjs').SentRequest} SentRequest
 * @typedef {import('../../src/core/session/entries.ts').CompactionEntry} CompactionEntry
 */

describe('one long turn in a 24k window, masking off: summaries inside the turn', { timeout: 1_200_000 }, () => {
  // keepRecentTurns 0: only the token budget protects the newest history, so the turn in
  // progress is compacted from the soft threshold on; keepRecentTokens 0: a short second turn
  // leaves the first one to Compact Now.
  const world = longTurnWorld({
    label: 'masking off',
    shot: 'long-turn',
    settings: {
      'contextPipeline.maskToolResults': false,
      'contextPipeline.keepRecentTurns': 0,
      'contextPipeline.keepRecentTokens': 0,
    },
  });
  /** @type {Awaited<ReturnType<typeof runLongTurn>>} */
  let turn;

  test(`one request runs ${ROUNDS} read_file rounds and completes with no refusal`, async () => {
    const { w, u, shots } = world;
    turn = await runLongTurn(w);
    const summaries = turn.reqs.filter((r) => r.body?.model === SUMMARISER);
    process.stderr.write(
      `[long-turn] masking off: ${turn.chat.length} chat requests, peak prompt ${turn.peak} of ${WINDOW} tokens, ${summaries.length} summariser requests\n`,
    );
    await u.scrollChat('bottom');
    await u.shot('long-turn-end', shots);
  });

  test('the summaries were made inside the turn, and the chat shows them', async () => {
    const { w, u, shots } = world;
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
    const results = /** @type {SentRequest} */ (turn.chat.at(-1)).body.messages
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
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

    // The summarised rounds stay in view: a collapsed group after the card opens to their tool rows.
    const group = w.frame.locator('[data-testid="transcript"] > [data-testid="compacted-group"]').first();
    const title = group.locator(':scope > summary');
    const counts = await title.innerText();
    const calls = Number(/(\d+) tool calls?/.exec(counts)?.[1] ?? 0);
    assert.ok(calls >= 2 && counts.endsWith(' · summarised'), counts);
    await title.click();
    const rows = group.locator('.item.tool .tool-name');
    await rows.first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const names = await rows.allInnerTexts();
    assert.ok(
      names.length >= 2 && names.length <= calls && names.every((t) => /^Read src\/mod\d\d\.ts$/.test(t)),
      `the rows of the summarised rounds (an earlier summary's inside its own group; the title counts them all): ${names.join(', ')}`,
    );
    assert.ok(
      names.includes('Read src/mod01.ts') || (await group.locator('[data-testid="compacted-group"]').count()) > 0,
    );
    await u.shot('long-turn-compacted-group', shots);
    await u.docsShot('light-long-turn', shots);
    await title.click();
  });

  test('the Compactions view lists the summaries with their originals', async () => {
    const { w, u, shots } = world;
    const records = recordsOf(w);
    const pane = await u.compactionsPane();
    const session = pane.locator('.monaco-list-row[aria-level="1"]').first();
    await session.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await u.enlargeCompactions();
    assert.equal(
      await session.locator('.label-description').innerText(),
      `${records.length} compaction${records.length === 1 ? '' : 's'}`,
    );
    // The turn's automatic compactions group under it, described by what they did (all summaries).
    assert.ok(
      records.length >= 2 && records.every((r) => r.trigger !== 'manual' && r.layer === 'summarise'),
      `the turn compacted itself more than once: ${describeRecords(records)}`,
    );
    const newest = /** @type {CompactionEntry} */ (records.at(-1));
    const group = u.turnGroupRow(pane, 1);
    await group.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(await group.locator('.label-name').innerText(), `Turn 1 · ${records.length} automatic compactions`);
    assert.equal(await group.locator('.label-description').innerText(), 'summary');
    assert.equal(
      await pane.locator('.monaco-list-row[aria-level="2"]').count(),
      1,
      "the group is the session's only top-level row",
    );
    await u.setExpanded(group, true);
    const row = u.recordRow(pane, newest, 3);
    await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match(await row.locator('.label-name').innerText(), /^Auto \((hard|soft)\) · /);
    await u.setExpanded(row, true);
    // Plain words: what stands in place of the originals, not the layer's id.
    const summary = pane
      .locator('.monaco-list-row[aria-level="4"]')
      .filter({ has: w.page.locator('.label-name', { hasText: /^Summary$/ }) })
      .first();
    await summary.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const region = pane
      .locator('.monaco-list-row[aria-level="4"]')
      .filter({ has: w.page.locator('.label-name', { hasText: /^Turns? 1(–1)?$/ }) })
      .first();
    assert.equal(
      await region.locator('.label-description').innerText(),
      `${newest.originals.length} messages · ${fmt(newest.tokensBefore)} tokens`,
    );
    await u.setExpanded(region, true);
    const originals = pane.locator('.monaco-list-row[aria-level="5"]');
    await originals.first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    // Each row says what its message held, as the chat names it: the call by its tool and path,
    // the result by its call, its size in the description.
    const rows = await originals.evaluateAll((els) =>
      els.map((e) => ({
        label: e.querySelector('.label-name')?.textContent ?? '',
        description: e.querySelector('.label-description')?.textContent ?? '',
      })),
    );
    const said = rows.map((r) => `${r.label} — ${r.description}`).join(' | ');
    assert.ok(
      rows.some((r) => /^Read src\/mod\d\d\.ts$/.test(r.label)),
      `a call is named as the chat names it: ${said}`,
    );
    assert.ok(
      rows.some((r) => /^Result of Read src\/mod\d\d\.ts$/.test(r.label) && /^[\d,]+ chars$/.test(r.description)),
      `a result is named by its call, with its size: ${said}`,
    );
    assert.ok(!rows.some((r) => /· turn \d|^(user|assistant)\b/.test(r.label)), `no role ids in the labels: ${said}`);
    await u.shot('long-turn-tree', shots);
    await u.setExpanded(row, false);
  });

  test('Restore of a summary that a later one folded in is refused, with the reason shown', async (t) => {
    const { w, u, shots } = world;
    const records = recordsOf(w);
    if (records.length < 2) return t.skip('only one summary: nothing was folded in');
    const pane = await u.compactionsPane();
    // The group (expanded) lists the newest first: End focuses (and reveals) the oldest.
    await u.setExpanded(u.turnGroupRow(pane, 1), true);
    await u.recordRow(pane, /** @type {CompactionEntry} */ (records.at(-1)), 3).click();
    await w.page.keyboard.press('End');
    const oldest = u.recordRow(pane, records[0], 3);
    await eventually(async () => /** @type {string} */ (await oldest.getAttribute('class')).includes('focused'), {
      what: 'the oldest compaction to be focused',
    });
    await u.restore(oldest);
    const toast = w.page.locator(WARNING_TOAST, { hasText: 'could not restore' });
    await toast.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    // The reason names the later summary (as the Compactions view shows it) that must be restored first.
    assert.match(
      await toast.innerText(),
      /A later compaction \(Auto \(hard\) · summary, turns? [\d–]+\) changed messages this one would put back; restoring this one now would undo that change too\. Restore that one first\./,
    );
    assert.ok(
      !(await oldest.locator('.label-description').innerText()).includes('restored'),
      'the refused compaction is not marked restored',
    );
    assert.ok(!sessionOf(w).some((e) => e.type === 'restore'), 'nothing was restored');
    await u.shot('long-turn-restore-refused', shots);
  });

  test('Compact Now after a second turn: the preview matches the run, and Restore brings the originals back', async () => {
    const { w, u, shots } = world;
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
      /Would compact (turns? [\d–]+(?:, turns? [\d–]+)*): about ([\d,]+) → ([\d,]+) tokens \(saves ~([\d,]+)\)\.(?: Then .*?: ~[\d,]+ tokens as the files are now\.)? The whole prompt: about ([\d,]+) → ([\d,]+) tokens\./.exec(
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
    const row = u.recordRow(pane, /** @type {CompactionEntry} */ (manual.at(-1)));
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
      sessionOf(w).some(
        (e) => e.type === 'restore' && e.compactionId === /** @type {CompactionEntry} */ (manual.at(-1)).id,
      ),
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
