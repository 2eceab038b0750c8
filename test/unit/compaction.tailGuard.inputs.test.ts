import { strict as assert } from 'node:assert';
import { restoreRecord } from '../../src/core/compaction/apply';
import { guardTail } from '../../src/core/compaction/tailGuard';
import type { LayerContext } from '../../src/core/compaction/layerContext';
import type {
  Block,
  BlockMeta,
  ConversationState,
  Message,
  ToolUseBlock,
} from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { fakeClock, testConfig } from './support/builders';
import { Convo, tokensOf } from './support/compactionFixtures';
import { assertAccepted, pipeline } from './support/normalizeFixtures';

const config = testConfig({ contextWindow: 100_000, outputReserve: 10_000, keepRecentTurns: 0 });
const ctx = (): LayerContext => ({ utilisation: 1, tokensOf, clock: fakeClock(), ids: counterIds('ti') });
const meta = (id: string, source: 'assistant' | 'tool'): BlockMeta => ({
  id,
  tier: 2,
  source,
  createdAt: 0,
  pinned: false,
  compactable: true,
});

/** A small turn, then a turn in progress whose one round called `inputs` (one tool_use each) and got their results. */
function round(inputs: readonly Record<string, unknown>[], name = 'Write'): ConversationState {
  const c = new Convo('ti');
  c.add({ user: 'Question 1', answer: 'Answer 1.' });
  c.add({ user: 'Do it all at once.' });
  const base = c.state({ messages: c.messages.slice(0, -1), config });
  const uses: ToolUseBlock[] = inputs.map((input, i) => ({
    type: 'tool_use',
    id: `toolu_${i}`,
    name,
    input,
    meta: meta(`use_${i}`, 'assistant'),
  }));
  const results: Block[] = uses.map((u, i) => ({
    type: 'tool_result',
    toolUseId: u.id,
    content: 'ok',
    meta: meta(`res_${i}`, 'tool'),
  }));
  const turn = base.messages.at(-1)?.turn ?? 2;
  const calls: Message = { id: 'msg_calls', role: 'assistant', turn, blocks: uses };
  const answers: Message = { id: 'msg_results', role: 'user', turn, blocks: results };
  return { ...base, messages: [...base.messages, calls, answers] };
}

const uses = (s: ConversationState) =>
  s.messages.flatMap((m) => m.blocks).filter((b): b is ToolUseBlock => b.type === 'tool_use');

describe('tail guard: inputs no single long string makes large', () => {
  it('cuts a round of forty parallel Writes of about 1,400 tokens each, largest first, and restores them', () => {
    const state = round(
      Array.from({ length: 40 }, (_, i) => ({
        file_path: `src/f${i}.ts`,
        content: `// file ${i}\n${'y'.repeat(5_600)}`,
      })),
    );
    const out = guardTail(state, ctx(), 30_000);
    assert.ok(out.record, 'cut');
    assert.ok(out.cut >= 20, `${out.cut} calls cut`);
    assert.ok(out.record.tokensBefore - out.record.tokensAfter >= 30_000);
    assertAccepted(pipeline().prepare(out.state).params);
    const back = restoreRecord(out.state, out.record);
    assert.ok(back.ok);
    assert.deepEqual(
      uses(back.state).map((u) => u.input),
      uses(state).map((u) => u.input),
    );
  });

  it('cuts a long array of short items to its first and last ones with a note: sixty short edits, thirty thousand numbers', () => {
    const edits = Array.from({ length: 60 }, (_, i) => ({
      old_string: `old ${i} ${'o'.repeat(1_500)}`,
      new_string: `new ${i} ${'n'.repeat(1_500)}`,
    }));
    const values = Array.from({ length: 30_000 }, (_, i) => (i * 7919) % 100_000);
    const state = round(
      [
        { file_path: 'src/a.ts', edits },
        { title: 'latency', values },
      ],
      'MultiEdit',
    );
    const out = guardTail(state, ctx(), 60_000);
    const [multi, plot] = uses(out.state).map((u) => u.input as { edits: unknown[]; values: unknown[] });
    assert.equal(multi?.edits.length, 6);
    assert.deepEqual(multi?.edits.slice(0, 3), edits.slice(0, 3));
    assert.deepEqual(multi?.edits.slice(-2), edits.slice(-2));
    assert.match(
      String(multi?.edits[3]),
      /^\[… 55 items of this input left out so the request fits the context window; the call ran with all of them/,
    );
    assert.equal(plot?.values.length, 6);
    assert.deepEqual(plot?.values.slice(0, 3), values.slice(0, 3));
    assertAccepted(pipeline().prepare(out.state).params);
  });
});
