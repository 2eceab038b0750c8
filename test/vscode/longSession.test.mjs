// A long session in a real VS Code: 2 000 messages (1 000 user/assistant pairs, some long
// Markdown answers with code blocks, some with a selection chip) written into the extension's
// session storage before the window opens, resumed when the chat opens. The transcript is
// virtualised: only what is visible (plus overscan) is in the DOM, it starts at the end, the
// first message renders after scrolling to the top, expanding a chip above the viewport does
// not move what the user reads, and a new turn streams in at the bottom. Prints the time from
// opening the chat to the last message visible, and the webview's JS heap (not asserted).
//   npm run package && node --import tsx --test test/vscode/longSession.test.mjs
// CP_VSIX=<path> tests another .vsix; CP_KEEP_TEMP=1 keeps the temp dir.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startAgentWorld } from './agentHarness.mjs';
import { eventually, suiteTimeout, UI_TIMEOUT } from './timeouts.mjs';
import { buildSessionFile, inFrame, MAX_NODES, PAIRS } from './longSessionFixture.mjs';
import { installSession } from './sessionFiles.mjs';

/**
 * @typedef {import('../fake-anthropic/request.ts').ApiRequest} ApiRequest the body of a `/v1/messages` request
 * @typedef {import('../fake-anthropic/index.ts').RecordedRequest & { body: ApiRequest }} MessagesRequest
 *   a recorded `/v1/messages` request, its body read
 */

