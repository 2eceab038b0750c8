// The long turn of longTurn.test.mjs with masking on (the default), in a real VS Code against the
// fake Anthropic server: the same 42-round turn completes in a 24k window, older results masked
// inside the turn. Every request must be valid and none refused as too long.
//   node esbuild.mjs && npm run package && node test/vscode/setup.mjs
//   node --import tsx --test --test-concurrency=1 test/vscode/longTurnMasked.test.mjs
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UI_TIMEOUT } from './timeouts.mjs';
import {
  describeRecords,
  eventually,
  FINAL,
  longTurnWorld,
  recordsOf,
  ROUNDS,
  runLongTurn,
  sessionOf,
  WINDOW,
} from './longTurnScenario.mjs';

/**
 * @typedef {import('./agentHarness.mjs').SentRequest} SentRequest
 * @typedef {import('../../src/core/session/entries.ts').CompactionEntry} CompactionEntry
 */

describe('the same long turn with masking on (the default)', { timeout: 900_000 }, () => {
  // In the dark theme: the README shows this card in dark, the summarised group (longTurn) in light.
  const world = longTurnWorld({
    label: 'masking on',
    shot: 'long-turn-masked',
    settings: { 'workbench.colorTheme': 'Default Dark Modern' },
  });

  test(`${ROUNDS} rounds complete with older results masked inside the turn`, async () => {
    const { w, u, shots } = world;
    const turn = await runLongTurn(w);
    const records = recordsOf(w);
    process.stderr.write(
      `[long-turn] masking on: ${turn.chat.length} chat requests, peak prompt ${turn.peak} of ${WINDOW} tokens; compactions: ${describeRecords(records)}\n`,
    );
    const masked = records.filter((r) => r.layer === 'mask');
    assert.ok(masked.length >= 2, 'older results were masked, more than once');
    // A request that reads less than the one before it cached follows a compaction. After a mask,
    // the next compaction reads back what it settled (the breakpoint at its end is kept): only a
    // first mask or a summary writes everything after the system prompt again.
    const reads = turn.chat.map((r) => r.usage?.cache_read_input_tokens ?? 0);
    const cached = turn.chat.map((r, i) => (reads[i] ?? 0) + (r.usage?.cache_creation_input_tokens ?? 0));
    const edited = reads.filter((read, i) => i > 0 && read < (cached[i - 1] ?? 0));
    const stable = Math.min(...edited);
    const settled = edited.filter((read) => read > stable);
    assert.ok(
      settled.length >= edited.length / 2,
      `most compactions read what the one before settled: reads ${edited.join(', ')} (the stable prefix is ${stable})`,
    );
    const entries = sessionOf(w);
    const finalAt = entries.findIndex(
      (e) => e.type === 'message' && e.message.blocks.some((b) => b.type === 'text' && b.text === FINAL),
    );
    assert.ok(
      entries.findIndex((e) => e.type === 'compaction' && e.layer === 'mask') < finalAt,
      'the first masking happened before the final answer',
    );
    // The requests after a masking carry its stubs (until a summary takes them): the call stays,
    // its output is a stub.
    const blocksOf = (/** @type {SentRequest} */ r) =>
      r.body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    const withStubs = turn.chat
      .map((r) => ({
        blocks: blocksOf(r),
        stubs: blocksOf(r).filter(
          (b) =>
            b.type === 'tool_result' &&
            JSON.stringify(b.content).includes('[Tool result cleared to save context: read_file'),
        ),
      }))
      .filter((r) => r.stubs.length > 0);
    assert.ok(withStubs.length >= 1, 'requests carry masked results');
    for (const r of withStubs)
      for (const stub of r.stubs)
        assert.ok(
          r.blocks.some((b) => b.type === 'tool_use' && 'tool_use_id' in stub && b.id === stub.tool_use_id),
          'the call of a masked result stays in the request',
        );

    // A masked card in the chat says what happened to its result.
    await u.scrollChat('bottom');
    await u.shot('long-turn-masked-end', shots);
    await u.scrollChat('top');
    // When the turn's last compaction was a summary, the masked cards are among the summarised
    // rounds (their originals, as they stood when summarised): open the groups until one shows.
    const cleared = w.frame.locator('.item.tool', { hasText: 'result cleared' });
    for (let i = 0; i < 8 && (await cleared.count()) === 0; i++) {
      const closed = w.frame.locator('[data-testid="compacted-group"]:not([open]) > summary').first();
      if ((await closed.count()) === 0) break;
      await closed.click();
    }
    const card = cleared.first();
    await card.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const row = await card.locator('summary').innerText();
    assert.match(
      row,
      /^Read src\/mod\d\d\.ts ✓ · result cleared — click to see it · [\d,]+ tokens$/,
      'the collapsed card says its result was cleared',
    );
    // Open the card; a re-render on a busy machine may replace it closed, so open it again until its result shows.
    const shown = card.locator('pre').nth(1);
    for (let i = 0; i < 5; i++) {
      if (!(await card.evaluate((d) => /** @type {HTMLDetailsElement} */ (d).open)))
        await card.locator('summary').click();
      if (
        await shown.waitFor({ state: 'visible', timeout: UI_TIMEOUT / 5 }).then(
          () => true,
          () => false,
        )
      )
        break;
    }
    await shown.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match(
      await card.locator('pre').nth(1).innerText(),
      /^\[Tool result cleared to save context: read_file src\/mod\d\d\.ts returned about [\d,]+ tokens; `recall` can read it back, or run the tool again\.\]$/,
    );
    // "click to see it": the original result, from the compaction that cleared it.
    const n = /** @type {RegExpMatchArray} */ (/mod(\d\d)\.ts/.exec(row))[1];
    await card.locator('[data-testid="cleared-result"]').click();
    const original = card.locator('[data-testid="cleared-original"]');
    await original.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.ok(
      (await original.innerText()).includes(`export function mod${n}Step1(input: number): number {`),
      'the original is the module as read_file returned it',
    );
    assert.equal(await card.getAttribute('open'), '', 'the card stays open');
    await u.shot('long-turn-masked-card', shots);
    await u.docsShot('dark-long-turn', shots);
  });

  test('the Compactions view names a masking and its results in plain words; an original opens in a titled tab', async () => {
    const { w, u, shots } = world;
    const records = recordsOf(w);
    const mask = /** @type {CompactionEntry} */ (records.filter((r) => r.layer === 'mask').at(-1));
    const pane = await u.compactionsPane();
    await u.enlargeCompactions();
    // The turn's automatic compactions group under it (a lone one stands on its own).
    const grouped = records.length >= 2;
    if (grouped) {
      const group = u.turnGroupRow(pane, 1);
      await group.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      assert.equal(await group.locator('.label-name').innerText(), `Turn 1 · ${records.length} automatic compactions`);
      // Described by what they did: the most frequent kind first.
      assert.match(await group.locator('.label-description').innerText(), /^results cleared\b/);
      await u.setExpanded(group, true);
    }
    const level = grouped ? 3 : 2;
    const row = u.recordRow(pane, mask, level);
    await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await u.setExpanded(row, true);
    const child = pane.locator(`.monaco-list-row[aria-level="${level + 1}"]`);
    await child
      .filter({ has: w.page.locator('.label-name', { hasText: /^Tool results cleared$/ }) })
      .first()
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const region = child.filter({ has: w.page.locator('.label-name', { hasText: /^Turns? 1(–1)?$/ }) }).first();
    await u.setExpanded(region, true);
    const result = pane
      .locator(`.monaco-list-row[aria-level="${level + 2}"]`)
      .filter({ has: w.page.locator('.label-name', { hasText: /^Result of Read src\/mod\d\d\.ts$/ }) })
      .first();
    await result.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.match(await result.locator('.label-description').innerText(), /^[\d,]+ chars$/);
    const label = (await result.locator('.label-name').innerText()).trim();
    await u.shot('long-turn-masked-tree', shots);

    // Opened, the original's tab says its turn and what it is (a slash drawn as ∕), not its id.
    await result.click();
    const tab = w.page.locator('.part.editor .tab.active');
    const title = `Turn 1 · ${label.replace(/\//g, '\u2215')}.md`;
    await eventually(async () => ((await tab.getAttribute('aria-label')) ?? '').includes(title), {
      what: `the tab "${title}"`,
    });
    assert.ok(!/msg_/.test((await tab.getAttribute('aria-label')) ?? ''), 'no message id in the tab title');
    await w.page
      .locator('.part.editor .monaco-editor .view-lines', { hasText: '### user · turn 1' })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await u.shot('long-turn-masked-original', shots);
  });
});
