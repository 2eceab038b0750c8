// A session whose user pasted code into every message, in a real VS Code: compaction keeps the
// user's words verbatim, so ten pastes of ~2.5k tokens each come to more than a 24k-token window
// on their own, and before the tail guard cut them every request of the resumed session was
// "prompt is too long". The next message must go through in one request with the older pastes
// cut in the middle (the note says so) and the newest words whole, the chat must say what was
// done, and the session file's record must keep every paste whole.
//   npm run package && node --import tsx --test test/vscode/pastedWords.test.mjs
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { closeWorld, startResumedWorld } from './agentHarness.mjs';
import { sessionBuilder } from './sessionFiles.mjs';
import { suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';

const WINDOW = 24_000;
const CHAT_MODEL = 'claude-sonnet-4-6';
const TURNS = 10;
const NEWEST = 'Which of the parts above multiplies before it adds?';

/**
 * About 2 500 tokens of distinct code, as part `n` of what the user pasted.
 * @param {number} n
 */
function paste(n) {
  const lines = Array.from(
    { length: 160 },
    (_, i) => `const part${n}_${i} = compute${(n * 31 + i) % 97}(input, ${i});`,
  );
  return `Here is part ${n} of the module:\n\`\`\`ts\n${lines.join('\n')}\n\`\`\``;
}

/** @typedef {import('../../src/core/session/entries.ts').CompactionEntry} CompactionEntry */

/** The session file, built with the extension's own code: ten turns, each a paste and a short answer. */
async function buildPastedSession() {
  const s = await sessionBuilder('pasted');
  for (let n = 1; n <= TURNS; n++) {
    s.user({ userText: paste(n) });
    s.assistant([{ type: 'text', text: `Part ${n} read. PASTE-${n}-OK` }]);
  }
  return s.file(CHAT_MODEL);
}

describe(
  'a resumed session of pasted code that outgrows the window, in a real VS Code',
  { timeout: suiteTimeout(600_000) },
  () => {
    /** @type {import('./agentHarness.mjs').AgentWorld} */
    let world;
    /** @type {string} */
    let sessions;
    /** @type {Awaited<ReturnType<typeof buildPastedSession>>} */
    let session;
    /** @type {typeof import('./workbench.mjs')} */
    let workbench;
    before(async () => {
      workbench = await import('./workbench.mjs');
      session = await buildPastedSession();
      ({ world, sessions } = await startResumedWorld(session, {
        window: WINDOW,
        workspaceFiles: { 'README.md': '# Parts\n' },
      }));
    });

    after(() => closeWorld(world, 'pasted-words-last'));

    test('the next message goes through with the older pastes cut and the newest words whole; the chat says so', async () => {
      await workbench.openContextPipeline(world.page);
      await world.refindFrame();
      const f = world.frame;
      await f
        .locator('.item.assistant', { hasText: `PASTE-${TURNS}-OK` })
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      world.fake.script({ match: { model: CHAT_MODEL }, text: 'Every part multiplies first. WORDS-OK' });
      await world.send(NEWEST);
      await world.waitForAnswer('WORDS-OK', UI_TIMEOUT);
      await world.waitIdle();

      const chat = /** @type {import('./agentHarness.mjs').SentRequest[]} */ (world.fake.requests).filter(
        (r) => r.path === '/v1/messages' && r.body?.model === CHAT_MODEL,
      );
      assert.equal(chat.length, 1, 'one request, not refused and sent again');
      const sent = JSON.stringify(chat[0]?.body.messages);
      assert.match(sent, /characters of this message of the user left out so the request fits the context window/);
      assert.ok(sent.includes(NEWEST), 'the newest words went whole');

      const notice = f.locator('.item.notice', { hasText: 'What compaction always keeps — your own words' });
      await notice.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      assert.match(
        await notice.innerText(),
        /long earlier messages? of yours cut in the middle, about [\d,]+ tokens freed/,
      );
      await workbench.screenshot(world.page, 'pasted-words-chat');

      // The record keeps every paste whole, in the session file.
      const stored = readFileSync(join(sessions, session.file), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      const records = /** @type {CompactionEntry[]} */ (stored.filter((e) => e.type === 'compaction'));
      const guard = records.find((r) => r.layer === 'tail-guard');
      assert.ok(guard, `a tail-guard record was saved (layers: ${records.map((r) => r.layer).join(', ')})`);
      const kept = guard.originals
        .flatMap((m) => m.blocks)
        .filter((b) => b.type === 'text' && b.meta.source === 'user');
      assert.ok(
        kept.length > 0 &&
          kept.every((b) => b.type === 'text' && /^Here is part \d+ of the module:\n```ts\n[\s\S]*\n```$/.test(b.text)),
        'the originals are the whole pastes',
      );
    });
  },
);
