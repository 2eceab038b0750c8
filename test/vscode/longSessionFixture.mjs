// The 2 000-message session of longSession.test.mjs, built with the extension's own code, and
// the per-frame probes the test evaluates in the chat webview.
import assert from 'node:assert/strict';

export const PAIRS = 1_000;
export const FIRST_WORDS = 'FIRST-MESSAGE-MARKER: where does the request pipeline start?';
export const LAST_WORDS = 'LAST-MESSAGE-MARKER: that is the whole pipeline, end to end.';
export const MAX_NODES = 120;

/**
 * A long Markdown answer: heading, list, a code block and a table.
 * @param {number} i the pair's index, woven into the text
 * @returns {string}
 */
export function longAnswer(i) {
  const code = Array.from(
    { length: 10 },
    (_, k) => `  const step${k} = await stage${k}(input${i}, { retries: ${k % 4}, label: 'stage-${k}' });`,
  ).join('\n');
  return [
    `## Answer ${i}: how the stages fit together`,
    '',
    `The request for item ${i} goes through **assembly**, *estimation*, guarding and serialisation. Each stage is a small pure function, so it can be tested on its own and replayed from a session file.`,
    '',
    '- assemble the user message with its tagged context',
    '- estimate the tokens, anchored on the last usage',
    '- place at most four cache breakpoints',
    '',
    '```ts',
    `export async function run${i}(input${i}: Input): Promise<Output> {`,
    code,
    '  return serialise(step9);',
    '}',
    '```',
    '',
    '| stage | cost |',
    '| --- | --- |',
    `| assemble | ${i % 7} ms |`,
    `| estimate | ${i % 5} ms |`,
  ].join('\n');
}

/**
 * The session file's lines, built with the extension's own code: core assembly and answer
 * functions make the messages, the session codec encodes them, and replay checks the result
 * loads without repairs. Returns the file name, its content and the first/last item ids.
 */
export async function buildSessionFile() {
  const { assembleUserMessage, applyUserMessage } = await import('../../src/core/conversation/assemble.ts');
  const { appendAssistantMessage } = await import('../../src/core/conversation/assistant.ts');
  const { resolveConfig } = await import('../../src/core/pipeline/config.ts');
  const { counterIds } = await import('../../src/core/platform/platformPorts.ts');
  const { encodeEntry, SESSION_FORMAT, SESSION_VERSION } = await import('../../src/core/session/entries.ts');
  const { decodeLine } = await import('../../src/core/session/lineCodec.ts');
  const { replaySession } = await import('../../src/core/session/replay.ts');
  const { newSessionId } = await import('../../src/host/sessions/sessionStore.ts');

  const config = resolveConfig({});
  if (!config.ok) throw new Error(config.error);
  let t = Date.now() - PAIRS * 60_000;
  const clock = { now: () => t };
  const ids = counterIds('long');
  /** @type {import('../../src/core/conversation/conversationModel.ts').ConversationState} */
  let state = { system: [], tools: [], messages: [], pending: [], config: config.config };
  /** @type {import('../../src/core/session/entries.ts').SessionEntry[]} */
  const entries = [];
  for (let i = 0; i < PAIRS; i++) {
    t += 30_000;
    const words =
      i === 0
        ? FIRST_WORDS
        : i % 9 === 4
          ? `Question ${i}: why does stage ${i % 13} retry?\nIt failed twice on input ${i}.\nIs that expected?`
          : `Question ${i}: what does stage ${i % 13} do with input ${i}?`;
    /** @type {import('../../src/core/conversation/conversationModel.ts').Injection[]} */
    const pending =
      i % 5 === 1
        ? [
            {
              kind: 'ide_selection',
              path: `src/stage${i % 13}.ts`,
              startLine: 10,
              endLine: 14,
              text: Array.from({ length: 5 }, (_, k) => `const line${k} = stage${i % 13}(${k});`).join('\n'),
            },
          ]
        : [];
    const u = assembleUserMessage(
      { ...state, pending },
      { userText: words, pasteDirectory: '/nonexistent' },
      { clock, ids },
    );
    if (!u.ok) throw new Error(u.error.message);
    state = applyUserMessage({ ...state, pending }, u.value);
    entries.push({ type: 'message', at: t, message: u.value.message });
    t += 20_000;
    const text =
      i === PAIRS - 1
        ? LAST_WORDS
        : i % 20 === 5
          ? longAnswer(i)
          : `Answer ${i}: stage ${i % 13} validates input ${i}, then passes it on. Nothing else.`;
    const a = appendAssistantMessage(state, [{ type: 'text', text }], { clock, ids });
    if (!a.ok) throw new Error(a.error);
    state = a.state;
    entries.push({ type: 'message', at: t, message: a.message });
  }
  const sessionId = newSessionId(t - PAIRS * 60_000, 0.5);
  /** @type {import('../../src/core/session/entries.ts').HeaderEntry} */
  const header = {
    type: 'header',
    format: SESSION_FORMAT,
    version: SESSION_VERSION,
    sessionId,
    createdAt: t - PAIRS * 60_000,
    model: 'claude-sonnet-4-6',
    workspace: 'workspace',
  };
  const all = [header, ...entries];
  const lines = all.map((e) => encodeEntry(e));
  const decoded = lines.map((l) => decodeLine(l));
  assert.ok(
    decoded.every((d) => d.ok),
    'every line decodes with the real schema',
  );
  const replayed = replaySession(decoded.map((d) => d.entry));
  assert.deepEqual([...replayed.fixes, ...replayed.problems], [], 'the session loads without repairs');
  assert.equal(replayed.messages.length, 2 * PAIRS);
  // The long Markdown answer of pair 505 (a little below the middle).
  const longId = state.messages[2 * 505 + 1].id;
  return {
    file: `${sessionId}.jsonl`,
    content: `${lines.join('\n')}\n`,
    firstId: state.messages[0].id,
    lastId: state.messages.at(-1)?.id,
    longId,
  };
}

/** Per-frame helpers evaluated in the chat webview. */
export const inFrame = {
  /** Number of item nodes, the transcript's item count (aria-setsize) and the scroller's geometry. */
  stats: () => {
    const t = /** @type {HTMLElement} */ (document.querySelector('[data-testid="transcript"]'));
    const s = /** @type {HTMLElement} */ (document.querySelector('.scroll'));
    const first = t?.querySelector('[data-id]');
    return {
      nodes: t ? t.querySelectorAll('[data-id]').length : -1,
      setSize: Number(first?.getAttribute('aria-setsize') ?? 0),
      scrollTop: s?.scrollTop ?? -1,
      scrollHeight: s?.scrollHeight ?? -1,
      clientHeight: s?.clientHeight ?? -1,
    };
  },
  /**
   * Whether the item `id` is rendered and (a part of it) inside the scroller's viewport; `bottom`: its end is in view.
   * @param {readonly [id: string | null | undefined, bottom: boolean]} args a missing id is never visible
   */
  visible: ([id, bottom]) => {
    const n = document.querySelector(`[data-testid="transcript"] [data-id="${id}"]`);
    const s = /** @type {HTMLElement} */ (document.querySelector('.scroll'));
    if (!n || !s) return false;
    const r = n.getBoundingClientRect();
    const v = s.getBoundingClientRect();
    return bottom ? r.bottom <= v.bottom + 1 && r.bottom > v.top : r.bottom > v.top && r.top < v.bottom;
  },
};
