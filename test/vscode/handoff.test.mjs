// Continue in a New Session in a real VS Code against the fake Anthropic server: a session
// makes a plan, reads a file and answers with a marker, then Compact Now summarises that turn
// away. "Context Pipeline: Continue in a New Session" has the summariser write the handoff
// note, opens a new session whose first card says "Continued from …", and sends the note as its
// first message: the first request holds the goal, the decisions, the plan, the files touched,
// the open questions and the old session's id (asserted on what the fake server received). The
// scripted model then calls `recall` for the marker, which only the old session's compacted
// originals hold, and gets it back, labelled by the old session. The new session's file names
// the old one, the old file is untouched, and the card's button opens the old session again;
// `/handoff <words>` in the composer hands it off once more, the words going to the note.
// Screenshot `handoff-continued.png` (the new session's first card).
//   CP_SKIP_PACKAGE=1 node --import tsx --test test/vscode/handoff.test.mjs   (after npm run package)
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

const SUMMARISER = 'claude-haiku-4-5';
const MARKER = 'MARKER-4c1e: the lenient parser must keep rejecting NaN';
const SHOTS = join(REPO_ROOT, 'test-results', 'screenshots');
const PLAN = [
  { step: 'Find the parser', status: 'completed' },
  { step: 'Switch src/parse.ts to json5', status: 'in_progress', note: 'keep the export name' },
  { step: 'Add a test for trailing commas', status: 'pending' },
];
/** @param {number} n */
const DETAIL = (n) =>
  Array.from(
    { length: 8 },
    (_, i) =>
      `Detail ${n}.${i + 1}: parse() in src/parse.ts calls JSON.parse on the whole file, so one trailing comma rejects the configuration.`,
  ).join(' ');
const NOTE = [
  '## Goal',
  '- Make `parse()` in `src/parse.ts` accept trailing commas (the user asked for it).',
  '## Decisions made',
  '- Use `json5` rather than a hand-written pre-pass: it is already a dependency.',
  '## Open questions',
  '- Should comments be accepted too? Not answered yet.',
].join('\n');

/**
 * Every text of a request's messages (text blocks, tool inputs, tool results), joined.
 * @param {RecordedRequest} req
 */
function requestText(req) {
  return /** @type {ApiRequest} */ (req.body).messages
    .flatMap((m) =>
      typeof m.content === 'string'
        ? [m.content]
        : m.content.flatMap((b) =>
            b.type === 'text'
              ? [b.text]
              : b.type === 'tool_use'
                ? [JSON.stringify(b.input)]
                : b.type === 'tool_result'
                  ? [typeof b.content === 'string' ? b.content : JSON.stringify(b.content)]
                  : [],
          ),
    )
    .join('\n');
}

