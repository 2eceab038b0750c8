/** Conversations and checks for the removal strategies' tests (middle, oldest, hybrid). */
import { strict as assert } from 'node:assert';
import { restoreRecord } from '../../../src/core/compaction/apply';
import type { CompactionRecord } from '../../../src/core/compaction/types';
import { checkInvariants } from '../../../src/core/conversation/invariants';
import type {
  Block,
  ConversationState,
  Message,
  SummaryBlock,
  TextBlock,
} from '../../../src/core/conversation/conversationModel';
import { Build, emptyState } from './builders';

/** One tool round: an assistant message calling `tools`, answered by results of `result` characters. */
export interface RoundSpec {
  readonly tools: readonly string[];
  readonly result: number;
}

/** One turn: the user's words, tool rounds, and a final answer (omitted: the turn ends mid-loop). */
export interface TurnSpec {
  readonly words: string;
  readonly rounds?: readonly RoundSpec[];
  /** Characters of the final answer; undefined on a non-last turn becomes a short answer. */
  readonly answer?: number;
  /** Text of the final answer, instead of `answer` characters. */
  readonly answerText?: string;
  readonly pinned?: boolean;
  readonly summary?: boolean;
  readonly system?: boolean;
  /** The user also types in the last round's tool-result message (does not start a turn). */
  readonly interrupt?: string;
  /** The last turn ends with the assistant's tool calls unanswered. */
  readonly pending?: boolean;
}

/** Filler text of `n` characters (with spaces, no question mark). */
export function filler(n: number): string {
  return 'lorem ipsum '
    .repeat(Math.ceil(n / 12))
    .slice(0, Math.max(1, n))
    .replace(/ $/, 'x');
}

/** Content-based token count: 3 per message, and per block 1 + ⌈characters / 4⌉. */
export function tokensOf(m: Message): number {
  return 3 + m.blocks.reduce((n, b) => n + 1 + Math.ceil(blockChars(b) / 4), 0);
}

function blockChars(b: Block): number {
  switch (b.type) {
    case 'text':
    case 'summary':
      return b.text.length;
    case 'tool_use':
      return b.name.length + JSON.stringify(b.input).length;
    case 'tool_result':
      return typeof b.content === 'string' ? b.content.length : JSON.stringify(b.content).length;
    case 'thinking':
      return b.thinking.length;
    case 'image':
      return 400;
    case 'server_tool':
      return JSON.stringify(b.raw).length;
  }
}

/** Builds a conversation from turn specs, as the pipeline would (turn numbers included). */
export function conversation(specs: readonly TurnSpec[], tag = 'rc'): ConversationState {
  return buildConversation(specs, tag).state;
}

/** Like conversation(), with the messages of each spec (each spec is one whole turn). */
export function buildConversation(
  specs: readonly TurnSpec[],
  tag = 'rc',
): { state: ConversationState; turns: Message[][] } {
  const b = new Build(tag);
  const messages: Message[] = [];
  const turns: Message[][] = [];
  let turn = 0;
  specs.forEach((spec, k) => {
    const from = messages.length;
    build(b, spec, k === specs.length - 1, ++turn, messages);
    turn = messages.at(-1)?.turn ?? turn;
    turns.push(messages.slice(from));
  });
  return { state: emptyState({ messages }), turns };
}

