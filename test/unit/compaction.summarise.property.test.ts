import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { restoreRecord } from '../../src/core/compaction/apply';
import { markRegions, pickRegions, startsTurn } from '../../src/core/compaction/regions';
import { summariseRegions } from '../../src/core/compaction/summarise';
import type { CompactionRecord } from '../../src/core/compaction/types';
import { checkInvariants } from '../../src/core/conversation/invariants';
import type { ConversationState, Message } from '../../src/core/conversation/conversationModel';
import { counterIds } from '../../src/core/platform/platformPorts';
import { fakeClock } from './support/builders';
import {
  answer,
  Convo,
  instantTimeout,
  neverTimeout,
  summariseOpts,
  tokensOf,
  type TurnSpec,
} from './support/compactionFixtures';
import { ScriptedLlm, type Step } from './support/scriptedLlm';

const text = (max: number) => fc.string({ minLength: 1, maxLength: max }).map((s) => (s.trim() ? s : `x${s}`));
const toolStep = fc.record({
  name: fc.constantFrom('read_file', 'run_command'),
  input: fc.record({ path: fc.constantFrom('src/a.ts', './b.json') }),
  result: fc.oneof(fc.nat({ max: 400 }), fc.nat({ max: 30_000 })).map((n) => `r${'y'.repeat(n)}`),
});

const turnSpec: fc.Arbitrary<TurnSpec> = fc.record(
  {
    user: text(40),
    answer: fc.nat({ max: 6000 }).map((n) => `a${'z'.repeat(n)}`),
    tools: fc.array(toolStep, { maxLength: 2 }),
    pinned: fc.constantFrom(false, false, true),
    injected: fc.constantFrom('<system-reminder>\nnote\n</system-reminder>'),
    callAtEnd: toolStep,
  },
  { requiredKeys: ['user', 'answer'] },
);

type Op =
  | {
      kind: 'summarise';
      keepTurns: number;
      keepTokens: number;
      toFree: number | 'all';
      result: 'ok' | 'error' | 'timeout' | 'bloat';
      window: number;
    }
  | { kind: 'restore'; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('summarise' as const),
    keepTurns: fc.integer({ min: 0, max: 4 }),
    keepTokens: fc.constantFrom(0, 500, 5000),
    toFree: fc.oneof(fc.constant('all' as const), fc.integer({ min: 1, max: 20_000 })),
    result: fc.constantFrom('ok' as const, 'ok' as const, 'error' as const, 'timeout' as const, 'bloat' as const),
    window: fc.constantFrom(16_000, 200_000),
  }),
  fc.record({ kind: fc.constant('restore' as const), pick: fc.nat() }),
);

function steps(result: 'ok' | 'error' | 'timeout' | 'bloat'): Step[] {
  if (result === 'error') return [{ error: { kind: 'server', message: 'Server error.', retryable: true } }];
  if (result === 'timeout') return [{ hangUntilAbort: true }];
  const body = result === 'bloat' ? 'long '.repeat(20_000) : 'Summary body with `src/a.ts`.';
  return Array.from({ length: 40 }, () => answer(body));
}

function userWords(state: Pick<ConversationState, 'messages'>): unknown[] {
  return state.messages.flatMap((m) => m.blocks.filter((b) => b.type === 'text' && b.meta.source === 'user'));
}

/**
 * Ids of the newest messages a summarise must not touch: the last `turns` turns, the last tool
 * round and the last `tokens` tokens; but the budget never takes the tail past twice itself: it
 * stops before a message that would, and tool results at its head whose call would are left.
 */
function recentIds(messages: readonly Message[], turns: number, tokens: number): Set<string> {
  const ids = new Set<string>();
  let seen = 0;
  let sum = 0;
  let budget = true;
  let head: number | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Message;
    const t = tokensOf(m);
    const always = seen < turns || i >= messages.length - 2;
    if (!always && sum < tokens && sum + t > 2 * tokens) budget = false;
    if (always) ids.add(m.id);
    else if (budget && sum < tokens) {
      ids.add(m.id);
      head = i;
    } else break;
    sum += t;
    if (startsTurn(m)) seen++;
  }
  const first = head === undefined ? undefined : (messages[head] as Message);
  if (head !== undefined && first?.blocks.some((b) => b.type === 'tool_result')) {
    const call = messages[head - 1];
    if (call && sum + tokensOf(call) > 2 * tokens) ids.delete(first.id);
  }
  return ids;
}

