// The long turn of longTurn.test.mjs on Claude Fable 5.1, whose every answer starts with a signed
// thinking block, in a real VS Code against the fake Anthropic server. Fable checks the prefix of
// each thinking block sent back and refuses one whose earlier context changed (the fake does too,
// test/fake-anthropic/thinkingPrefix.ts) — and compacting inside the turn changes it. The turn
// must complete with every request valid: thinking after an edit is left out, new thinking is sent.
//   node esbuild.mjs && npm run package && node test/vscode/setup.mjs
//   node --import tsx --test --test-concurrency=1 test/vscode/longTurnPreservedThinking.test.mjs
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeRecords, longTurnWorld, recordsOf, ROUNDS, runLongTurn } from './longTurnScenario.mjs';

/** @typedef {import('./agentHarness.mjs').SentRequest} SentRequest */

const MODEL = 'claude-fable-5-1';

/**
 * The thinking blocks a request sent back.
 * @param {SentRequest} req
 */
const thinkingIn = (req) =>
  req.body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'thinking')
    .length;

describe('the long turn on a model with preserved thinking', { timeout: 900_000 }, () => {
  const world = longTurnWorld({
    label: 'preserved thinking',
    shot: 'long-turn-thinking',
    settings: { 'contextPipeline.model': MODEL },
  });

  test(`${ROUNDS} rounds with thinking complete although the turn is compacted inside`, async () => {
    const { w, u, shots } = world;
    const turn = await runLongTurn(w, { model: MODEL, thinking: true });
    const records = recordsOf(w);
    const sent = turn.chat.map(thinkingIn);
    process.stderr.write(
      `[long-turn] preserved thinking: compactions ${describeRecords(records)}; thinking blocks sent per request: ${sent.join(',')}\n`,
    );
    assert.ok(records.length >= 1, 'the turn was compacted');
    assert.deepEqual(sent.slice(0, 3), [0, 1, 2], 'before any edit, every earlier thinking block goes back');
    const last = /** @type {number} */ (sent.at(-1));
    assert.ok(last < ROUNDS, `thinking after an edit is left out (${last} of ${ROUNDS} sent)`);
    // Thinking produced after an edit is bound to the request that left the older thinking out,
    // so the next request sends it: after the first edit, requests with no edit of their own
    // send one block more than the request before them.
    const firstEdit = sent.findIndex((n, i) => i > 0 && n < /** @type {number} */ (sent[i - 1]) + 1);
    const grew = sent.filter((n, i) => i > firstEdit && n > /** @type {number} */ (sent[i - 1])).length;
    assert.ok(firstEdit > 0 && grew >= 5, `thinking produced after an edit is sent again (${grew} requests)`);
    await u.scrollChat('bottom');
    await u.shot('long-turn-thinking-end', shots);
  });
});
