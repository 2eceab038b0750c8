// Whole turns in a real VS Code against the fake Anthropic server, through the chat UI:
// a plain answer, a multi-tool round, a cancelled tool round, a 429 then success, a 529
// mid-stream then success, a dropped connection, a huge tool result saved to a file and read
// back, "prompt is too long" recovered by compaction, (agentTurnLayout.mjs) a long run of calls
// folded under the turn's one header, and (agentHostDeath.mjs) the
// extension host killed mid-turn then reopened with no completed message lost. Every request
// the fake server received must be valid.
//   node --import tsx --test test/vscode/agent.test.mjs   (after npm run package)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { hostDeathTests } from './agentHostDeath.mjs';
import { turnLayoutTests } from './agentTurnLayout.mjs';
import { suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';
import { screenshot } from './workbench.mjs';

/** @typedef {import('@anthropic-ai/sdk/resources/messages').ToolResultBlockParam} ToolResultBlockParam */

const MID_FILE = Array.from({ length: 250 }, (_, i) => `row ${i}: ${'consectetur adipiscing elit '.repeat(3)}`).join(
  '\n',
);
const BIG_FILE = Array.from({ length: 4000 }, (_, i) => `line ${i}: ${'lorem ipsum dolor sit amet '.repeat(3)}`).join(
  '\n',
);

describe('the agent in a real VS Code, against the fake Anthropic API', { timeout: suiteTimeout(1_200_000) }, () => {
  /** @type {import('./agentHarness.mjs').AgentWorld} */
  let w;
  before(async () => {
    w = await startAgentWorld({
      workspaceFiles: {
        'src/greet.js': 'export function greet(name) {\n  return `Hello, ${name}!`;\n}\n',
        'README.md': '# Demo\n',
        'big.txt': BIG_FILE,
        'mid.txt': MID_FILE,
      },
      settings: {
        'contextPipeline.enableRunCommand': true,
        'contextPipeline.keepRecentTurns': 1,
        'contextPipeline.keepRecentTokens': 0,
      },
    });
  });
  after(async () => {
    if (!w) return;
    await screenshot(w.page, 'agent-last').catch(() => undefined);
    // The only refusals allowed are the overflows the recovery test provokes on purpose.
    const invalid = w.fake.invalidRequests.filter(
      (r) => r.error?.rule !== 'prompt_too_long' && r.error?.rule !== 'context_limit',
    );
    process.stderr.write(
      `[agent] the fake server received ${w.fake.requests.length} requests; ${w.fake.invalidRequests.length - invalid.length} refused as too long on purpose (the overflow test), ${invalid.length} invalid\n`,
    );
    await w.close();
    assert.deepEqual(
      invalid.map((r) => r.error),
      [],
      'every request the extension sent was valid',
    );
  });

  test('a plain answer streams into the chat and is saved', async () => {
    w.fake.script({
      text: 'Hello from the scripted model. greet() returns a greeting.',
      deltaDelayMs: 20,
      chunkChars: 8,
    });
    await w.send('What does greet do?');
    await w.waitForAnswer('greet() returns a greeting.');
    await w.waitIdle();
    const req = w.lastRequest();
    assert.equal(req.valid, true);
    const last = /** @type {import('@anthropic-ai/sdk/resources/messages').MessageParam} */ (req.body.messages.at(-1));
    assert.equal(last.role, 'user');
    assert.ok(JSON.stringify(last).includes('What does greet do?'));
    // Every message shows its tokens, Copy and Pin on hover (and keyboard focus) only; a pin is never compacted and is saved.
    const opacity = (/** @type {import('playwright-core').Locator} */ l) =>
      l.evaluate((node) => getComputedStyle(node).opacity);
    await w.page.mouse.move(0, 0);
    assert.equal(await opacity(w.frame.locator('.item.assistant .who .tokens').first()), '0', 'tokens hidden at rest');
    await w.frame.locator('.item.user').first().hover();
    assert.match(await w.frame.locator('.item.user .tokens').first().innerText(), /[\d,]+ tokens/);
    assert.equal(await opacity(w.frame.locator('.item.user .tokens').first()), '1', 'tokens shown on hover');
    assert.equal(await opacity(w.frame.locator('.item.user .copy').first()), '1', 'Copy shown on hover');
    await w.frame.locator('.item.user .pin').first().click();
    await w.frame.locator('.item.user.pinned').first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(await w.frame.locator('.item.user .pin').first().getAttribute('aria-pressed'), 'true');
    assert.ok(
      w.sessionEntries().some((f) => f.entries.some((e) => e.type === 'pin')),
      'the pin is in the session file',
    );
    await screenshot(w.page, 'agent-plain-answer');
  });

  test('a multi-tool round runs the tools in the workspace and continues', async () => {
    await w.newSession();
    w.fake.script(
      {
        text: 'Let me look.',
        toolUses: [
          { name: 'list_files', input: { path: 'src' } },
          { name: 'read_file', input: { path: 'src/greet.js' } },
        ],
      },
      { text: 'greet.js exports greet(name).' },
    );
    await w.send('Explain src/greet.js');
    await w.waitForAnswer('greet.js exports greet(name).');
    const results = /** @type {ToolResultBlockParam[]} */ (w.lastBlocks().filter((b) => b.type === 'tool_result'));
    assert.equal(results.length, 2);
    assert.match(JSON.stringify(results[0].content), /greet\.js/);
    assert.match(JSON.stringify(results[1].content), /return `Hello/);
    assert.equal(await w.frame.locator('.item.tool.done').count(), 2);
    await w.frame.locator('.item.tool.done').first().locator('summary').click();
    await screenshot(w.page, 'agent-tool-round');
  });

  test('an answer of tool calls only shows its header and its cards, no empty text', async () => {
    await w.newSession();
    w.fake.script({ toolUses: [{ name: 'list_files', input: { path: 'src' } }] }, { text: 'Listed the folder.' });
    await w.send('List src');
    await w.waitForAnswer('Listed the folder.');
    assert.equal(await w.frame.locator('.item.assistant.silent').count(), 1, 'the tool-only answer is silent');
    assert.equal(await w.frame.locator('.item.assistant.silent .text').count(), 0);
    assert.equal(await w.frame.getByText('(no text)').count(), 0);
    assert.equal(await w.frame.locator('.item.tool.done').count(), 1);
    // One Claude header for the turn: the answer after the calls shows none of its own.
    assert.equal(await w.frame.locator('.item.assistant .who:not(.bare)').count(), 1, 'one header per turn');
    assert.equal(await w.frame.locator('.item.assistant.continued').count(), 1);
    await screenshot(w.page, 'agent-tool-only');
  });

  test('an edit is approved inline through its diff, and a rejection passes the reason to the model', async () => {
    await w.newSession();
    w.fake.script(
      {
        text: 'I will make it friendlier.',
        toolUses: [
          {
            name: 'edit_file',
            input: {
              path: 'src/greet.js',
              old_string: 'return `Hello, ${name}!`;',
              new_string: 'return `Hello, ${name}! Welcome back.`;',
            },
          },
        ],
      },
      {
        text: 'Also a farewell.',
        toolUses: [
          {
            name: 'edit_file',
            input: {
              path: 'src/greet.js',
              old_string: 'export function greet',
              new_string: 'export function bye() {}\nexport function greet',
            },
          },
        ],
      },
      { text: 'Done: greet() now welcomes the user; no farewell added.' },
    );
    await w.send('Make greet friendlier');
    const card = w.frame.locator('[data-testid="approval"][data-state="pending"]');
    await card.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    // The card shows the diff, and the same edit is open in VS Code's diff editor.
    const diff = card.locator('[data-testid="approval-diff"]');
    assert.match(await diff.locator('.line.del').first().innerText(), /^-\s*return `Hello, \$\{name\}!`;/);
    assert.match(
      await diff.locator('.line.add').first().innerText(),
      /^\+\s*return `Hello, \$\{name\}! Welcome back.`;/,
    );
    assert.match(await card.locator('.counts').innerText(), /\+1\s+−1/);
    // The call's row says what it edits, and that it waits for the user (not "running…").
    const row = w.frame.locator('.item.tool.awaiting');
    await row.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(await row.locator('summary').innerText(), 'Edit src/greet.js +1 −1 Awaiting approval');
    assert.equal(await row.locator('.tool-name').getAttribute('title'), 'edit_file');
    await w.page
      .locator('.tabs-container .tab', { hasText: 'greet.js ↔ proposed edit' })
      .first()
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await w.page
      .locator('.part.editor .editor.modified .view-line', { hasText: 'Welcome back.' })
      .first()
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await screenshot(w.page, 'agent-approve-edit');
    // Keyboard only: from the reason field Tab reaches Apply, and Space presses it.
    const focused = () => w.frame.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null);
    await card.locator('input.reason').focus();
    await w.page.keyboard.press('Tab');
    assert.equal(await focused(), 'approve', 'Tab moves from the reason to Apply');
    await w.page.keyboard.press('Space');
    await w.frame
      .locator('[data-testid="approval"][data-state="approved"]')
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(await focused(), 'approval', 'focus stays on the answered card');
    // The applied edit's card says what happened, and its row is done.
    assert.equal(
      await w.frame.locator('[data-testid="approval"][data-state="approved"] .approval-head').innerText(),
      'Edited src/greet.js +1 −1',
    );
    await w.frame
      .locator('.item.tool.done', { hasText: 'Edit src/greet.js +1 −1' })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    // The second edit: rejected with a reason.
    const second = w.frame.locator('[data-testid="approval"][data-state="pending"]');
    await second.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    // Keyboard only: type the reason, Tab past Apply to Reject, Enter.
    await second.locator('input.reason').focus();
    await w.page.keyboard.type('no farewell please');
    await w.page.keyboard.press('Tab');
    await w.page.keyboard.press('Tab');
    assert.equal(await focused(), 'reject', 'Tab, Tab moves from the reason to Reject');
    await w.page.keyboard.press('Enter');
    await w.waitForAnswer('no farewell added.');
    await w.waitIdle();
    assert.equal(
      readFileSync(join(w.dirs.workspace, 'src/greet.js'), 'utf8'),
      'export function greet(name) {\n  return `Hello, ${name}! Welcome back.`;\n}\n',
      'the approved edit is on disk, the rejected one is not',
    );
    const results = w
      .lastRequest()
      .body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b) => b.type === 'tool_result');
    assert.match(
      JSON.stringify(/** @type {ToolResultBlockParam} */ (results.at(-1)).content),
      /declined.*no farewell please/,
    );
    assert.equal(
      await w.frame.locator('[data-testid="approval"][data-state="rejected"] .outcome').innerText(),
      'Declined. Reason: no farewell please',
    );
    // The declined edit's row is neutral (not an error) and carries the reason.
    assert.match(
      await w.frame.locator('.item.tool.declined summary').innerText(),
      /^Edit src\/greet\.js \+1 −0 Declined — no farewell please\.( · \d+ ms)? · [\d,]+ tokens$/,
    );
    assert.equal(await w.frame.locator('.item.tool.error').count(), 0, 'no tool row is an error');
    // The diff editor tab closes once the edit is answered.
    await w.page
      .locator('.tabs-container .tab', { hasText: 'proposed edit' })
      .first()
      .waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
    // The editor reverts the file to what is on disk, and tool cards carry their result tokens.
    assert.match(await w.frame.locator('.item.tool.done .result-tokens').first().innerText(), /[\d,]+ tokens/);
  });

  test('Stop during a tool round cancels it and leaves a history the API accepts', async () => {
    await w.newSession();
    // A command far longer than any wait of this test: only Stop can end it in time.
    w.fake.script(
      { toolUses: [{ name: 'run_command', input: { command: 'sleep 600' } }] },
      { text: 'Understood, not running it.' },
    );
    await w.send('Run sleep 600 please');
    // The command is approved inline, in the chat.
    const card = w.frame.locator('[data-testid="approval"][data-state="pending"]');
    await card.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(await card.locator('[data-testid="approval-command"]').innerText(), 'sleep 600');
    assert.match(await card.locator('[data-testid="runs-as-you"]').innerText(), /runs as you.*ANTHROPIC_API_KEY/);
    await card.locator('[data-testid="approve"]').click();
    await w.frame.locator('.item.tool.running').waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const t0 = Date.now();
    await w.frame.locator('.composer button.stop').click();
    await w.frame.locator('.item.tool.cancelled').waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await w.waitIdle();
    // Within a second normally; the bound only proves Stop did not wait for the command.
    const took = Date.now() - t0;
    process.stderr.write(`[agent] Stop ended the turn in ${took} ms\n`);
    assert.ok(took < UI_TIMEOUT, `stopped in ${took} ms, not after the 600 s command`);
    await w.send('Never mind.');
    await w.waitForAnswer('Understood, not running it.');
    const msgs = w.lastRequest().body.messages;
    const cancelled = msgs
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .find((b) => b.type === 'tool_result');
    assert.ok(
      cancelled?.is_error && /Cancelled/.test(JSON.stringify(cancelled.content)),
      'the cancelled call was answered',
    );
  });

  test('a 429 is retried after retry-after with a visible countdown', async () => {
    await w.newSession();
    w.fake.script(
      {
        status: 429,
        errorType: 'rate_limit_error',
        message: 'Number of requests has exceeded your rate limit',
        retryAfter: 2,
      },
      { text: 'Answer after the rate limit.' },
    );
    // The countdown shows for the 2 s of retry-after only: recorded inside the webview, so a
    // slow test cannot miss it.
    const { recordWhenShown } = await import('./gestures.mjs');
    const countdown = await recordWhenShown(w.frame, 'retrying', '.banner', 'Retrying in \\d+s');
    await w.send('Hello?');
    await w.waitForAnswer('Answer after the rate limit.');
    await countdown.seen();
  });

  test('a 529 overloaded error mid-stream is retried and the partial text replaced', async () => {
    await w.newSession();
    w.fake.script(
      {
        text: 'This partial answer will be cut off by an overload.',
        chunkChars: 5,
        overloadedMidStream: { afterEvents: 4 },
      },
      { text: 'Complete answer after the overload.' },
    );
    await w.send('Tell me something');
    await w.waitForAnswer('Complete answer after the overload.');
    const texts = await w.frame.locator('.item.assistant .text').allInnerTexts();
    assert.deepEqual(texts, ['Complete answer after the overload.'], 'no partial answer left behind');
  });

  test('a connection dropped mid-stream is retried and the answer arrives', async () => {
    await w.newSession();
    w.fake.script(
      { text: 'dropped soon', chunkChars: 3, disconnectAfterEvents: 3 },
      { text: 'Answer after the dropped connection.' },
    );
    await w.send('Are you there?');
    await w.waitForAnswer('Answer after the dropped connection.');
  });

  test('a huge tool result is saved to a file and previewed, and read_file can read it back', async () => {
    await w.newSession();
    w.fake.script(
      { toolUses: [{ name: 'read_file', input: { path: 'big.txt' } }] },
      { text: 'I saw the preview of the big file.' },
    );
    await w.send('Read big.txt');
    await w.waitForAnswer('I saw the preview of the big file.');
    const result = /** @type {ToolResultBlockParam} */ (w.lastBlocks().find((b) => b.type === 'tool_result'));
    const text = JSON.stringify(result.content);
    assert.ok(text.length < 8_000, `the result sent is a preview (${text.length} chars)`);
    const spilled = /saved in full to ([^\s]+?\.txt)/.exec(text)?.[1];
    assert.ok(spilled, `the preview names the file: ${text.slice(0, 300)}`);
    w.fake.script(
      { toolUses: [{ name: 'read_file', input: { path: spilled, offset: 990, limit: 3 } }] },
      { text: 'Read the rest.' },
    );
    await w.send('Read the end of it');
    await w.waitForAnswer('Read the rest.');
    const back = JSON.stringify(w.lastBlocks().find((b) => b.type === 'tool_result'));
    assert.match(back, /line 98\d: lorem ipsum/, `read_file reads the saved output back: ${back.slice(0, 300)}`);
  });

  test('"prompt is too long" from the API is recovered by compacting older turns', async () => {
    await w.newSession();
    for (let i = 1; i <= 3; i++) {
      w.fake.script(
        { toolUses: [{ name: 'read_file', input: { path: 'mid.txt' } }] },
        { text: `Read mid.txt, round ${i}.` },
      );
      await w.send(`Read mid.txt, round ${i}`);
      await w.waitForAnswer(`Read mid.txt, round ${i}.`);
      // The turn is over before the next message (a message sent while it runs is refused).
      await w.waitIdle();
    }
    const size = w.lastRequest().inputTokens;
    w.fake.setWindow(Math.round(size * 0.8));
    w.fake.script(
      { match: { model: 'claude-haiku-4-5' }, text: 'Three reads of `mid.txt`, nothing else.' },
      { match: { model: 'claude-sonnet-4-6' }, text: 'Recovered after compacting.' },
    );
    try {
      await w.send('And now?');
      await w.waitForAnswer('Recovered after compacting.', 2 * UI_TIMEOUT);
      assert.ok(
        w.fake.requests.some((r) => r.error?.rule === 'prompt_too_long'),
        'the server did refuse a prompt as too long',
      );
      await w.frame
        .locator('.item.notice', { hasText: 'did not fit the context window' })
        .first()
        .waitFor({ timeout: UI_TIMEOUT });
    } finally {
      w.fake.setWindow(200_000);
    }
  });

  turnLayoutTests(() => w);
  hostDeathTests(() => w);
});
