// The long-turn scenario shared by longTurn.test.mjs (masking off), longTurnMasked.test.mjs
// (masking on) and longTurnPreservedThinking.test.mjs (Fable 5.1, thinking in every answer): its
// workspace of 42 modules, the world it runs in, the scripted request, the run of the turn with
// its checks on every request, the session records it leaves, and helpers acting on the UI.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startAgentWorld } from './agentHarness.mjs';
import { compactionsPane } from './compactionsPane.mjs';
import { REPO_ROOT } from './setup.mjs';
import { chooseFromContextMenu } from './gestures.mjs';
import { eventually as shared, GESTURE_TRY, UI_TIMEOUT } from './timeouts.mjs';

/**
 * @typedef {import('./agentHarness.mjs').AgentWorld} AgentWorld
 * @typedef {import('./agentHarness.mjs').SentRequest} SentRequest
 * @typedef {import('../../src/core/session/entries.ts').CompactionEntry} CompactionEntry
 * @typedef {import('@anthropic-ai/sdk/resources/messages').ContentBlockParam} ContentBlockParam
 * @typedef {import('playwright-core').Locator} Locator
 * @typedef {{ x: number, y: number, width: number, height: number }} Box A Locator's bounding box once it is laid out.
 */

/**
 * A message whose content is a list of blocks (as every request of the turn ends: with the
 * user message that carries the round's tool result).
 * @typedef {import('@anthropic-ai/sdk/resources/messages').MessageParam & { content: ContentBlockParam[] }} BlockMessage
 */

/** Upper bound for the whole 42-round turn on a busy machine (it takes about a minute). */
export const TURN_TIMEOUT = 600_000;
export const CHAT_MODEL = 'claude-sonnet-4-6';
export const SUMMARISER = 'claude-haiku-4-5';
export const WINDOW = 24_000;
export const ROUNDS = 42;
export const LINES = 200;

/** @param {number} n */
export const pad = (n) => String(n).padStart(2, '0');
/** @param {number} n */
export const modulePath = (n) => `src/mod${pad(n)}.ts`;
/**
 * A module of LINES lines of small exported functions.
 * @param {number} n
 */
export function moduleSource(n) {
  const out = [`// ${modulePath(n)}: module ${n} of the audit fixture (${LINES} lines)`];
  for (let k = 1; out.length < LINES; k++)
    out.push(
      `export function mod${pad(n)}Step${k}(input: number): number {`,
      `  return input * ${k} + ${n}; // step ${k} of module ${n}`,
      '}',
    );
  return out.slice(0, LINES).join('\n') + '\n';
}
export const WORKSPACE = Object.fromEntries(
  Array.from({ length: ROUNDS }, (_, i) => [modulePath(i + 1), moduleSource(i + 1)]),
);

export const REQUEST = `Audit every module under src/: read all ${ROUNDS} files one by one, then tell me which ones multiply before adding.`;
export const FINAL = `Audit done: I read all ${ROUNDS} modules. Every one of them multiplies the input by the step number before adding the module number.`;
export const SUMMARY =
  'The assistant is auditing the modules under src/ one file at a time with read_file, as the user asked. Each module src/modNN.ts exports functions modNNStepK(input) that return input * K + NN. Nothing unusual found so far; the audit continues with the next file.';
export const SECOND = 'Which module would you refactor first?';
export const SECOND_ANSWER = 'I would start with src/mod01.ts: it is the template the other modules copy.';
export const WARNING_TOAST = '.notifications-toasts .notification-toast';

/** @param {number} n */
export const fmt = (n) => Math.round(n).toLocaleString('en-US');
/** @param {string} s */
export const num = (s) => Number(s.replace(/,/g, ''));

/**
 * Polls `check` until it returns a truthy value (or throws its last failure after `timeout`):
 * timeouts.mjs's `eventually` with the condition's name as an option.
 * @template T
 * @param {() => T | Promise<T>} check
 * @param {{ timeout?: number, interval?: number, what?: string }} [options]
 * @returns {Promise<T>}
 */
export const eventually = (check, { what = 'condition', ...options } = {}) => shared(what, check, options);

/**
 * All text of a request's messages (text blocks and tool results), joined.
 * @param {SentRequest} req
 */
export function requestText(req) {
  /** @param {ContentBlockParam} b */
  const part = (b) =>
    b.type === 'text'
      ? [b.text]
      : b.type === 'tool_result'
        ? [
            typeof b.content === 'string'
              ? b.content
              : /** @type {{ text?: string }[]} */ (b.content).map((p) => p.text ?? '').join('\n'),
          ]
        : [];
  return req.body.messages
    .flatMap((m) => (typeof m.content === 'string' ? [m.content] : m.content.flatMap(part)))
    .join('\n');
}

