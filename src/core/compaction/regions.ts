/**
 * Which parts of the history a summary may replace. A region is a contiguous run of messages
 * that holds nothing pinned and nothing of the newest tokens; in the `stacked` summary policy
 * no earlier summary or compaction marker either (in `rolling`, the head summary joins the
 * next region and is folded into the new summary). A region may start or end inside a turn
 * (the turn in progress or a long older one): regions are cut only before an assistant
 * message or before a user message that carries no tool results, so a tool_use and its
 * tool_result always fall on the same side of every cut.
 */
import type { ConversationState, Message } from '../conversation/conversationModel';
import { summaryTargetTokens } from './summaryPrompt';
import type { CompactionRegion } from './types';

/** How summaries accumulate: `rolling` folds the previous summary into the next; `stacked` never re-summarises. */
export type SummaryPolicy = 'rolling' | 'stacked';

/** What markRegions must keep out of every region. */
export interface RegionOptions {
  /**
   * The newest whole turns that are never touched (0: only the token budget decides, so the
   * turn in progress can be compacted too — what the hard threshold uses).
   */
  readonly keepRecentTurns: number;
  /** At least this many tokens of the newest messages are never touched (and always the last tool round). */
  readonly keepRecentTokens: number;
  /** Calibrated tokens of a message. */
  readonly tokensOf: (m: Message) => number;
  /** Default `stacked`. */
  readonly summaryPolicy?: SummaryPolicy;
}

/** A region that could be summarised, with the tokens a summary would keep verbatim. */
export interface CandidateRegion extends CompactionRegion {
  /** Tokens of the user's own words in the region (kept verbatim next to its summary). */
  readonly userTokens: number;
  /** Index of the region's first message in the state it was marked on. */
  readonly startIndex: number;
}

/** Tokens a replacement costs besides the summary and the user's words (acknowledgement, framing). */
export const REPLACEMENT_OVERHEAD_TOKENS = 40;

/** Default output limit assumed when estimating summary sizes (Claude Haiku 4.5's reserve). */
export const DEFAULT_SUMMARY_OUTPUT_LIMIT = 32_000;

/** Whether a message starts a turn: a user message carrying the user's own words. */
export function startsTurn(m: Message): boolean {
  return m.role === 'user' && m.blocks.some(isUserWords);
}

/** Whether a block holds the user's own words. */
export function isUserWords(b: Message['blocks'][number]): boolean {
  return b.type === 'text' && b.meta.source === 'user';
}

/** Index of the last message holding the user's words (the request being answered); -1 when none does. */
export function newestWordsIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if ((messages[i] as Message).blocks.some(isUserWords)) return i;
  return -1;
}

/** Whether a message holds a summary or a compaction's marker/acknowledgement. */
export function isCompactionProduct(m: Message): boolean {
  return m.blocks.some((b) => b.type === 'summary' || b.meta.source === 'compactor');
}

/** Whether a message may never be part of a (stacked) region: pinned, a summary, or a compaction's marker. */
export function isUntouchable(m: Message): boolean {
  return m.blocks.some((b) => b.meta.pinned) || isCompactionProduct(m);
}

/** Whether a user message answers tool calls (so it cannot be separated from the message before it). */
function answersTools(m: Message): boolean {
  return m.blocks.some((b) => b.type === 'tool_result');
}

/** Index of the turn in progress: its first message (the last user message with the user's words), 0 when none. */
export function lastTurnStart(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (startsTurn(messages[i] as Message)) return i;
  return 0;
}

/**
 * Whether a cut may go right before `messages[i]` (0 and `length` always): before an assistant
 * message or a user message that answers no tool call, in any turn — so a tool_use and its
 * tool_result never fall on different sides, and a long turn can be cut between its tool rounds
 * whether it is the turn in progress or an older one (a protected tail that reaches into a long
 * older turn must not protect all of it). Never between two messages of one compaction's
 * replacement (a note and its summary, a summary and its acknowledgement).
 */
export function isCutPoint(messages: readonly Message[], i: number): boolean {
  if (i <= 0 || i >= messages.length) return true;
  const m = messages[i] as Message;
  if (isCompactionProduct(m) && isCompactionProduct(messages[i - 1] as Message)) return false;
  return m.role === 'assistant' || !answersTools(m);
}

/**
 * Index of the first protected message: at least `keepRecentTokens` of the newest tokens,
 * the newest `keepRecentTurns` whole turns, and always the last tool round (the last
 * assistant message and what follows it), moved to a cut point. O(n).
 *
 * One huge message (a 64k-token thinking block, a giant tool call) is not protected for the
 * budget's sake when it would take the tail past twice its budget: protected whole, it would
 * stay for as long as the turn lasts, however full the context. So the budget stops before
 * it, and the cut moves back to a cut point (protecting a little more than the budget) unless
 * that too would take the tail past twice its budget (the huge round's own results reached):
 * then it moves forward to the next cut point, never past the last tool round or the kept turns.
 */