function build(b: Build, spec: TurnSpec, last: boolean, startTurn: number, messages: Message[]): void {
  let turn = startTurn;
  const first: Block[] = [];
  if (spec.summary) first.push(summary(b, turn));
  if (spec.system) first.push(retag(b.text('system note', 'system'), { tier: 0 }));
  if (spec.pinned)
    first.push(retag(b.text('<ide_selection>pinned code</ide_selection>', 'ide_selection'), { pinned: true, tier: 3 }));
  first.push(b.text(spec.words));
  messages.push(b.message('user', first, turn));
  const rounds = spec.rounds ?? [];
  rounds.forEach((r, i) => {
    const uses = r.tools.map((name) => b.toolUse(name, { path: `src/${name}.ts` }));
    messages.push(b.message('assistant', [b.text('Let me look.', 'assistant'), ...uses], turn));
    if (last && spec.pending && i === rounds.length - 1) return;
    const results: Block[] = uses.map((u) => b.toolResult(u.id, filler(r.result)));
    if (spec.interrupt && i === rounds.length - 1) {
      results.push(b.text(spec.interrupt));
      turn++;
    }
    messages.push(b.message('user', results, turn));
  });
  if (last && (spec.pending || (spec.answer === undefined && spec.answerText === undefined))) return;
  messages.push(b.message('assistant', [b.text(spec.answerText ?? filler(spec.answer ?? 20), 'assistant')], turn));
}

function retag(t: TextBlock, meta: Partial<Pick<TextBlock['meta'], 'tier' | 'pinned'>>): TextBlock {
  return { ...t, meta: { ...t.meta, ...meta } };
}

function summary(b: Build, turn: number): SummaryBlock {
  return {
    type: 'summary',
    text: 'Summary of earlier turns.',
    compactionId: 'cmp_old',
    turnRange: [1, Math.max(1, turn - 1)],
    meta: { id: b.ids.next('blk'), tier: 0, source: 'compactor', createdAt: 0, pinned: false, compactable: false },
  };
}

/** The user's own text blocks, in order. */
export function userWords(messages: readonly Message[]): TextBlock[] {
  return messages.flatMap((m) => m.blocks.filter((x): x is TextBlock => x.type === 'text' && x.meta.source === 'user'));
}

/** Restores every record, newest first. */
export function restoreAll(state: ConversationState, records: readonly CompactionRecord[]): ConversationState {
  let s = state;
  for (const r of [...records].reverse()) {
    const res = restoreRecord(s, r);
    assert.ok(res.ok, res.ok ? '' : res.reason);
    s = res.state;
  }
  return s;
}

/** The checks every removal must pass: invariants, user words verbatim, sound records, exact undo. */
export function assertSoundRemoval(
  before: ConversationState,
  after: ConversationState,
  records: readonly CompactionRecord[],
  layer: CompactionRecord['layer'],
): void {
  assert.deepEqual(checkInvariants(after), [], 'invariants hold after removal');
  const words = userWords(after.messages);
  const original = userWords(before.messages);
  assert.equal(words.length, original.length, 'no user words dropped');
  words.forEach((w, i) => assert.equal(w, original[i], 'user words kept verbatim, as the same blocks, in order'));
  for (const r of records) {
    assert.equal(r.layer, layer);
    assert.equal(r.costUsd, 0);
    assert.equal(r.durationMs, 0);
    assert.deepEqual(r.fallbacks, []);
    assert.equal(r.replacement.length, 2);
    assert.deepEqual(
      r.replacement.map((m) => m.role),
      ['user', 'assistant'],
    );
    const marker = r.replacement[0]?.blocks[0];
    assert.ok(
      marker?.type === 'text' &&
        /^\[Turns? \d+(–\d+)? (was|were) removed to save context \(.+\); (it|they) can be restored from the Compactions view\.\]$/.test(
          marker.text,
        ),
      'marker text',
    );
    assert.equal(marker.meta.source, 'compactor');
    assert.equal(marker.meta.compactable, false);
    assert.deepEqual(
      r.regions[0]?.messageIds,
      r.originals.map((m) => m.id),
    );
    assert.equal(
      r.tokensBefore,
      r.originals.reduce((n, m) => n + tokensOf(m), 0),
    );
    assert.equal(
      r.tokensAfter,
      r.replacement.reduce((n, m) => n + tokensOf(m), 0),
    );
    assert.ok(r.tokensAfter < r.tokensBefore, 'each removal frees tokens');
  }
  const restored = restoreAll(after, records);
  assert.deepEqual(restored.messages, before.messages, 'restoring all records gives the original back');
  restored.messages.forEach((m, i) => assert.equal(m, before.messages[i], 'the very same message objects'));
}