/**
 * The world of a long-turn test, for the tests of the enclosing `describe`: before them, VS Code
 * with the WORKSPACE, the fake server's window WINDOW, `contextPipeline.contextWindow` WINDOW, 60
 * tool rounds, summaries by the summariser model and `settings` on top, the side bar widened; after them, a last screenshot
 * (`${shot}-last`), one log line (`label`: requests received, invalid, screenshots taken), the
 * world closed, and the assertion that the fake server refused no request.
 * @param {{ label: string, shot: string, settings?: Record<string, unknown> }} options
 * @returns {{ w: AgentWorld, u: ReturnType<typeof ui>, shots: string[] }} filled in by `before`
 */
export function longTurnWorld({ label, shot, settings = {} }) {
  const world = /** @type {{ w: AgentWorld, u: ReturnType<typeof ui>, shots: string[] }} */ (
    /** @type {unknown} */ ({ shots: [] })
  );
  /** @type {typeof import('./workbench.mjs')} */
  let workbench;
  before(async () => {
    workbench = await import('./workbench.mjs');
    world.w = await startAgentWorld({
      workspaceFiles: WORKSPACE,
      fakeWindow: WINDOW,
      settings: {
        'contextPipeline.contextWindow': WINDOW,
        'contextPipeline.maxToolRounds': 60,
        // The summariser model writes the summaries these tests follow; the chat model's own
        // route (compaction on demand, which `auto` may pick) has its tests in test/unit.
        'contextPipeline.summarizer': 'small',
        ...settings,
      },
    });
    world.u = ui(world.w, workbench);
    await workbench.widenSidebar(world.w.page);
  });
  after(async () => {
    const w = world.w;
    if (!w) return;
    await workbench.screenshot(w.page, `${shot}-last`).catch(() => undefined);
    const invalid = w.fake.invalidRequests.map((r) => r.error);
    process.stderr.write(
      `[long-turn] ${label}: the fake server received ${w.fake.requests.length} requests, ${invalid.length} invalid; screenshots: ${world.shots.join(', ')}\n`,
    );
    await w.close();
    assert.deepEqual(invalid, [], 'every request the extension sent was valid');
  });
  return world;
}

/**
 * Sends the long request (ROUNDS reads, then the final answer; summaries queued for whoever
 * asks) and waits for the final answer, failing at once on an error in the chat. Checks what
 * the fake server saw: every request valid, one per round in order, the user's words in each.
 * `model` answers the turn (the `contextPipeline.model` the world set); with `thinking`, each
 * answer starts with a thinking block.
 * @param {AgentWorld} w
 * @param {{ model?: string, thinking?: boolean }} [options]
 */