export function protectedFrom(
  messages: readonly Message[],
  opts: Pick<RegionOptions, 'keepRecentTurns' | 'keepRecentTokens' | 'tokensOf'>,
): number {
  const n = messages.length;
  if (n === 0) return 0;
  // The last tool round: a request in progress (last message from the user) keeps the
  // assistant message before it; a finished turn (last message from the assistant) keeps that turn.
  let mustFrom = n - 1;
  if ((messages[n - 1] as Message).role === 'assistant') mustFrom = lastTurnStart(messages);
  else if (n >= 2) mustFrom = n - 2;
  let from = mustFrom;
  let tokens = 0;
  for (let i = n - 1; i >= 0 && tokens < opts.keepRecentTokens; i--) {
    const t = opts.tokensOf(messages[i] as Message);
    // A message that would take the tail past twice its budget is not taken for the budget's sake.
    if (i < from && tokens + t > 2 * opts.keepRecentTokens) break;
    from = Math.min(from, i);
    tokens += t;
  }
  const keepTurns = Math.max(0, Math.floor(opts.keepRecentTurns));
  if (keepTurns > 0) {
    let seen = 0;
    for (let i = n - 1; i >= 0; i--) {
      if (startsTurn(messages[i] as Message) && ++seen === keepTurns) {
        mustFrom = Math.min(mustFrom, i);
        break;
      }
    }
    if (seen < keepTurns) mustFrom = 0;
    from = Math.min(from, mustFrom);
  }
  let tail = 0;
  for (let i = from; i < n; i++) tail += opts.tokensOf(messages[i] as Message);
  let back = from;
  while (back > 0 && !isCutPoint(messages, back)) tail += opts.tokensOf(messages[--back] as Message);
  if (back === from || tail <= 2 * opts.keepRecentTokens) return back;
  let forward = from;
  while (forward < mustFrom && !isCutPoint(messages, forward)) forward++;
  return isCutPoint(messages, forward) ? forward : back;
}

/** Tokens of the user's own words in `messages`. */
export function userWordsTokens(messages: readonly Message[], tokensOf: (m: Message) => number): number {
  let n = 0;
  for (const m of messages) {
    const blocks = m.blocks.filter(isUserWords);
    if (blocks.length > 0) n += tokensOf({ id: `${m.id}#user-words`, role: 'user', blocks, turn: m.turn });
  }
  return n;
}

/**
 * All candidate regions of the conversation, oldest first: maximal runs of eligible messages
 * before the protected tail, trimmed so both ends are cut points. O(n).
 */
export function markRegions(state: Pick<ConversationState, 'messages'>, opts: RegionOptions): CandidateRegion[] {
  const messages = state.messages;
  const limit = protectedFrom(messages, opts);
  const rolling = opts.summaryPolicy === 'rolling';
  const eligible = (m: Message) => !m.blocks.some((b) => b.meta.pinned) && (rolling || !isCompactionProduct(m));
  const regions: CandidateRegion[] = [];
  let i = 0;
  while (i < limit) {
    if (!eligible(messages[i] as Message)) {
      i++;
      continue;
    }
    let end = i;
    while (end < limit && eligible(messages[end] as Message)) end++;
    let a = i;
    let b = end;
    while (a < b && !isCutPoint(messages, a)) a++;
    while (b > a && !isCutPoint(messages, b)) b--;
    if (b - a >= 2) {
      const slice = messages.slice(a, b);
      let tokens = 0;
      for (const m of slice) tokens += opts.tokensOf(m);
      regions.push({
        firstTurn: (slice[0] as Message).turn,
        lastTurn: (slice.at(-1) as Message).turn,
        messageIds: slice.map((m) => m.id),
        tokens,
        userTokens: userWordsTokens(slice, opts.tokensOf),
        startIndex: a,
      });
    }
    i = end;
  }
  return regions;
}

/** Expected tokens of a region's replacement: a summary of ~1/5 of it (summaryTargetTokens), the user's words, overhead. */
export function expectedReplacementTokens(
  region: CompactionRegion & { readonly userTokens?: number },
  outputLimit = DEFAULT_SUMMARY_OUTPUT_LIMIT,
): number {
  return summaryTargetTokens(region.tokens, outputLimit) + (region.userTokens ?? 0) + REPLACEMENT_OVERHEAD_TOKENS;
}

/** Tokens a summary of the region is expected to free (may be ≤ 0 for small regions). */
export function expectedSaving(
  region: CompactionRegion & { readonly userTokens?: number },
  outputLimit = DEFAULT_SUMMARY_OUTPUT_LIMIT,
): number {
  return region.tokens - expectedReplacementTokens(region, outputLimit);
}

/**
 * Picks regions biggest first until their expected saving reaches `tokensToFree`
 * (`Infinity`: every region worth summarising); regions that would not shrink are never
 * picked. Returns them in conversation order.
 */
export function pickRegions<R extends CompactionRegion & { readonly userTokens?: number }>(
  regions: readonly R[],
  tokensToFree: number,
): R[] {
  if (!(tokensToFree > 0)) return [];
  const bySize = regions.map((r, i) => ({ r, i })).sort((a, b) => b.r.tokens - a.r.tokens || a.i - b.i);
  const picked: Array<{ r: R; i: number }> = [];
  let freed = 0;
  for (const x of bySize) {
    if (freed >= tokensToFree) break;
    const saving = expectedSaving(x.r);
    if (saving <= 0) continue;
    picked.push(x);
    freed += saving;
  }
  return picked.sort((a, b) => a.i - b.i).map((x) => x.r);
}
