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
  FINAL,
  longTurnWorld,
  recordsOf,
  ROUNDS,
  runLongTurn,
  sessionOf,
  WINDOW,
} from './longTurnScenario.mjs';

/** @typedef {import('./agentHarness.mjs').SentRequest} SentRequest */

describe('the same long turn with masking on (the default)', { timeout: 900_000 }, () => {
  const world = longTurnWorld({ label: 'masking on', shot: 'long-turn-masked' });

  test(`${ROUNDS} rounds complete with older results masked inside the turn`, async () => {
    const { w, u, shots } = world;
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
      entries.findIndex((e) => e.type === 'compaction' && e.layer === 'mask') < finalAt,
      'the first masking happened before the final answer',
    );
    const stubs = /** @type {SentRequest} */ (turn.chat.at(-1)).body.messages
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
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
    const card = w.frame.locator('.item.tool', { hasText: 'Read src/mod' }).first();
    await card.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const row = await card.locator('summary').innerText();
    assert.match(
      row,
      /^Read src\/mod\d\d\.ts ✓ · result cleared — click to see it · [\d,]+ tokens$/,
      'the collapsed card says its result was cleared',
    );
    await card.locator('summary').click();
    assert.match(
      await card.locator('pre').nth(1).innerText(),
      /^\[Tool result cleared to save context: read_file src\/mod\d\d\.ts returned about [\d,]+ tokens\./,
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
  });
});