export async function runLongTurn(w, { model = CHAT_MODEL, thinking = false } = {}) {
  /** @param {string} text */
  const think = (text) => (thinking ? { thinking: text } : {});
  w.fake.script(
    ...Array.from({ length: ROUNDS }, (_, i) => ({
      match: { model },
      ...think(`Round ${i + 1}: ${modulePath(i + 1)} is next.`),
      toolUses: [{ name: 'read_file', input: { path: modulePath(i + 1) } }],
    })),
    { match: { model }, ...think('Every module is read.'), text: FINAL },
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
  const reqs = /** @type {SentRequest[]} */ (w.fake.requests.slice(first));
  // A compaction request (compaction on demand) goes to the chat model too, but is not a round.
  const chat = reqs.filter((r) => r.body?.model === model && !('compaction' in (r.body ?? {})));
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
    const result = /** @type {BlockMessage} */ (chat[i].body.messages.at(-1)).content.find(
      (b) => b.type === 'tool_result',
    );
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

/**
 * The entries of the session file that holds the long request.
 * @param {AgentWorld} w
 */
export function sessionOf(w) {
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
/**
 * Its compaction records, in the order they were written.
 * @param {AgentWorld} w
 */
export const recordsOf = (w) =>
  sessionOf(w)
    .filter((e) => e.type === 'compaction')
    .map((e) => ({ ...e }));
/** @param {readonly CompactionEntry[]} records */
export const describeRecords = (records) =>
  records.map((r) => `${r.layer}/${r.trigger} ${fmt(r.tokensBefore)}→${fmt(r.tokensAfter)}`).join('; ');

/**
 * Helpers acting on one world's UI.
 * @param {AgentWorld} w
 * @param {typeof import('./workbench.mjs')} workbench
 */
export function ui(w, workbench) {
  return {
    /** The Compactions pane (expanded) of the side bar. */
    compactionsPane: () => compactionsPane(w, workbench),
    /**
     * The tree row of a compaction record (by its "before → after" description): at `level` 2
     * when it stands on its own (a manual one, a turn's only automatic one), 3 under its turn's
     * group.
     * @param {Locator} pane
     * @param {CompactionEntry} rec
     * @param {2 | 3} [level]
     */
    recordRow(pane, rec, level = 2) {
      return pane
        .locator(`.monaco-list-row[aria-level="${level}"]`)
        .filter({
          has: w.page.locator('.label-description', { hasText: `${fmt(rec.tokensBefore)} → ${fmt(rec.tokensAfter)}` }),
        })
        .first();
    },
    /**
     * The row grouping the automatic compactions of one turn (`Turn 1 · 5 automatic compactions`).
     * @param {Locator} pane
     * @param {number} turn
     */
    turnGroupRow(pane, turn) {
      return pane
        .locator('.monaco-list-row[aria-level="2"]')
        .filter({
          has: w.page.locator('.label-name', { hasText: new RegExp(`^Turn ${turn} · \\d+ automatic compactions$`) }),
        })
        .first();
    },
    /**
     * Clicks a tree row (which toggles it) until it is in the state wanted.
     * @param {Locator} r
     * @param {boolean} expanded
     */
    async setExpanded(r, expanded) {
      await r.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
      if ((await r.getAttribute('aria-expanded')) !== String(expanded)) await r.click();
      await eventually(async () => (await r.getAttribute('aria-expanded')) === String(expanded), {
        what: 'a tree row to toggle',
      });
    },
    /**
     * Scrolls the Compactions tree back to its top (the newest compaction).
     * @param {Locator} pane
     */
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
      const top = /** @type {Box} */ (await header.boundingBox()).y;
      const deadline = Date.now() + UI_TIMEOUT;
      for (;;) {
        let best;
        for (const s of await w.page.locator('.part.sidebar .monaco-sash.horizontal').all()) {
          const b = await s.boundingBox();
          const now = /** @type {Box} */ (await header.boundingBox()).y;
          if (b && b.width > 0 && (!best || Math.abs(b.y - now) < Math.abs(best.y - now))) best = b;
        }
        assert.ok(best, 'the sash above the Compactions view was found');
        const [x, y] = [best.x + best.width / 2, best.y + best.height / 2];
        await w.page.mouse.move(x, y);
        await w.page.mouse.down();
        await w.page.mouse.move(x, y - 120, { steps: 5 });
        await w.page.mouse.move(x, y - 240, { steps: 5 });
        await w.page.mouse.up();
        const grew = await eventually(async () => /** @type {Box} */ (await header.boundingBox()).y < top - 150, {
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
    /**
     * Runs Restore from a tree row's context menu.
     * @param {Locator} r
     */
    async restore(r) {
      await chooseFromContextMenu(w.page, r, 'Restore');
    },
    /**
     * Scrolls the chat's (virtualised) transcript to its top or bottom.
     * @param {'top' | 'bottom'} where
     */
    async scrollChat(where) {
      await w.frame.evaluate((to) => {
        const s = /** @type {HTMLElement} */ (document.querySelector('.scroll'));
        s.scrollTop = to === 'top' ? 0 : s.scrollHeight;
      }, where);
    },
    /**
     * Takes a screenshot of the workbench (the mouse moved out of the way) and adds its path to `list`.
     * @param {string} name
     * @param {string[]} list
     */
    async shot(name, list) {
      await w.page.mouse.move(10, 890);
      list.push(await workbench.screenshot(w.page, name));
    },
    /**
     * With CP_UPDATE_DOCS_SCREENSHOTS=1, also saves the side bar alone as the README's
     * `docs/screenshots/<name>.png` (and adds its path to `list`); else does nothing.
     * @param {string} name
     * @param {string[]} list
     */
    async docsShot(name, list) {
      if (process.env.CP_UPDATE_DOCS_SCREENSHOTS !== '1') return;
      const dir = join(REPO_ROOT, 'docs', 'screenshots');
      mkdirSync(dir, { recursive: true });
      await w.page.mouse.move(10, 890);
      const path = join(dir, `${name}.png`);
      await w.page.locator('.part.sidebar').first().screenshot({ path, animations: 'disabled' });
      list.push(path);
    },
  };
}
