/**
 * Tail guard: the last step before a request that would not fit the window. Compaction never
 * touches the newest tool round (a tool_use goes with its tool_result) nor the answer before
 * the user's newest words, and the arrival guards bound only what tools and the user bring.
 * An assistant message can still be larger than the window leaves: a session resumed with a
 * smaller window or another model, or carried over from an agent with a larger answer limit
 * (a 64k-token Write in a 100k window). Then (before a summary that could not help, after
 * every other layer, and in overflow recovery: see the Compactor) the largest assistant
 * blocks are cut in the middle — a call's long input strings (the API's own context editing
 * clears tool inputs too: `clear_tool_inputs`, platform.claude.com/docs/en/build-with-claude/
 * context-editing) and long answer text — each with a note saying what was left out and why,
 * until the request is back at the hard target. Thinking blocks are never changed (their
 * signature covers them), nor pinned blocks. One record keeps the originals (restorable). Pure.
 */
import type { Block, ConversationState, Message, TextBlock, ToolUseBlock } from '../conversation/conversationModel';
import { formatCount } from '../tools/result';
import { commitBlockEdits, freshMeta, type LayerContext, type LayerResult } from './layerContext';
import { HARD_WAIT_LIMIT } from './plan';
import { effectiveWindow, hardTargetTokens, type CompactionSettings } from './policy';
import type { CompactionRecord } from './types';
import { cutMiddle } from './toolResultGuard';

/** Characters a cut string keeps (head and tail together, with its note). */
export const TAIL_GUARD_KEEP_CHARS = 2_000;

/** A block smaller than this many tokens is never cut: it would free too little. */
export const TAIL_GUARD_MIN_TOKENS = 2_000;

/** The guard's outcome: a layer result, the blocks cut, and a sentence for the user when any were. */
export interface TailGuardResult extends LayerResult {
  readonly cut: number;
  readonly notice?: string;
}

/** One block the guard may cut, with its tokens. */
interface Candidate {
  readonly block: TextBlock | ToolUseBlock;
  readonly turn: number;
  readonly tokens: number;
}

/** The calls that have a result in `messages` (a call without one did not run). */
function answeredCalls(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const m of messages) for (const b of m.blocks) if (b.type === 'tool_result') ids.add(b.toolUseId);
  return ids;
}

/** Tokens of one block, as a message of its own (through the message counter). */
function blockTokens(block: Block, turn: number, ctx: LayerContext): number {
  return ctx.tokensOf({ id: `${block.meta.id}#tail-guard`, role: 'assistant', blocks: [block], turn });
}

/** The note left where a middle was cut. */
function note(what: string, cutChars: number, ran: boolean): string {
  const after = ran ? '; the call ran with the whole text' : '';
  return `[… ${formatCount(cutChars)} characters of ${what} left out so the request fits the context window${after}; the original is kept and can be restored from the Compactions view …]`;
}

/** `value` with every string longer than the keep size cut in the middle (objects and arrays walked). */
function cutStrings(value: unknown, ran: boolean): unknown {
  if (typeof value === 'string') {
    if (value.length <= TAIL_GUARD_KEEP_CHARS) return value;
    return cutMiddle(value, TAIL_GUARD_KEEP_CHARS, (c) => note('this input', c.cutChars, ran)).text;
  }
  if (Array.isArray(value)) return value.map((v) => cutStrings(v, ran));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutStrings(v, ran)]));
  return value;
}

/** The cut version of a candidate block (the same object when nothing in it is long enough). */
function cutBlock(block: TextBlock | ToolUseBlock, ran: boolean): Block {
  if (block.type === 'text') {
    if (block.text.length <= TAIL_GUARD_KEEP_CHARS) return block;
    const text = cutMiddle(block.text, TAIL_GUARD_KEEP_CHARS, (c) => note('this answer', c.cutChars, false)).text;
    return { ...block, text, meta: freshMeta(block.meta) };
  }
  const input = cutStrings(block.input, ran);
  return JSON.stringify(input) === JSON.stringify(block.input)
    ? block
    : { ...block, input, meta: freshMeta(block.meta) };
}

/**
 * Cuts the largest assistant blocks of `state` (see the module comment), largest first, until
 * about `tokensToFree` tokens are freed or nothing is left to cut; one record of layer
 * `tail-guard` (trigger from `ctx`, `auto-hard` by default). The input state and no record
 * when nothing could be cut.
 */
export function guardTail(state: ConversationState, ctx: LayerContext, tokensToFree: number): TailGuardResult {
  if (tokensToFree <= 0) return { state, cut: 0 };
  const candidates: Candidate[] = [];
  for (const m of state.messages) {
    if (m.role !== 'assistant') continue;
    for (const b of m.blocks) {
      if ((b.type !== 'text' && b.type !== 'tool_use') || b.meta.pinned) continue;
      const tokens = blockTokens(b, m.turn, ctx);
      if (tokens >= TAIL_GUARD_MIN_TOKENS) candidates.push({ block: b, turn: m.turn, tokens });
    }
  }
  candidates.sort((a, b) => b.tokens - a.tokens);
  const ran = answeredCalls(state.messages);
  const edits = new Map<string, Block>();
  let freed = 0;
  for (const c of candidates) {
    if (freed >= tokensToFree) break;
    const cut = cutBlock(c.block, c.block.type === 'tool_use' && ran.has(c.block.id));
    if (cut === c.block) continue;
    edits.set(c.block.meta.id, cut);
    freed += c.tokens - blockTokens(cut, c.turn, ctx);
  }
  const r = commitBlockEdits(state, ctx, edits, { layer: 'tail-guard', trigger: 'auto-hard' });
  if (!r.record) return { state, cut: 0 };
  const { tokensBefore, tokensAfter } = r.record;
  const what = edits.size === 1 ? 'one large block' : `${edits.size} large blocks`;
  return {
    ...r,
    cut: edits.size,
    notice: `The newest messages alone were more than the context window leaves: ${what} (a tool call's input or an answer) cut in the middle, about ${formatCount(tokensBefore - tokensAfter)} tokens freed. The originals can be restored from the Compactions view.`,
  };
}

/** A tail-guard step's outcome, in the shape of a compaction run's parts. */
export interface TailGuardStep {
  readonly state: ConversationState;
  readonly records: readonly CompactionRecord[];
  readonly notices: readonly string[];
}

/**
 * The compactor's use of the guard: when a request for `state` is expected to come to
 * `expectedTokens` (after the compaction planned, or as it stands) and that is at or past
 * {@link HARD_WAIT_LIMIT} of the effective window, cut what is over the hard target
 * (`expectedTokens` less it). Otherwise, or when nothing can be cut, `state` as it is.
 */
export function tailGuardStep(
  state: ConversationState,
  expectedTokens: number,
  deps: { readonly settings: CompactionSettings; readonly ctx: LayerContext },
): TailGuardStep {
  const none = { state, records: [], notices: [] };
  if (expectedTokens < HARD_WAIT_LIMIT * effectiveWindow(state.config)) return none;
  const r = guardTail(state, deps.ctx, Math.ceil(expectedTokens - hardTargetTokens(state.config, deps.settings)));
  return r.record && r.notice ? { state: r.state, records: [r.record], notices: [r.notice] } : none;
}