function restoreAll(state: ConversationState, records: readonly CompactionRecord[]): ConversationState {
  let s = state;
  for (const r of [...records].reverse()) {
    const back = restoreRecord(s, r);
    assert.ok(back.ok, back.ok ? '' : back.reason);
    s = back.state;
  }
  return s;
}

describe('summarise and restore (property)', () => {
  it('keep the invariants, every user word, pinned and recent messages, and undo exactly', async () => {
    const seen = { summarise: 0, 'fallback-drop': 0, chunked: 0, skipped: 0, restored: 0, glued: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(turnSpec, { minLength: 1, maxLength: 10 }),
        fc.array(op, { minLength: 1, maxLength: 8 }),
        async (turns, ops) => {
          const c = new Convo('q');
          for (const t of turns) c.add(t);
          const original = c.state();
          assert.deepEqual(checkInvariants(original), []);
          const pinned = original.messages.filter((m) => m.blocks.some((b) => b.meta.pinned));
          const ids = counterIds('y');
          const clock = fakeClock();
          let state = original;
          let active: CompactionRecord[] = [];
          for (const o of ops) {
            const before = state;
            if (o.kind === 'restore') {
              if (active.length === 0) continue;
              const rec = active[o.pick % active.length] as CompactionRecord;
              const back = restoreRecord(state, rec);
              assert.ok(back.ok, 'a summary is never swallowed by a later one, so any record can be restored');
              state = back.state;
              active = active.filter((r) => r !== rec);
              seen.restored++;
            } else {
              const regions = pickRegions(
                markRegions(state, { keepRecentTurns: o.keepTurns, keepRecentTokens: o.keepTokens, tokensOf }),
                o.toFree === 'all' ? Infinity : o.toFree,
              );
              const timeout = o.result === 'timeout' ? instantTimeout : neverTimeout;
              const llm = new ScriptedLlm(steps(o.result));
              const out = await summariseRegions(
                state,
                summariseOpts(regions, llm, { ids, clock, timeout, contextWindow: o.window }),
              );
              const errorish = o.result === 'error' || o.result === 'timeout';
              if (out.failed) assert.ok(errorish && regions.length > 0);
              if (errorish && llm.requests.length > 0) assert.ok(out.failed);
              const recent = recentIds(before.messages, o.keepTurns, o.keepTokens);
              const regionIds = new Set(regions.flatMap((r) => r.messageIds));
              for (const r of out.records) {
                assert.ok(r.tokensAfter < r.tokensBefore, 'only shrinking compactions are applied');
                for (const m of r.originals) {
                  assert.ok(regionIds.has(m.id), 'only picked regions are replaced');
                  assert.ok(!recent.has(m.id), `recent message ${m.id} was compacted`);
                }
              }
              const after = new Set(out.state.messages);
              for (const m of before.messages)
                if (!out.records.some((r) => r.originals.includes(m)))
                  assert.ok(after.has(m), 'untouched messages stay the same objects');
              assert.deepEqual(
                restoreAll(out.state, out.records).messages,
                before.messages,
                'restoring right after compacting gives the messages back',
              );
              state = out.state;
              active = [...active, ...out.records];
              for (const r of out.records) seen[r.layer === 'summarise' ? 'summarise' : 'fallback-drop']++;
              if (llm.requests.length > out.records.length) seen.chunked++;
              seen.skipped += out.skipped.length;
              if (
                out.records.some((r) =>
                  r.originals.some((m) => startsTurn(m) && m.blocks.some((b) => b.type === 'tool_result')),
                )
              )
                seen.glued++;
            }
            assert.deepEqual(checkInvariants(state), [], `after ${JSON.stringify(o)}`);
            assert.deepEqual(userWords(state), userWords(original), 'every user word is in place, in order');
            const present = new Set(state.messages);
            for (const m of pinned) assert.ok(present.has(m), 'pinned messages are untouched');
          }
          assert.deepEqual(restoreAll(state, active).messages, original.messages);
        },
      ),
      { numRuns: 300 },
    );
    for (const [what, n] of Object.entries(seen)) assert.ok(n > 0, `${what} was exercised (${JSON.stringify(seen)})`);
  });
});