describe('Continue in a New Session: the handoff — in a real VS Code', { timeout: suiteTimeout(600_000) }, () => {
  /** @type {AgentWorld} */
  let w;
  /** The old session's id (its file's name). */
  let oldId = '';

  before(async () => {
    w = await startAgentWorld({
      workspaceFiles: { 'src/parse.ts': 'export const parse = (text: string) => JSON.parse(text);\n' },
      settings: {
        'workbench.colorTheme': 'Default Dark Modern',
        'contextPipeline.keepRecentTurns': 1,
        'contextPipeline.keepRecentTokens': 0,
        'contextPipeline.summarizer': 'small',
      },
    });
  });

  after(async () => {
    if (!w) return;
    process.stderr.write(`[handoff] ${w.fake.requests.length} requests, ${w.fake.invalidRequests.length} invalid\n`);
    const invalid = w.fake.invalidRequests.map((r) => r.error);
    await w.close();
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });

  test('the old session: a plan, a file read, an answer with the marker; Compact Now summarises that turn', async () => {
    w.fake.script(
      {
        text: 'I will plan and read the parser.',
        toolUses: [
          { name: 'update_plan', input: { steps: PLAN } },
          { name: 'read_file', input: { path: 'src/parse.ts' } },
        ],
      },
      { text: `The parser uses JSON.parse. ${MARKER}. ${DETAIL(1)}` },
    );
    await w.send('Make the parser accept trailing commas');
    await w.waitForAnswer('The parser uses JSON.parse.');
    await w.waitIdle();
    w.fake.script({ text: `Second answer: json5 is already a dependency. ${DETAIL(2)}` });
    await w.send('Which library should we use?');
    await w.waitForAnswer('Second answer');
    await w.waitIdle();

    w.fake.script({ match: { model: SUMMARISER }, text: 'The user wants trailing commas; parse() uses JSON.parse.' });
    await w.command('Context Pipeline: Compact Now');
    const widget = w.page.locator('.quick-input-widget');
    await widget.locator('.quick-input-message', { hasText: 'Would compact' }).waitFor({ timeout: UI_TIMEOUT });
    await widget.locator('input').press('Enter');
    await widget.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    await w.frame
      .locator('.item.notice', { hasText: /^Compacted [\d.]+k? → [\d.]+k? tokens \(summary\)\.$/ })
      .waitFor({ timeout: UI_TIMEOUT });
    const files = w.sessionEntries();
    assert.equal(files.length, 1);
    oldId = files[0]?.file.replace(/\.jsonl$/, '') ?? '';
    const compaction = files[0]?.entries.find((e) => e.type === 'compaction');
    assert.ok(compaction && JSON.stringify(compaction.originals).includes(MARKER), 'the marker is in the originals');
  });

  test('a handoff creates a new session whose first request holds the handoff and the plan; recall finds an original of the old one', async () => {
    w.fake.script(
      { match: { model: SUMMARISER }, text: NOTE },
      { text: 'Let me look in the old session.', toolUses: [{ name: 'recall', input: { query: 'MARKER-4c1e' } }] },
      { text: 'Found it in the old session: NaN stays rejected.' },
    );
    const before = w.fake.requests.length;
    await w.command('Context Pipeline: Continue in a New Session');
    const card = w.frame.getByTestId('continued-card');
    await card.waitFor({ timeout: UI_TIMEOUT });
    assert.equal(
      (await card.locator('.continued-title').innerText()).trim(),
      'Continued from “Make the parser accept trailing commas”',
    );
    await w.waitForAnswer('Found it in the old session');
    await w.waitIdle();

    const reqs = /** @type {RecordedRequest[]} */ (w.fake.requests.slice(before)).filter(
      (r) => r.path === '/v1/messages',
    );
    const handoffReq = reqs.find((r) => /** @type {ApiRequest} */ (r.body).model === SUMMARISER);
    assert.ok(handoffReq, 'the summariser wrote the note');
    assert.match(JSON.stringify(/** @type {ApiRequest} */ (handoffReq.body).system), /You write the handoff note/);
    const chat = reqs.filter((r) => /** @type {ApiRequest} */ (r.body).model !== SUMMARISER);
    const first = chat[0];
    assert.ok(first);
    const messages = /** @type {ApiRequest} */ (first.body).messages;
    assert.equal(messages.length, 1, 'the new session starts with one message: the handoff');
    const text = requestText(first);
    assert.match(text, /^# Handoff from an earlier session/);
    assert.match(text, new RegExp(`continues the session "Make the parser accept trailing commas" \\(${oldId}\\)`));
    assert.match(text, /## Goal\n- Make `parse\(\)` in `src\/parse\.ts` accept trailing commas/);
    assert.match(text, /## Decisions made\n- Use `json5`/);
    assert.match(
      text,
      /## Current plan\n1\. \[x\] Find the parser\n2\. \[>\] Switch src\/parse\.ts to json5 — keep the export name\n3\. \[ \] Add a test for trailing commas/,
    );
    assert.match(text, /## Files touched\nRead:\n- `src\/parse\.ts`/);
    assert.match(text, /## Open questions\n- Should comments be accepted too\?/);
    assert.match(
      text,
      new RegExp(`## The old session\\nIts whole history stays searchable: call \`recall\`[^\\n]*${oldId}`),
    );
    assert.ok(!text.includes('MARKER-4c1e'), 'the marker is not in the new session: only recall can find it');
    // The plan came along: the checklist shows it, and the model's next request still has it.
    await eventually('the checklist shows the old plan', async () =>
      (await w.frame.locator('.plan .plan-count').innerText()).includes('1 of 3 done'),
    );

    // recall, called by the scripted model, found the marker in the old session's compacted originals.
    const afterRecall = chat[1];
    assert.ok(afterRecall);
    const last = /** @type {ApiRequest} */ (afterRecall.body).messages.at(-1);
    const result = JSON.stringify(last?.content);
    assert.ok(result.includes('tool_result') && result.includes(MARKER), result.slice(0, 600));
    assert.match(
      result,
      new RegExp(`compaction [^ ]+ · old session \\\\"Make the parser accept trailing commas\\\\" \\(${oldId}\\)`),
    );

    // The new session's file names the old one; the old file still holds its conversation.
    const files = w.sessionEntries();
    const fresh = files.find((f) => !f.file.startsWith(oldId));
    const header = fresh?.entries[0];
    assert.ok(header?.type === 'header');
    const { noteCostUsd, ...from } = header.continuedFrom ?? {};
    assert.deepEqual(from, { sessionId: oldId, title: 'Make the parser accept trailing commas' });
    assert.ok(typeof noteCostUsd === 'number' && noteCostUsd > 0, 'the note’s cost is kept with the new session');
    assert.equal(header.title, 'Make the parser accept trailing commas (continued)');
    assert.ok(
      fresh?.entries.some((e) => e.type === 'plan'),
      'the plan is the new session’s first plan line',
    );
    const old = files.find((f) => f.file.startsWith(oldId));
    assert.ok(
      old?.entries.some((e) => e.type === 'compaction'),
      'the old session is kept as it was',
    );

    // The first card, as a person sees it.
    mkdirSync(SHOTS, { recursive: true });
    await w.page.mouse.move(1, 899);
    const { nextFrames } = await import('./gestures.mjs');
    await nextFrames(w.page);
    await w.frame.locator('#app').screenshot({ path: join(SHOTS, 'handoff-continued.png'), animations: 'disabled' });
    const { screenshot } = await import('./workbench.mjs');
    await screenshot(w.page, 'handoff-window');
    // The note is folded under the card; it opens to the Markdown the model was sent.
    const note = w.frame.getByTestId('handoff-note');
    await note.locator('summary').click();
    await note.locator('h2', { hasText: 'Files touched' }).waitFor({ timeout: UI_TIMEOUT });
    await w.frame.locator('#app').screenshot({ path: join(SHOTS, 'handoff-note-open.png'), animations: 'disabled' });

    // The new session's bill counts what its note cost, and says so.
    await w.command('Context Pipeline: Show Context Budget');
    const frame = await budgetFrame(w.page);
    const total = frame.locator('[data-testid="budget-history"] p.muted').last();
    await total.waitFor({ timeout: UI_TIMEOUT });
    const cost = `$${noteCostUsd.toFixed(4)}`;
    assert.match(await total.innerText(), /^\d+ requests?, \$\d+\.\d{4} in this session \(/);
    assert.ok(
      (await total.innerText()).includes(`${cost} of it by the handoff note that started this session`),
      await total.innerText(),
    );
    await total.screenshot({ path: join(SHOTS, 'handoff-budget-total.png'), animations: 'disabled' });
    await w.command('View: Close Editor');
  });

  test('the card opens the old session, as it was left', async () => {
    await w.frame.getByTestId('open-old-session').click();
    await w.frame.locator('.item', { hasText: 'Second answer: json5 is already a dependency.' }).first().waitFor({
      timeout: UI_TIMEOUT,
    });
    assert.equal(await w.frame.getByTestId('continued-card').count(), 0, 'the old session has no such card');
  });

  test('/handoff in the composer continues again, with the user’s words for the note', async () => {
    w.fake.script({ match: { model: SUMMARISER }, text: NOTE }, { text: 'Continuing with comments next.' });
    const before = w.fake.requests.length;
    await w.send('/handoff focus on comments next');
    await w.frame.getByTestId('continued-card').waitFor({ timeout: UI_TIMEOUT });
    await w.waitForAnswer('Continuing with comments next.');
    await w.waitIdle();
    const reqs = /** @type {RecordedRequest[]} */ (w.fake.requests.slice(before)).filter(
      (r) => r.path === '/v1/messages',
    );
    const asked = reqs.find((r) => /** @type {ApiRequest} */ (r.body).model === SUMMARISER);
    assert.ok(asked && requestText(asked).includes('<user_instructions>\nfocus on comments next'));
    const first = reqs.find((r) => /** @type {ApiRequest} */ (r.body).model !== SUMMARISER);
    assert.ok(first);
    assert.match(requestText(first), /## The user's words for this handoff\nfocus on comments next/);
    assert.equal(w.sessionEntries().length, 3, 'a third session, the second old one kept');
  });
});
