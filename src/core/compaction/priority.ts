/**
 * Message priority and whole turns, for the removal strategies (middle, oldest, hybrid).
 *
 * Priority (per message): a message holding a system block is `critical`; tool messages
 * (tool results), function-call messages (tool calls), the first and last message of the
 * conversation and long messages (> 800 tokens) are `high`; short messages (≤ 50 tokens)
 * without a question are `low`; the rest `normal`. A turn's priority is its highest message
 * priority.
 *
 * A turn starts at a user message carrying the user's words (a text block from `user`) and
 * runs to the next such message. A user message that also carries tool results (the user
 * typed while tools were answering) does not start a turn: it stays with the tool calls it
 * answers, so removing whole turns never splits a tool_use from its tool_result.
 */
import type { Message } from '../conversation/conversationModel';

/** How much a message (or turn) matters when history must shrink. */
export type Priority = 'critical' | 'high' | 'normal' | 'low';

/** Priorities in removal order: lower rank goes first. */
export const PRIORITY_RANK: Readonly<Record<Priority, number>> = { low: 0, normal: 1, high: 2, critical: 3 };

/** A message above this many tokens is long, hence `high`. */
export const LONG_MESSAGE_TOKENS = 800;

/** A message of at most this many tokens is short (`low` unless it asks a question). */
export const SHORT_MESSAGE_TOKENS = 50;

/** What messagePriority needs to know besides the message itself. */
export interface MessageFacts {
  readonly isFirst: boolean;
  readonly isLast: boolean;
  readonly tokens: number;
}

/** The priority of one message (rules in the module comment). */
export function messagePriority(m: Message, facts: MessageFacts): Priority {
  if (m.blocks.some((b) => b.meta.source === 'system')) return 'critical';
  if (facts.isFirst || facts.isLast || facts.tokens > LONG_MESSAGE_TOKENS) return 'high';
  if (m.blocks.some((b) => b.type === 'tool_use' || b.type === 'tool_result')) return 'high';
  if (facts.tokens <= SHORT_MESSAGE_TOKENS && !asksQuestion(m)) return 'low';
  return 'normal';
}

function asksQuestion(m: Message): boolean {
  return m.blocks.some((b) => (b.type === 'text' || b.type === 'summary') && b.text.includes('?'));
}

/** One whole turn: a contiguous run of messages, with what the strategies need to know. */
export interface Turn {
  /** Position among the turns, from 0. */
  readonly ordinal: number;
  /** Index of its first message in the conversation. */
  readonly start: number;
  /** Index just past its last message. */
  readonly end: number;
  readonly messages: readonly Message[];
  /** Sum of `tokensOf` over its messages. */
  readonly tokens: number;
  /** Its highest message priority. */
  readonly priority: Priority;
  /** Holds a pinned block. */
  readonly pinned: boolean;
  /** Holds a summary block. */
  readonly summary: boolean;
  /** Holds a compactor's marker (non-compactable compactor text): removing it again frees nothing. */
  readonly marker: boolean;
}

/** Whether a message starts a turn: the user's words and no tool results. */
export function startsTurn(m: Message): boolean {
  return (
    m.role === 'user' &&
    m.blocks.some((b) => b.type === 'text' && b.meta.source === 'user') &&
    !m.blocks.some((b) => b.type === 'tool_result')
  );
}

/** Splits the conversation into whole turns (the first turn starts at message 0 whatever it holds). */
export function turnsOf(messages: readonly Message[], tokensOf: (m: Message) => number): Turn[] {
  const turns: Turn[] = [];
  let start = 0;
  for (let i = 1; i <= messages.length; i++) {
    const m = messages[i];
    if (i < messages.length && m && !startsTurn(m)) continue;
    if (start < i) turns.push(makeTurn(messages, start, i, turns.length, tokensOf));
    start = i;
  }
  return turns;
}

function makeTurn(
  all: readonly Message[],
  start: number,
  end: number,
  ordinal: number,
  tokensOf: (m: Message) => number,
): Turn {
  const messages = all.slice(start, end);
  let tokens = 0;
  let rank = 0;
  let priority: Priority = 'low';
  messages.forEach((m, k) => {
    const t = tokensOf(m);
    tokens += t;
    const p = messagePriority(m, { isFirst: start + k === 0, isLast: start + k === all.length - 1, tokens: t });
    if (PRIORITY_RANK[p] >= rank) [rank, priority] = [PRIORITY_RANK[p], p];
  });
  const blocks = messages.flatMap((m) => m.blocks);
  return {
    ordinal,
    start,
    end,
    messages,
    tokens,
    priority,
    pinned: blocks.some((b) => b.meta.pinned),
    summary: blocks.some((b) => b.type === 'summary'),
    marker: blocks.some((b) => b.type === 'text' && b.meta.source === 'compactor' && !b.meta.compactable),
  };
}

/** Why a turn may not be removed. */
export type Protection =
  'critical' | 'pinned' | 'summary' | 'marker' | 'keep-first' | 'keep-last' | 'recent' | 'newest';

/** What protects turns besides their own content. */
export interface KeepRules {
  /** Keep the turns holding the first N messages. */
  readonly keepFirst: number;
  /** Keep the turns holding the last M messages. */
  readonly keepLast: number;
  /** Keep the newest N turns. */
  readonly keepRecentTurns: number;
  /** Keep the newest turns until they hold this many tokens. */
  readonly keepRecentTokens: number;
}

/**
 * Why each turn is protected (undefined: removable). The newest turn is always protected:
 * the live turn may await a tool result or an answer, and the request must end on it.
 */
export function protectionOf(turns: readonly Turn[], rules: KeepRules): Array<Protection | undefined> {
  const count = turns.at(-1)?.end ?? 0;
  let recentTokens = 0;
  const out: Array<Protection | undefined> = new Array<Protection | undefined>(turns.length).fill(undefined);
  for (let k = turns.length - 1; k >= 0; k--) {
    const t = turns[k];
    if (!t) continue;
    const fromEnd = turns.length - 1 - k;
    const recent = fromEnd < rules.keepRecentTurns || recentTokens < rules.keepRecentTokens;
    recentTokens += t.tokens;
    out[k] =
      fromEnd === 0
        ? 'newest'
        : t.priority === 'critical'
          ? 'critical'
          : t.pinned
            ? 'pinned'
            : t.summary
              ? 'summary'
              : t.marker
                ? 'marker'
                : t.start < rules.keepFirst
                  ? 'keep-first'
                  : t.end > count - rules.keepLast
                    ? 'keep-last'
                    : recent
                      ? 'recent'
                      : undefined;
  }
  return out;
}
