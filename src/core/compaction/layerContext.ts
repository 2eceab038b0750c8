/**
 * What the cheap compaction layers (budget trim, snip, microcompact) share: the context they
 * run in, their result, the tool results they may touch, and the one way they change the
 * history — new contents for some tool_result blocks, committed as ONE CompactionRecord that
 * keeps the original messages verbatim. Pure: no I/O, no timers.
 */
import type {
  Block,
  BlockMeta,
  ConversationState,
  Message,
  ToolResultBlock,
  ToolResultContent,
  ToolUseBlock,
} from '../conversation/conversationModel';
import type { Clock, IdSource } from '../platform/platformPorts';
import type { CompactionLayer, CompactionRecord, CompactionRegion, CompactionTrigger } from './types';

/** Everything a cheap layer needs besides the state. */
export interface LayerContext {
  /** Share (0..1) of the effective window the next request would use. */
  readonly utilisation: number;
  /** Calibrated tokens of a message. */
  readonly tokensOf: (m: Message) => number;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** Milliseconds since the last request was sent (microcompact only). */
  readonly idleMs?: number;
  /** How long the cache that idle time is measured against lives (microcompact; absent: the setting's usual lifetime). */
  readonly lifetimeMs?: number;
  /** Overrides the trigger the layer would record. */
  readonly trigger?: CompactionTrigger;
}

/** A layer's outcome: the state (the input object when nothing changed) and its one record. */
export interface LayerResult {
  readonly state: ConversationState;
  readonly record?: CompactionRecord;
}

/** One tool result of the conversation, where it stands, and the call it answers. */
export interface ResultSite {
  readonly block: ToolResultBlock;
  readonly messageIndex: number;
  /** The tool_use it answers (in the previous message), when found. */
  readonly use?: ToolUseBlock;
  /** Turn of the message holding that tool_use. */
  readonly useTurn?: number;
  /** Position of the tool_use among all tool_use blocks (conversation order), -1 if not found. */
  readonly useOrder: number;
}

/** Every tool result in conversation order, each with its tool_use. */
export function toolResultSites(messages: readonly Message[]): ResultSite[] {
  const uses = new Map<string, { use: ToolUseBlock; turn: number; order: number }>();
  const sites: ResultSite[] = [];
  messages.forEach((m, messageIndex) => {
    for (const b of m.blocks) {
      if (b.type === 'tool_use') uses.set(b.id, { use: b, turn: m.turn, order: uses.size });
      else if (b.type === 'tool_result') {
        const u = uses.get(b.toolUseId);
        sites.push(
          u
            ? { block: b, messageIndex, use: u.use, useTurn: u.turn, useOrder: u.order }
            : { block: b, messageIndex, useOrder: -1 },
        );
      }
    }
  });
  return sites;
}

/**
 * The results a layer may change: all but the newest `keep` tool results (counted over all
 * results, pinned or not), and of those only the ones that are compactable, not pinned and
 * whose tool_use is not pinned either.
 */
export function olderEditableResults(messages: readonly Message[], keep: number): ResultSite[] {
  const sites = toolResultSites(messages);
  return sites
    .slice(0, Math.max(0, sites.length - keep))
    .filter((s) => s.block.meta.compactable && !s.block.meta.pinned && !s.use?.meta.pinned);
}

/** The text parts of a result, joined by newlines (the string itself for string content). */
export function resultText(content: ToolResultContent): string {
  return typeof content === 'string' ? content : content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

/** Whether a result holds any image part. */
export function hasImages(content: ToolResultContent): boolean {
  return typeof content !== 'string' && content.some((p) => p.type === 'image');
}

// The placeholders' home is conversation/resultPlaceholders.ts (the cache's settled prefix reads them too).
export { CLEARED_PREFIX, isPlaceholder, MASKED_PREFIX, STALE_PREFIX } from '../conversation/resultPlaceholders';

/** A block's meta for a new version of the block: same id, pin and flags, no memoised count. */
export function freshMeta(meta: BlockMeta): BlockMeta {
  const { tokenCount: _memo, ...rest } = meta;
  return rest;
}

/**
 * Gives the tool_result blocks named in `edits` (by `meta.id`) their new content and returns
 * the new state with ONE record (see {@link commitBlockEdits}). Each edited block keeps its
 * meta (same id) without `tokenCount`, its tool id and `isError`. No edits (or only no-op
 * ones): the input state, no record.
 */
export function commitResultEdits(
  state: ConversationState,
  ctx: LayerContext,
  edits: ReadonlyMap<string, ToolResultContent>,
  how: { readonly layer: CompactionLayer; readonly trigger: CompactionTrigger },
): LayerResult {
  const changed = new Map<string, Block>();
  for (const m of state.messages)
    for (const b of m.blocks) {
      const content = edits.get(b.meta.id);
      if (b.type === 'tool_result' && content !== undefined && content !== b.content)
        changed.set(b.meta.id, { ...b, content, meta: freshMeta(b.meta) });
    }
  return commitBlockEdits(state, ctx, changed, how);
}

/**
 * Puts the blocks of `edits` (new versions, keyed by the `meta.id` of the block they replace;
 * `null` leaves the block out) in place of theirs and returns the new state with ONE record: `originals` the contiguous run
 * from the first to the last changed message, verbatim (same objects); `replacement` the new
 * versions (same ids, new message objects for changed ones, unchanged messages in between as
 * the same objects); one region per changed message; tokens over the whole conversation
 * before and after. No edits: the input state, no record.
 */
export function commitBlockEdits(
  state: ConversationState,
  ctx: LayerContext,
  edits: ReadonlyMap<string, Block | null>,
  how: { readonly layer: CompactionLayer; readonly trigger: CompactionTrigger },
): LayerResult {
  let first = -1;
  let last = -1;
  const messages = state.messages.map((m, i) => {
    if (!m.blocks.some((b) => edits.has(b.meta.id))) return m;
    if (first < 0) first = i;
    last = i;
    return {
      ...m,
      blocks: m.blocks.flatMap((b) => {
        const e = edits.get(b.meta.id);
        return e === undefined ? [b] : e === null ? [] : [e];
      }),
    };
  });
  if (first < 0) return { state };
  const originals = state.messages.slice(first, last + 1);
  const replacement = messages.slice(first, last + 1);
  const regions: CompactionRegion[] = originals
    .filter((m, i) => replacement[i] !== m)
    .map((m) => ({ firstTurn: m.turn, lastTurn: m.turn, messageIds: [m.id], tokens: ctx.tokensOf(m) }));
  const sum = (ms: readonly Message[]) => ms.reduce((n, m) => n + ctx.tokensOf(m), 0);
  const record: CompactionRecord = {
    id: ctx.ids.next('cmp'),
    at: ctx.clock.now(),
    trigger: ctx.trigger ?? how.trigger,
    layer: how.layer,
    strategy: 'guards',
    regions,
    originals,
    replacement,
    tokensBefore: sum(state.messages),
    tokensAfter: sum(messages),
    costUsd: 0,
    durationMs: 0,
    fallbacks: [],
  };
  return { state: { ...state, messages }, record };
}
