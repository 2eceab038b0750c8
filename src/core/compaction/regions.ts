/**
 * Which parts of the history a summary may replace. A region is a run of whole turns (a turn
 * starts at a user message carrying the user's own words) that holds nothing pinned, no
 * earlier summary or compaction marker, and nothing of the newest turns or tokens. Since
 * regions are whole turns, a tool_use and its tool_result always fall in the same region.
 */
import type { ConversationState, Message } from '../model';
import { summaryTargetTokens } from './summaryPrompt';
import type { CompactionRegion } from './types';

/** What markRegions must keep out of every region. */
export interface RegionOptions {
  /** The newest turns are never touched (at least 1: the turn in progress). */
  readonly keepRecentTurns: number;
  /** At least this many tokens of the newest messages are never touched. */
  readonly keepRecentTokens: number;
  /** Calibrated tokens of a message. */
  readonly tokensOf: (m: Message) => number;
}

/** A region that could be summarised, with the tokens a summary would keep verbatim. */
export interface CandidateRegion extends CompactionRegion {
  /** Tokens of the user's own words in the region (kept verbatim next to its summary). */
  readonly userTokens: number;
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

/** Whether a message may never be part of a region: pinned, a summary, or a compaction's marker. */
export function isUntouchable(m: Message): boolean {
  return m.blocks.some((b) => b.meta.pinned || b.type === 'summary' || b.meta.source === 'compactor');
}

interface Turn {
  readonly start: number;
  /** Exclusive. */
  readonly end: number;
  /** False for messages before the first user words (not a whole turn). */
  readonly whole: boolean;
}

function groupTurns(messages: readonly Message[]): Turn[] {
  const turns: Turn[] = [];
  let start = 0;
  for (let i = 1; i <= messages.length; i++) {
    const m = messages[i];
    if (i === messages.length || (m && startsTurn(m))) {
      if (i > start) turns.push({ start, end: i, whole: startsTurn(messages[start] as Message) });
      start = i;
    }
  }
  return turns;
}

/** Index of the first protected message: the newest turns and the newest tokens. */
function protectedFrom(messages: readonly Message[], turns: readonly Turn[], opts: RegionOptions): number {
  const keepTurns = Math.max(1, Math.floor(opts.keepRecentTurns));
  let from = turns[Math.max(0, turns.length - keepTurns)]?.start ?? 0;
  let tokens = 0;
  for (let i = messages.length - 1; i >= 0 && tokens < opts.keepRecentTokens; i--) {
    from = Math.min(from, i);
    tokens += opts.tokensOf(messages[i] as Message);
  }
  return from;
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
 * All candidate regions of the conversation, oldest first. A turn that opens with tool
 * results stays glued to the turn before it (the results answer that turn's tool calls),
 * so no region starts or ends between them.
 */
export function markRegions(state: Pick<ConversationState, 'messages'>, opts: RegionOptions): CandidateRegion[] {
  const messages = state.messages;
  const turns = groupTurns(messages);
  const limit = protectedFrom(messages, turns, opts);
  const gluedToPrevious = (t: Turn) => messages[t.start]?.blocks.some((b) => b.type === 'tool_result') ?? false;
  const eligible = (t: Turn) => t.whole && t.end <= limit && messages[t.end - 1]?.role === 'assistant' && !messages.slice(t.start, t.end).some(isUntouchable);
  const runs: number[][] = [];
  let run: number[] = [];
  turns.forEach((t, i) => {
    if (eligible(t)) {
      run.push(i);
    } else if (run.length > 0) {
      runs.push(run);
      run = [];
    }
  });
  if (run.length > 0) runs.push(run);
  const regions: CandidateRegion[] = [];
  for (const r of runs) {
    while (r.length > 0 && gluedToPrevious(turns[r[0] as number] as Turn)) r.shift();
    while (r.length > 0) {
      const next = turns[(r.at(-1) as number) + 1];
      if (next && gluedToPrevious(next)) r.pop();
      else break;
    }
    if (r.length === 0) continue;
    const slice = messages.slice((turns[r[0] as number] as Turn).start, (turns[r.at(-1) as number] as Turn).end);
    regions.push({
      firstTurn: (slice[0] as Message).turn,
      lastTurn: (slice.at(-1) as Message).turn,
      messageIds: slice.map((m) => m.id),
      tokens: slice.reduce((n, m) => n + opts.tokensOf(m), 0),
      userTokens: userWordsTokens(slice, opts.tokensOf),
    });
  }
  return regions;
}

/** Expected tokens of a region's replacement: a summary of ~1/5 of it, the user's words, overhead. */
export function expectedReplacementTokens(region: CompactionRegion & { readonly userTokens?: number }, outputLimit = DEFAULT_SUMMARY_OUTPUT_LIMIT): number {
  return summaryTargetTokens(region.tokens, outputLimit) + (region.userTokens ?? 0) + REPLACEMENT_OVERHEAD_TOKENS;
}

/** Tokens a summary of the region is expected to free (may be ≤ 0 for small regions). */
export function expectedSaving(region: CompactionRegion & { readonly userTokens?: number }, outputLimit = DEFAULT_SUMMARY_OUTPUT_LIMIT): number {
  return region.tokens - expectedReplacementTokens(region, outputLimit);
}

/**
 * Picks regions biggest first until their expected saving reaches `tokensToFree`
 * (`Infinity`: every region worth summarising); regions that would not shrink are never
 * picked. Returns them in conversation order.
 */
export function pickRegions<R extends CompactionRegion & { readonly userTokens?: number }>(regions: readonly R[], tokensToFree: number): R[] {
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
