import { strict as assert } from 'node:assert';
import type { Plan } from '../../src/core/conversation/conversationModel';
import { fallbackContent, handoffText, touchedFiles, type HandoffSource } from '../../src/core/handoff/handoffContent';
import {
  buildHandoffRequest,
  fittedTranscript,
  HANDOFF_SYSTEM_PROMPT,
  parseHandoffAnswer,
} from '../../src/core/handoff/handoffPrompt';
import { writeHandoff } from '../../src/core/handoff/writeHandoff';
import { ScriptedLlm } from './support/scriptedLlm';
import { Convo } from './support/compactionBuilders';
import { summaryRecord } from './support/handoffFixtures';

const PLAN: Plan = {
  steps: [
    { step: 'Find where tokens are validated', status: 'completed' },
    { step: 'Add the clock-skew allowance', status: 'in_progress', note: 'src/auth.ts line 4' },
    { step: 'Write a unit test with a fake clock', status: 'pending' },
  ],
};

/** A session of two turns compacted (a read and an edit of src/auth.ts) and a turn in view (a read, a write). */
function source(plan: Plan | null = PLAN): HandoffSource {
  const c = new Convo();
  c.user('Fix the token expiry bug: validateToken must allow 30 s of clock skew')
    .read('src/auth.ts', 'export const validateToken = (t) => t.exp > Date.now();')
    .call('edit_file', { path: 'src/auth.ts', old_string: 'Date.now()', new_string: 'Date.now() - SKEW_MS' }, 'Edited.')
    .say('Added the allowance.');
  c.user('Now the tests')
    .read('test/auth.test.ts', 'it("expires", () => {});')
    .call('write_file', { path: 'test/clock.ts', content: 'export const fakeClock = {};' }, 'Written.')
    .say('A fake clock is in test/clock.ts.');
  const compacted = c.messages.filter((m) => m.turn === 1);
  return {
    sessionId: '2026-05-01T10-00-00-abc123',
    title: 'Fix the token expiry bug',
    messages: c.messages.filter((m) => m.turn === 2),
    compactions: [{ record: summaryRecord('cmp_1', compacted) }],
    ...(plan ? { plan } : {}),
  };
}

const ANSWER = [
  '## Goal',
  '- Make `validateToken` in `src/auth.ts` accept tokens within 30 s of expiry (clock skew).',
  '## Decisions made',
  '- A constant `SKEW_MS = 30_000` rather than a setting: the user wants no new option.',
  '## Open questions',
  '- Should the skew apply to `nbf` as well? The user has not said.',
].join('\n');

const never = () => new Promise<void>(() => undefined);

