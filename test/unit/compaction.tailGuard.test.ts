import { strict as assert } from 'node:assert';
import { restoreRecord } from '../../src/core/compaction/apply';
import { Compactor } from '../../src/core/compaction/compactor';
import { DEFAULT_COMPACTION_SETTINGS } from '../../src/core/compaction/policy';
import { HARD_WAIT_LIMIT } from '../../src/core/compaction/plan';
import { guardTail, TAIL_GUARD_KEEP_CHARS } from '../../src/core/compaction/tailGuard';
import type { LayerContext } from '../../src/core/compaction/layerContext';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { ConversationState, Message, ToolUseBlock } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { effectiveWindow } from '../../src/core/pipeline/window';
import { fakeClock, testConfig } from './support/builders';
import { Convo, tokensOf } from './support/compactionFixtures';
import { assertAccepted, pipeline } from './support/normalizeFixtures';
import { ScriptedLlm } from './support/scriptedLlm';

/** The fixed part of the request (system prompt, tools) in these tests. */
const FIXED = 20_000;
const config = testConfig({ contextWindow: 100_000, outputReserve: 10_000, keepRecentTurns: 0 });
const measure = (s: ConversationState) => FIXED + s.messages.reduce((n, m) => n + tokensOf(m), 0);
const ctx = (): LayerContext => ({ utilisation: 1, tokensOf, clock: fakeClock(), ids: counterIds('tg') });

/** Three small turns, then a turn in progress whose one call wrote `contentChars` characters. */
function bigWrite(contentChars: number): ConversationState {
  const c = new Convo('bw');
  for (let i = 1; i <= 3; i++) c.add({ user: `Question ${i}`, answer: `Answer ${i}. ${'a'.repeat(400)}` });
  c.add({
    user: 'Generate the service layer',
    tools: [
      {
        name: 'Write',
        input: {
          file_path: 'src/services/all.ts',
          content: `export const header = 1;\n${'x = 1;\n'.repeat(contentChars / 7)}`,
        },
        result: 'File created successfully at: src/services/all.ts',
      },
    ],
  });
  return c.state({ messages: c.messages.slice(0, -1), config });
}

function writeOf(s: ConversationState): ToolUseBlock {
  const b = s.messages.flatMap((m) => m.blocks).find((x) => x.type === 'tool_use');
  assert.ok(b?.type === 'tool_use');
  return b;
}