describe('a 2 000-message session in a real VS Code', { timeout: suiteTimeout(900_000) }, () => {
  /** @type {import('./agentHarness.mjs').AgentWorld} */
  let world;
  /** @type {Awaited<ReturnType<typeof buildSessionFile>>} */
  let session;
  /**
   * Resolves once the transcript's layout has stopped changing (rendered, measured, anchored).
   * @type {typeof import('./gestures.mjs').transcriptSettled}
   */
  let settled;
  before(async () => {
    ({ transcriptSettled: settled } = await import('./gestures.mjs'));
    session = await buildSessionFile();
    world = await startAgentWorld({
      workspaceFiles: { 'README.md': '# Long session\n' },
      settings: { 'contextPipeline.autoCompact': 'off' },
      openChat: false,
      // The extension's session storage: opening the chat resumes the latest session with messages.
      prepare: (dirs) => {
        installSession(dirs, session);
        process.stderr.write(
          `[long] wrote ${session.file}: ${2 * PAIRS} messages, ${(session.content.length / 1e6).toFixed(2)} MB\n`,
        );
      },
    });
  });

  after(async () => {
    if (!world) return;
    const { screenshot } = await import('./workbench.mjs');
    await screenshot(world.page, 'long-session-last').catch(() => undefined);
    const invalid = world.fake.invalidRequests;
    process.stderr.write(
      `[long] the fake server received ${world.fake.requests.length} request(s), ${invalid.length} invalid\n`,
    );
    for (const r of world.fake.requests)
      process.stderr.write(
        `[long]   ${r.method} ${r.path} valid=${r.valid} scripted=${r.step !== undefined} model=${/** @type {ApiRequest | undefined} */ (r.body)?.model} messages=${/** @type {ApiRequest | undefined} */ (r.body)?.messages?.length}\n`,
      );
    await world.close();
    assert.deepEqual(
      invalid.map((r) => r.error),
      [],
      'every request the extension sent was valid',
    );
  });

  test('resumes at the end with only the visible items rendered', async () => {
    const { openContextPipeline, screenshot } = await import('./workbench.mjs');
    const heapOf = () => {
      const m = /** @type {{ memory?: { usedJSHeapSize: number, totalJSHeapSize: number } }} */ (performance).memory;
      return m ? { used: m.usedJSHeapSize, total: m.totalJSHeapSize } : undefined;
    };
    /** @param {ReturnType<typeof heapOf>} h */
    const mb = (h) =>
      h
        ? `${(h.used / 1e6).toFixed(1)} MB used / ${(h.total / 1e6).toFixed(1)} MB total`
        : 'performance.memory not available';
    const t0 = performance.now();
    await openContextPipeline(world.page);
    await world.refindFrame();
    const f = world.frame;
    const tFrame = performance.now();
    // The first item node: the host has loaded the session and the transcript message arrived.
    await f.waitForFunction(() => document.querySelector('[data-testid="transcript"] [data-id]') !== null, undefined, {
      timeout: UI_TIMEOUT,
      polling: 20,
    });
    const tFirst = performance.now();
    await f.waitForFunction(inFrame.visible, /** @type {const} */ ([session.lastId, true]), {
      timeout: UI_TIMEOUT,
      polling: 20,
    });
    const tLast = performance.now();
    await f
      .locator(`[data-id="${session.lastId}"]`, { hasText: 'LAST-MESSAGE-MARKER' })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await settled(f); // measured, stuck to the end
    const heap = await f.evaluate(heapOf);
    const pageHeap = await world.page.evaluate(heapOf);
    // The renderer's heap after a full GC, and its DOM counters (through the DevTools protocol).
    const cdp = await world.page.context().newCDPSession(world.page);
    await cdp.send('HeapProfiler.collectGarbage');
    const gcHeap = await cdp.send('Runtime.getHeapUsage');
    const dom = await cdp.send('Memory.getDOMCounters');
    await cdp.detach();
    const stats = await f.evaluate(inFrame.stats);
    const domNodes = await f.evaluate(() => document.getElementsByTagName('*').length);
    console.log(
      `[long] open chat → last of ${2 * PAIRS} messages visible: ${(tLast - t0).toFixed(0)} ms (webview frame found after ${(tFrame - t0).toFixed(0)} ms, first item rendered after ${(tFirst - t0).toFixed(0)} ms, then last message visible ${(tLast - tFirst).toFixed(0)} ms later)`,
    );
    console.log(
      `[long] JS heap seen from the chat webview: ${mb(heap)}; from the workbench page: ${mb(pageHeap)} (the same number means one shared renderer heap)`,
    );
    console.log(
      `[long] after a forced GC: JS heap ${(gcHeap.usedSize / 1e6).toFixed(1)} MB used / ${(gcHeap.totalSize / 1e6).toFixed(1)} MB; DOM counters of the page's renderer: ${dom.nodes} nodes, ${dom.jsEventListeners} JS event listeners, ${dom.documents} documents`,
    );
    console.log(
      `[long] at the end: ${stats.nodes} item nodes rendered, ${domNodes} elements in the webview document, scrollHeight ${stats.scrollHeight} px, viewport ${stats.clientHeight} px`,
    );
    assert.equal(stats.setSize, 2 * PAIRS, 'the transcript holds every message (aria-setsize)');
    assert.ok(stats.nodes > 0 && stats.nodes < MAX_NODES, `${stats.nodes} item nodes rendered`);
    assert.ok(
      stats.scrollHeight > 20 * 2 * PAIRS,
      `the scroll height stands for all the messages (${stats.scrollHeight} px)`,
    );
    // A height measured late (after the GC above) may grow the transcript by a few pixels; the
    // view sticks to the end on its next frame, so wait for that rather than read it once.
    let end = stats;
    await eventually('the transcript to stay scrolled to the end', async () => {
      end = await f.evaluate(inFrame.stats);
      return end.scrollHeight - end.scrollTop - end.clientHeight <= 8;
    }).catch(() => undefined);
    assert.ok(
      end.scrollHeight - end.scrollTop - end.clientHeight <= 8,
      `scrolled to the end (scrollTop ${end.scrollTop}, clientHeight ${end.clientHeight}, scrollHeight ${end.scrollHeight})`,
    );
    await screenshot(world.page, 'long-session-end');
  });

  test('scrolling to the top renders the first message, still few nodes', async () => {
    const f = world.frame;
    await f.evaluate(() => {
      /** @type {HTMLElement} */ (document.querySelector('.scroll')).scrollTop = 0;
    });
    await f.waitForFunction(inFrame.visible, /** @type {const} */ ([session.firstId, false]), {
      timeout: UI_TIMEOUT,
      polling: 50,
    });
    assert.match(await f.locator(`[data-id="${session.firstId}"]`).innerText(), /FIRST-MESSAGE-MARKER/);
    const stats = await f.evaluate(inFrame.stats);
    assert.ok(stats.nodes < MAX_NODES, `${stats.nodes} item nodes rendered at the top`);
    assert.ok(stats.scrollTop <= 1, `stays at the top (scrollTop ${stats.scrollTop}), not pulled back down`);
    await settled(f);
    assert.equal((await f.evaluate(inFrame.stats)).scrollTop <= 1, true, 'still at the top once the layout settled');
  });

  test('scrolling through the whole session keeps the viewport covered with few nodes', async () => {
    const f = world.frame;
    const { screenshot } = await import('./workbench.mjs');
    await screenshot(world.page, 'long-session-top');
    // 80 jumps from top to bottom; after each, two frames, then check what is on screen.
    const r = await f.evaluate(async (/** @type {number} */ steps) => {
      const s = /** @type {HTMLElement} */ (document.querySelector('.scroll'));
      const t = /** @type {HTMLElement} */ (document.querySelector('[data-testid="transcript"]'));
      const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
      const gaps = [];
      let maxNodes = 0;
      const uncovered = [];
      for (let k = 0; k <= steps; k++) {
        s.scrollTop = Math.round(((s.scrollHeight - s.clientHeight) * k) / steps);
        const t0 = performance.now();
        await frame();
        await frame();
        gaps.push(performance.now() - t0);
        const items = [...t.querySelectorAll('[data-id]')];
        maxNodes = Math.max(maxNodes, items.length);
        const v = s.getBoundingClientRect();
        const tr = t.getBoundingClientRect();
        const top = items[0]?.getBoundingClientRect().top ?? Infinity;
        const bottom = items.at(-1)?.getBoundingClientRect().bottom ?? -Infinity;
        // The part of the viewport the transcript occupies must be filled by rendered items.
        if (top > Math.max(v.top, tr.top) + 1 || bottom < Math.min(v.bottom, tr.bottom) - 9)
          uncovered.push({ k, top, bottom, v: [v.top, v.bottom] });
      }
      gaps.sort((a, b) => a - b);
      return {
        maxNodes,
        uncovered,
        median: gaps[Math.floor(gaps.length / 2)],
        p95: gaps[Math.floor(gaps.length * 0.95)],
        max: /** @type {number} */ (gaps.at(-1)), // 81 jumps: never empty
      };
    }, 80);
    console.log(
      `[long] scrolling through in 81 jumps: at most ${r.maxNodes} item nodes; two frames after a jump: median ${r.median.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms, max ${r.max.toFixed(1)} ms`,
    );
    assert.deepEqual(r.uncovered, [], 'the viewport is covered by rendered items after every jump');
    assert.ok(r.maxNodes < MAX_NODES, `${r.maxNodes} item nodes at most`);
  });

  test('in the middle, expanding a chip above the viewport does not move what is read', async () => {
    const f = world.frame;
    await f.evaluate(() => {
      const s = /** @type {HTMLElement} */ (document.querySelector('.scroll'));
      s.scrollTop = Math.round(s.scrollHeight / 2);
    });
    await settled(f); // the window settles: rendered, measured, anchored
    // Scroll so that an item with a (closed) selection chip sits just above the viewport.
    let chipped;
    for (let tries = 0; !chipped && tries < 10; tries++) {
      chipped = await f.evaluate(() => {
        const s = /** @type {HTMLElement} */ (document.querySelector('.scroll'));
        const v = s.getBoundingClientRect();
        const item = [...document.querySelectorAll('[data-testid="transcript"] [data-id]')].find((n) =>
          n.querySelector('details.chip:not([open])'),
        );
        if (!item) {
          s.scrollTop += s.clientHeight; // none rendered here: look further down
          return undefined;
        }
        s.scrollTop += item.getBoundingClientRect().bottom - v.top + 10;
        return item.getAttribute('data-id');
      });
      await settled(f);
    }
    assert.ok(chipped, 'an item with a chip is rendered in the middle of the session');
    const before = await f.evaluate(
      (/** @type {string[]} */ [aboveId]) => {
        const v = /** @type {HTMLElement} */ (document.querySelector('.scroll')).getBoundingClientRect();
        const above = document.querySelector(`[data-testid="transcript"] [data-id="${aboveId}"]`);
        const anchor = [...document.querySelectorAll('[data-testid="transcript"] [data-id]')].find(
          (n) => n.getBoundingClientRect().top >= v.top,
        );
        if (!anchor || !above || above.getBoundingClientRect().bottom >= v.top) return undefined;
        const top = anchor.getBoundingClientRect().top;
        const height = above.getBoundingClientRect().height;
        /** @type {HTMLDetailsElement} */ (above.querySelector('details.chip')).open = true;
        return { id: anchor.getAttribute('data-id'), top, grew: above.getBoundingClientRect().height - height };
      },
      [chipped],
    );
    assert.ok(before, 'a visible item and a rendered item with a chip above the viewport');
    assert.ok(before.grew > 20, `the expanded chip made its item taller (${before.grew} px)`);
    await settled(f); // the growth above the viewport is compensated
    const after = await f.evaluate(
      (/** @type {(string | null)[]} */ [id]) => {
        const n = document.querySelector(`[data-testid="transcript"] [data-id="${id}"]`);
        return n ? n.getBoundingClientRect().top : undefined;
      },
      [before.id],
    );
    assert.ok(after !== undefined, 'the anchor item is still rendered');
    assert.ok(Math.abs(after - before.top) <= 1, `the item being read stayed in place (${before.top} → ${after})`);
    const stats = await f.evaluate(inFrame.stats);
    assert.ok(stats.nodes < MAX_NODES, `${stats.nodes} item nodes rendered in the middle`);
    const { screenshot } = await import('./workbench.mjs');
    await screenshot(world.page, 'long-session-middle');
    // Further down, a long Markdown answer renders as Markdown (heading, code block, table).
    for (let tries = 0; tries < 40; tries++) {
      const found = await f.evaluate(
        (/** @type {string[]} */ [id]) => {
          const n = document.querySelector(`[data-testid="transcript"] [data-id="${id}"]`);
          const s = /** @type {HTMLElement} */ (document.querySelector('.scroll'));
          // (Not scrollIntoView: it would scroll the workbench's own containers too.)
          s.scrollTop += n ? n.getBoundingClientRect().top - s.getBoundingClientRect().top : s.clientHeight;
          return n !== null;
        },
        [session.longId],
      );
      await settled(f);
      if (found) break;
    }
    const long = f.locator(`[data-id="${session.longId}"]`);
    await long.locator('.markdown pre code').first().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    assert.equal(await long.locator('.markdown h2').count(), 1);
    assert.equal(await long.locator('.markdown table').count(), 1);
    assert.ok((await f.evaluate(inFrame.stats)).nodes < MAX_NODES);
    await screenshot(world.page, 'long-session-markdown');
  });

  test('hiding the view and coming back keeps the reading position', async () => {
    const topItem = () =>
      world.frame.evaluate(() => {
        const v = /** @type {HTMLElement} */ (document.querySelector('.scroll')).getBoundingClientRect();
        const n = [...document.querySelectorAll('[data-testid="transcript"] [data-id]')].find(
          (e) => e.getBoundingClientRect().bottom > v.top + 1,
        );
        return n ? n.getAttribute('data-id') : undefined;
      });
    // The view state is saved 250 ms after a scroll: wait for that save, not for the time.
    await settled(world.frame);
    await world.frame.locator('.scroll:not([data-reading-save])').waitFor({ state: 'attached', timeout: UI_TIMEOUT });
    const reading = await topItem();
    assert.ok(reading && reading !== session.lastId, `reading in the middle (${reading})`);
    // Another view container in the side bar disposes the chat webview (no retained context).
    await world.hideAndReopenChat();
    await world.frame.waitForFunction(inFrame.visible, /** @type {const} */ ([reading, false]), {
      timeout: UI_TIMEOUT,
      polling: 50,
    });
    await settled(world.frame);
    assert.equal(await topItem(), reading, 'the same item is at the top of the viewport');
    assert.ok((await world.frame.evaluate(inFrame.stats)).nodes < MAX_NODES);
  });

  test('a new message streams its answer in at the bottom', async () => {
    const f = world.frame;
    // Matched on the chat model, so a summariser request (if any) never takes it.
    world.fake.script({
      match: { model: 'claude-sonnet-4-6' },
      text: 'Streamed answer at the end of a very long session. STREAM-DONE',
      deltaDelayMs: 15,
      chunkChars: 6,
    });
    const input = f.getByRole('textbox', { name: 'Message' });
    await input.fill('One more question after 2 000 messages?');
    await input.press('Enter');
    await f
      .locator('.item.assistant:not(.streaming) .text', { hasText: 'STREAM-DONE' })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    await f
      .locator('.composer button.primary:not(.stop)', { hasText: 'Send' })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT });
    const id = await f.locator('.item.assistant', { hasText: 'STREAM-DONE' }).getAttribute('data-id');
    await f.waitForFunction(inFrame.visible, /** @type {const} */ ([id, true]), { timeout: UI_TIMEOUT, polling: 50 });
    const stats = await f.evaluate(inFrame.stats);
    assert.equal(stats.setSize, 2 * PAIRS + 2, 'the new question and its answer joined the transcript');
    assert.ok(stats.nodes < MAX_NODES, `${stats.nodes} item nodes rendered`);
    const req = /** @type {MessagesRequest} */ (world.fake.requests.at(-1));
    assert.equal(req.valid, true);
    assert.equal(req.body.messages.length, 2 * PAIRS + 1, 'the whole history went to the model');
    const { screenshot } = await import('./workbench.mjs');
    await screenshot(world.page, 'long-session-streamed');
  });
});