describe('handoff: the note a new session starts with', () => {
  it('the files touched come from the tool calls, compacted ones included: edited first, then read', () => {
    assert.deepEqual(touchedFiles(source()), [
      { path: 'test/clock.ts', edited: true },
      { path: 'src/auth.ts', edited: true },
      { path: 'test/auth.test.ts', edited: false },
    ]);
  });

  it('the summariser is asked for the goal, the decisions and the open questions, shown the plan and the files, not asked to repeat them', () => {
    const params = buildHandoffRequest({
      model: 'claude-haiku-4-5',
      messages: source().messages,
      plan: PLAN,
      files: touchedFiles(source()),
      instructions: 'focus on the tests',
    });
    assert.equal(params.system, HANDOFF_SYSTEM_PROMPT);
    const text = JSON.stringify(params.messages);
    assert.match(text, /"## Goal\\", \\"## Decisions made\\", \\"## Open questions\\"/);
    assert.doesNotMatch(text, /\\"## Current plan\\"/, 'the session has a plan: the model does not write one');
    assert.match(text, /<plan>\\n1\. \[x\] Find where tokens are validated/);
    assert.match(text, /test\/clock\.ts \(edited\)/);
    assert.match(text, /<user_instructions>\\nfocus on the tests/);
    assert.match(text, /A fake clock is in test\/clock\.ts/, 'the conversation is in the request');
    const noPlan = JSON.stringify(
      buildHandoffRequest({ model: 'claude-haiku-4-5', messages: source().messages, files: [] }).messages,
    );
    assert.match(noPlan, /\\"## Current plan\\"/, 'without a plan the model writes the current plan');
  });

  it('a conversation longer than the room keeps its oldest and newest messages and says what was left out', () => {
    const c = new Convo();
    for (let i = 1; i <= 40; i++) c.user(`request ${i} ${'x'.repeat(200)}`).say(`answer ${i}`);
    const text = fittedTranscript(c.messages, 4_000);
    assert.ok(text.length <= 4_200, `${text.length} characters`);
    assert.match(text, /request 1 /);
    assert.match(text, /answer 40/);
    assert.match(text, /messages of the middle left out/);
  });

  it('the answer is taken apart by its headings; text outside them is kept with the section before', () => {
    assert.deepEqual(parseHandoffAnswer(`Preamble.\n${ANSWER}\n### Notes\nmore`), {
      Goal: 'Preamble.\n- Make `validateToken` in `src/auth.ts` accept tokens within 30 s of expiry (clock skew).',
      'Decisions made': '- A constant `SKEW_MS = 30_000` rather than a setting: the user wants no new option.',
      'Open questions': '- Should the skew apply to `nbf` as well? The user has not said.\n### Notes\nmore',
    });
    assert.deepEqual(parseHandoffAnswer('## goal:\nA\n# Decisions\nB\n## Current Plan\n1. C'), {
      Goal: 'A',
      'Decisions made': 'B',
      'Current plan': '1. C',
    });
  });

  it('writes the note: goal, decisions made, the current plan, files touched, open questions and the link to the old session', async () => {
    const llm = new ScriptedLlm([{ content: [{ type: 'text', text: ANSWER }] }]);
    const r = await writeHandoff(source(), {
      llm,
      model: 'claude-haiku-4-5',
      instructions: 'focus on the tests',
      signal: new AbortController().signal,
      timeout: never,
    });
    assert.ok(r.ok);
    assert.equal(llm.requests[0]?.model, 'claude-haiku-4-5');
    assert.deepEqual(r.content.writer, { model: 'claude-haiku-4-5' });
    assert.ok(r.content.costUsd > 0);
    assert.equal(r.content.costUnknown, undefined);
    // A summariser without a known price: what the note cost is unknown, not $0.
    const unpriced = await writeHandoff(source(), {
      llm: new ScriptedLlm([{ content: [{ type: 'text', text: ANSWER }] }]),
      model: 'claude-some-future-model',
      signal: new AbortController().signal,
      timeout: never,
    });
    assert.ok(unpriced.ok);
    assert.equal(unpriced.content.costUnknown, true);
    assert.equal(unpriced.content.costUsd, 0);
    const text = handoffText(r.content);
    const headings = text.split('\n').filter((l) => l.startsWith('#'));
    assert.deepEqual(headings, [
      '# Handoff from an earlier session',
      '## Goal',
      '## Decisions made',
      '## Current plan',
      '## Files touched',
      '## Open questions',
      '## The old session',
      "## The user's words for this handoff",
    ]);
    const section = (h: string) => text.split(`## ${h}\n`)[1]?.split('\n\n## ')[0] ?? '';
    assert.match(section('Goal'), /accept tokens within 30 s of expiry/);
    assert.match(section('Decisions made'), /SKEW_MS = 30_000/);
    assert.equal(
      section('Current plan'),
      '1. [x] Find where tokens are validated\n2. [>] Add the clock-skew allowance — src/auth.ts line 4\n3. [ ] Write a unit test with a fake clock',
    );
    assert.equal(
      section('Files touched'),
      'Edited:\n- `test/clock.ts`\n- `src/auth.ts`\n\nRead:\n- `test/auth.test.ts`',
    );
    assert.match(section('Open questions'), /apply to `nbf`/);
    assert.match(text, /continues the session "Fix the token expiry bug" \(2026-05-01T10-00-00-abc123\)/);
    assert.match(section('The old session'), /call `recall` with a query/);
    assert.match(section('The old session'), /2026-05-01T10-00-00-abc123/);
    assert.match(text, /written by claude-haiku-4-5/);
    assert.match(
      text,
      /\n\nContinue the work from here\. If an open question needs the user first, ask it; otherwise go on with the plan\.$/,
    );
  });

  it('without a plan the current plan is the summariser’s', async () => {
    const llm = new ScriptedLlm([
      { content: [{ type: 'text', text: `${ANSWER}\n## Current plan\n1. Write the nbf test` }] },
    ]);
    const r = await writeHandoff(source(null), {
      llm,
      model: 'claude-haiku-4-5',
      signal: new AbortController().signal,
      timeout: never,
    });
    assert.ok(r.ok);
    assert.match(handoffText(r.content), /## Current plan\n1\. Write the nbf test\n/);
  });

  it('when the summariser fails, the note is built from the plan, the files and the user’s last messages, and says so', async () => {
    const llm = new ScriptedLlm([{ error: { kind: 'overloaded', message: 'Overloaded', retryable: true } }]);
    const r = await writeHandoff(source(), {
      llm,
      model: 'claude-haiku-4-5',
      signal: new AbortController().signal,
      timeout: never,
    });
    assert.ok(r.ok);
    assert.deepEqual(r.content.writer, { failed: 'the API is overloaded' });
    const text = handoffText(r.content);
    assert.match(text, /The summariser could not write this note \(the API is overloaded\)/);
    assert.match(text, /> Fix the token expiry bug: validateToken must allow 30 s of clock skew\n\n> Now the tests/);
    assert.match(text, /2\. \[>\] Add the clock-skew allowance/);
    assert.match(text, /- `test\/clock\.ts`/);
    assert.match(text, /call `recall` with a query/);
  });

  it('a refusal or an empty answer falls back too; the user’s Stop writes no note', async () => {
    const refused = await writeHandoff(source(), {
      llm: new ScriptedLlm([{ content: [{ type: 'text', text: 'No.' }], stopReason: 'refusal' }]),
      model: 'claude-haiku-4-5',
      signal: new AbortController().signal,
      timeout: never,
    });
    assert.ok(refused.ok && 'failed' in refused.content.writer);
    const stop = new AbortController();
    const llm = new ScriptedLlm([{ hangUntilAbort: true }]);
    const pending = writeHandoff(source(), { llm, model: 'claude-haiku-4-5', signal: stop.signal, timeout: never });
    await llm.hanging.reached(1);
    stop.abort();
    assert.deepEqual(await pending, { ok: false, stopped: true });
  });

  it('the summariser’s timeout falls back, naming it (the timer is the injected one)', async () => {
    let fire: () => void = () => undefined;
    const timeout = () => new Promise<void>((resolve) => (fire = resolve));
    const llm = new ScriptedLlm([{ hangUntilAbort: true }]);
    const pending = writeHandoff(source(), {
      llm,
      model: 'claude-haiku-4-5',
      signal: new AbortController().signal,
      timeout,
      timeoutMs: 120_000,
    });
    await llm.hanging.reached(1);
    fire();
    const r = await pending;
    assert.ok(r.ok);
    assert.deepEqual(r.content.writer, { failed: 'timed out after 2 minutes' });
  });

  it('the fallback note of a session without words of the user says so', () => {
    const text = handoffText(
      fallbackContent({ sessionId: 's1', title: 'Empty', messages: [], compactions: [] }, 'network error'),
    );
    assert.match(text, /Not known: the old session holds no words of the user\./);
    assert.match(text, /## Files touched\nNone recorded\./);
    assert.match(text, /## Current plan\nNo plan was recorded\./);
  });
});