describe('tail guard: the newest messages alone are more than the window leaves', () => {
  it('cuts a large input of a call that ran, keeps its other fields, and the record restores it', () => {
    const state = bigWrite(280_000);
    const out = guardTail(state, ctx(), measure(state) - 60_000);
    assert.equal(out.cut, 1);
    const input = writeOf(out.state).input as { file_path: string; content: string };
    assert.equal(input.file_path, 'src/services/all.ts', 'short fields stay');
    assert.ok(input.content.length <= TAIL_GUARD_KEEP_CHARS, `${input.content.length}`);
    assert.ok(input.content.startsWith('export const header = 1;'), 'the head stays');
    assert.match(
      input.content,
      /characters of this input left out so the request fits the context window; the call ran with the whole text; the original is kept and can be restored from the Compactions view/,
    );
    assert.ok(measure(out.state) < measure(state) - 60_000);
    assert.deepEqual(checkInvariants(out.state), []);
    const record = out.record;
    assert.ok(record);
    assert.equal(record.layer, 'tail-guard');
    const back = restoreRecord(out.state, record);
    assert.ok(back.ok);
    assert.deepEqual(writeOf(back.state).input, writeOf(state).input, 'restored whole');
    assert.match(
      out.notice ?? '',
      /one large block \(a tool call's input or an answer\) cut in the middle, about [\d,]+ tokens freed/,
    );
  });

  it("cuts the largest first and stops once enough is freed; never a thinking block, a pinned block or the user's words", () => {
    const c = new Convo('tx');
    c.add({ user: 'Write the whole design document', answer: `# Design\n${'d'.repeat(200_000)}` });
    c.add({ user: 'And the notes', answer: `# Notes\n${'n'.repeat(40_000)}` });
    c.add({ user: `Now the summary, and here is my draft ${'u'.repeat(60_000)}` });
    const base = c.state({ config });
    const messages: Message[] = base.messages.map((m, i) =>
      i === 1
        ? {
            ...m,
            blocks: [
              {
                type: 'thinking',
                thinking: 't'.repeat(50_000),
                signature: 'sig',
                meta: { ...(m.blocks[0] as Message['blocks'][0]).meta, id: 'think' },
              },
              ...m.blocks,
            ],
          }
        : m,
    );
    const state = { ...base, messages };
    const out = guardTail(state, ctx(), 30_000);
    assert.equal(out.cut, 1, 'the 50k-token answer alone frees enough');
    const [design, notes, draft] = [1, 3, 4].map((i) => out.state.messages[i] as Message);
    assert.ok(
      design?.blocks[0]?.type === 'thinking' && design.blocks[0].thinking.length === 50_000,
      'thinking untouched',
    );
    assert.ok(design?.blocks[1]?.type === 'text' && design.blocks[1].text.length <= TAIL_GUARD_KEEP_CHARS);
    assert.match(design?.blocks[1]?.type === 'text' ? design.blocks[1].text : '', /characters of this answer left out/);
    assert.equal(notes, state.messages[3], 'the smaller answer stays: enough was freed');
    assert.equal(draft, state.messages[4], "the user's newest words are never cut");

    const pinned = {
      ...state,
      messages: state.messages.map((m, i) =>
        i === 1 ? { ...m, blocks: m.blocks.map((b) => ({ ...b, meta: { ...b.meta, pinned: true } })) } : m,
      ),
    };
    const second = guardTail(pinned, ctx(), 30_000);
    assert.equal(second.state.messages[1], pinned.messages[1], 'a pinned answer is never cut');
    assert.notEqual(second.state.messages[3], pinned.messages[3], 'the next largest is cut instead');
  });

  it('a call with no result yet is cut without claiming it ran', () => {
    const state = bigWrite(80_000);
    const orphan = { ...state, messages: state.messages.slice(0, -1) };
    const out = guardTail(orphan, ctx(), 10_000);
    const content = (writeOf(out.state).input as { content: string }).content;
    assert.match(content, /left out so the request fits the context window; the original is kept/);
    assert.doesNotMatch(content, /the call ran/);
  });

  describe('in the compactor, before a request', () => {
    const compactor = (llm: ScriptedLlm) =>
      new Compactor({
        summariser: llm,
        clock: fakeClock(),
        ids: counterIds('q'),
        tokensOf,
        measure,
        settings: () => DEFAULT_COMPACTION_SETTINGS,
        timeout: () => new Promise(() => undefined),
      });

    it('a 70k-token Write in a 100k window: cut first, so no summary runs for nothing; the request fits and is valid', async () => {
      const state = bigWrite(280_000);
      const eff = effectiveWindow(state.config);
      assert.ok(measure(state) > eff, `over the window before (${measure(state)} of ${eff})`);
      const llm = new ScriptedLlm([]);
      const run = await compactor(llm).beforeRequest(state, { signal: new AbortController().signal });
      assert.equal(llm.requests.length, 0, 'the summariser is not called');
      assert.deepEqual(
        run.records.map((r) => r.layer),
        ['tail-guard'],
      );
      assert.ok(measure(run.state) < config.hardThreshold * eff, `${measure(run.state)} under the hard threshold`);
      assert.match(run.notices.join('\n'), /The newest messages alone were more than the context window leaves/);
      assertAccepted(pipeline().prepare(run.state).params);
    });

    it('between the hard threshold and the limit near the window, leaves assistant blocks to a later summary', async () => {
      const eff = effectiveWindow(config);
      let state: ConversationState | undefined;
      for (let chars = 150_000; chars < 300_000 && !state; chars += 3_500) {
        const s = bigWrite(chars);
        const share = measure(s) / eff;
        if (share > config.hardThreshold + 0.01 && share < HARD_WAIT_LIMIT - 0.01) state = s;
      }
      assert.ok(state, 'a request between the thresholds');
      const run = await compactor(new ScriptedLlm([])).beforeRequest(state, { signal: new AbortController().signal });
      assert.ok(!run.records.some((r) => r.layer === 'tail-guard'), run.records.map((r) => r.layer).join(', '));
      assert.deepEqual(writeOf(run.state).input, writeOf(state).input, 'the input stays whole');
    });

    it('leaves a request under the limit near the window alone', async () => {
      const state = bigWrite(200_000);
      const tokens = measure(state);
      assert.ok(tokens < HARD_WAIT_LIMIT * effectiveWindow(state.config), `${tokens}`);
      const llm = new ScriptedLlm([]);
      const run = await compactor(llm).beforeRequest(
        { ...state, config: { ...state.config, hardThreshold: 0.99, softThreshold: 0.98 } },
        { signal: new AbortController().signal },
      );
      assert.equal(run.records.length, 0);
      assert.equal(writeOf(run.state).input, writeOf(state).input);
    });
  });
});
