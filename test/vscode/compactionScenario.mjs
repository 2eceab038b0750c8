// The conversation the Compact Now tests in a real VS Code share (compaction.test.mjs,
// compactionStop.test.mjs; screenshots.mjs takes its world): a workspace with src/auth.ts, and three turns of chat whose answers
// are long enough (a few hundred tokens each) that summarising the older turns saves tokens.
import assert from 'node:assert/strict';
/**
 * @typedef {import('./agentHarness.mjs').AgentWorld} AgentWorld
 * @typedef {import('../fake-anthropic/request.ts').ApiRequest} ApiRequest the body of a `/v1/messages` request
 */

/** The summariser model (the default `summarizerModel`). */
export const SUMMARISER = 'claude-haiku-4-5';
/** The chat model (the default `model`). */
export const CHAT_MODEL = 'claude-sonnet-4-6';

/** @param {number} n */
const DETAIL = (n) =>
  Array.from(
    { length: 8 },
    (_, i) =>
      `Detail ${n}.${i + 1}: validateToken() in src/auth.ts compares the expiry against Date.now() without the clock-skew allowance, so a token that expires within the skew window is still accepted by the session middleware.`,
  ).join(' ');
export const Q1 = 'First question about src/auth.ts';
export const Q2 = 'Second question: where is the session middleware?';
export const Q3 = 'Third question: how would you test the fix?';
export const A1_HEAD = 'Answer one about src/auth.ts line 42.';
export const A2_HEAD = 'Answer two: the middleware lives in src/session.ts.';
export const A3_HEAD = 'Answer three: add a unit test with a fake clock.';
export const A1 = `${A1_HEAD} ${DETAIL(1)}`;
export const A2 = `${A2_HEAD} ${DETAIL(2)}`;
export const A3 = `${A3_HEAD} ${DETAIL(3)}`;
/** What the scripted summariser answers. */
export const SUMMARY = 'The user asked about `src/auth.ts` line 42; the assistant explained it.';

/** The world's options: the workspace's src/auth.ts, and settings that let Compact Now take all but the last turn. */
export const COMPACTION_WORLD = {
  workspaceFiles: {
    'src/auth.ts':
      Array.from({ length: 60 }, (_, i) =>
        i === 41 ? 'if (token.exp < Date.now()) return false; // line 42' : `// line ${i + 1}`,
      ).join('\n') + '\n',
  },
  settings: { 'contextPipeline.keepRecentTurns': 1, 'contextPipeline.keepRecentTokens': 0 },
};

/**
 * Three turns of chat, each answered by the fake server; checks the transcript shows them and
 * that only the chat model was asked.
 * @param {AgentWorld} w
 */
export async function threeTurns(w) {
  for (const [q, a, head] of [
    [Q1, A1, A1_HEAD],
    [Q2, A2, A2_HEAD],
    [Q3, A3, A3_HEAD],
  ]) {
    w.fake.script({ text: a });
    await w.send(q);
    await w.waitForAnswer(head);
    await w.waitIdle();
  }
  assert.equal(w.fake.pendingSteps, 0);
  assert.deepEqual(await w.frame.locator('.item.user .text').allInnerTexts(), [Q1, Q2, Q3]);
  assert.equal(await w.frame.locator('.item.assistant .text').count(), 3);
  assert.ok(
    w.fake.requests.every((r) => /** @type {ApiRequest} */ (r.body).model === CHAT_MODEL),
    'only the chat model was asked so far',
  );
}
