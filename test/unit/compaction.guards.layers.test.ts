import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { restoreRecord } from '../../src/core/compaction/apply';
import { budgetTrim } from '../../src/core/compaction/budgetTrim';
import type { LayerContext, LayerResult } from '../../src/core/compaction/layerContext';
import { microcompact } from '../../src/core/compaction/microcompact';
import { snip } from '../../src/core/compaction/snip';
import { guardToolResult } from '../../src/core/compaction/toolResultGuard';
import type { CompactionRecord } from '../../src/core/compaction/types';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { ConversationState } from '../../src/core/conversation/conversationModel';
import { Convo, layerCtx, lines } from './support/compactionBuilders';

type Call =
  | { kind: 'read'; path: string; offset?: number; size: number; error: boolean; pinned: boolean }
  | { kind: 'cmd'; size: number; error: boolean; pinned: boolean }
  | { kind: 'edit'; path: string; error: boolean };

const size = fc.oneof(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 10_000, max: 60_000 }));
const path = fc.constantFrom('a.ts', './a.ts', 'src//b.ts', 'src/b.ts');
const call: fc.Arbitrary<Call> = fc.oneof(
  fc.record(
    {
      kind: fc.constant('read' as const),
      path,
      offset: fc.option(fc.constantFrom(1, 100), { nil: undefined }),
      size,
      error: fc.boolean(),
      pinned: fc.boolean(),
    },
    { requiredKeys: ['kind', 'path', 'size', 'error', 'pinned'] },
  ),
  fc.record({ kind: fc.constant('cmd' as const), size, error: fc.boolean(), pinned: fc.boolean() }),
  fc.record({ kind: fc.constant('edit' as const), path, error: fc.boolean() }),
);

function build(turns: Call[][], spill: boolean): ConversationState {
  const c = new Convo();
  let n = 0;
  for (const calls of turns) {
    c.user();
    for (const k of calls) {
      n++;
      const raw = k.kind === 'edit' ? 'ok' : lines(Math.ceil(k.size / 80), 79, `r${n}`).slice(0, k.size);
      const content = guardToolResult(raw, {
        contextWindow: 200_000,
        spillDirectory: spill ? '/s' : '',
        fileName: `t${n}.txt`,
        toolName: k.kind,
      }).content;
      const opts = { isError: k.error, pinned: k.kind !== 'edit' && k.pinned };
      if (k.kind === 'read') c.read(k.path, content, k.offset === undefined ? {} : { offset: k.offset }, opts);
      else if (k.kind === 'edit')
        c.call('edit_file', { path: k.path, old_string: 'a', new_string: 'b' }, content, opts);
      else c.call('run_command', { command: `c${n}` }, content, opts);
    }
    c.say();
  }
  return c.state();
}

/** Budget trim, snip and microcompact in the order the pipeline runs them. */
function runLayers(
  state: ConversationState,
  ctx: LayerContext,
): { state: ConversationState; records: CompactionRecord[] } {
  const records: CompactionRecord[] = [];
  let s = state;
  for (const layer of [budgetTrim, snip, microcompact]) {
    const r: LayerResult = layer(s, ctx);
    assert.deepEqual(checkInvariants(r.state, { allowPendingToolUse: false }), []);
    if (r.record) records.push(r.record);
    else assert.equal(r.state, s, 'no record: the same state');
    s = r.state;
  }
  return { state: s, records };
}

describe('compaction guards: all cheap layers together', () => {
  it('keep the invariants, are idempotent together, and undo exactly, newest record first (property)', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(
        fc.array(fc.array(call, { minLength: 0, maxLength: 5 }), { minLength: 1, maxLength: 6 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.option(fc.integer({ min: 0, max: 20 * 60_000 }), { nil: undefined }),
        fc.boolean(),
        (turns, utilisation, idleMs, spill) => {
          const state = build(turns, spill);
          const ctx = layerCtx(utilisation, idleMs === undefined ? {} : { idleMs });
          const once = runLayers(state, ctx);
          for (const r of once.records) seen.add(r.layer);
          for (const r of once.records) assert.ok(r.tokensAfter < r.tokensBefore, `${r.layer} saves tokens`);
          const twice = runLayers(once.state, ctx);
          assert.equal(twice.records.length, 0, 'a second pass changes nothing');
          let s = once.state;
          for (const r of [...once.records].reverse()) {
            const back = restoreRecord(s, r);
            assert.ok(back.ok, r.layer);
            s = back.state;
          }
          assert.deepEqual(s.messages, state.messages);
          s.messages.forEach((m, i) => assert.equal(m, state.messages[i]));
        },
      ),
      {
        numRuns: 100,
        // One conversation every layer acts on, so the coverage check below never depends on luck.
        examples: [
          // A read barely longer than its stale placeholder: snipping it would save nothing (it once cost tokens).
          [
            [
              [{ kind: 'read', path: 'a.ts', size: 86, error: false, pinned: false }],
              [
                { kind: 'cmd', size: 10000, error: false, pinned: false },
                { kind: 'read', path: 'a.ts', size: 1, error: false, pinned: false },
                { kind: 'edit', path: 'a.ts', error: false },
              ],
            ],
            0.6,
            undefined,
            false,
          ],
          [
            [
              [
                { kind: 'read', path: 'a.ts', size: 20_000, error: false, pinned: false },
                { kind: 'cmd', size: 40_000, error: false, pinned: false },
                { kind: 'read', path: './a.ts', size: 20_000, error: false, pinned: false },
              ],
              [
                { kind: 'cmd', size: 400, error: false, pinned: false },
                { kind: 'cmd', size: 400, error: false, pinned: false },
                { kind: 'cmd', size: 400, error: false, pinned: false },
              ],
            ],
            0.8,
            10 * 60_000,
            false,
          ],
        ],
      },
    );
    assert.deepEqual([...seen].sort(), ['budget-trim', 'microcompact', 'snip'], 'every layer was exercised');
  });
});
