/**
 * Hybrid removal: look at the conversation's shape, pick middle or oldest removal, and when
 * the shape says nothing clear, run both and keep the better score.
 *
 * Rules (simple on purpose, thresholds exported below):
 * - start-heavy: the user's words in the first message hold ≥ TASK_STATEMENT_TOKENS — a
 *   long task statement whose turn (and the first answer) middle removal keeps → middle;
 * - repetitive: ≥ REPETITIVE_MIN_ROUNDS assistant messages call tools and ≥
 *   REPETITIVE_MIN_SHARE of them call the same set of tools (a read/edit/test loop) → old
 *   rounds are stale, oldest removal;
 * - unsure: both rules hold, or neither → run both, keep the higher score
 *   0.6 × token reduction + 0.4 × message preservation (ties go to middle removal).
 * Both scores are always computed (the runs are pure and cheap) and reported.
 */
import type { ConversationState, Message } from '../conversation/conversationModel';
import { counterIds } from '../platform/platformPorts';
import { middleRemoval } from './middleRemoval';
import { oldestRemoval } from './oldestRemoval';
import type { RemovalOptions, RemovalResult } from './removeTurns';

/** The user's words in the first message from which the conversation is start-heavy. */
export const TASK_STATEMENT_TOKENS = 200;
/** Tool-calling assistant messages from which a conversation may be a repetitive loop… */
export const REPETITIVE_MIN_ROUNDS = 6;
/** …and the share of them that must call the same set of tools. */
export const REPETITIVE_MIN_SHARE = 0.5;

/** The two strategies hybrid chooses between. */
export type HybridChoice = 'middle-removal' | 'oldest-removal';

/** What the analysis measured, and what it suggests (undefined: unsure). */
export interface HybridAnalysis {
  /** Tokens of the user's words in the first message. */
  readonly taskStatementTokens: number;
  /** Assistant messages that call tools. */
  readonly toolRounds: number;
  /** Share of those calling the most common set of tools (0 when there are none). */
  readonly dominantToolShare: number;
  readonly suggestion: HybridChoice | undefined;
  /** One sentence for the Compactions view. */
  readonly reason: string;
}

/** Hybrid's result: the chosen strategy's result, with the analysis and both scores. */
export interface HybridResult extends RemovalResult {
  readonly chosen: HybridChoice;
  readonly scores: Readonly<Record<HybridChoice, number>>;
  readonly analysis: HybridAnalysis;
  /** True when the analysis was unsure and the score decided. */
  readonly byScore: boolean;
}

/** Weights of the score. */
export const SCORE_WEIGHTS = { reduction: 0.6, preservation: 0.4 } as const;

/**
 * Score of a removal: 0.6 × token reduction (tokens freed / tokensToFree, capped at 1; 1 when
 * nothing had to be freed) + 0.4 × message preservation (original messages kept / messages).
 */
export function removalScore(
  result: Pick<RemovalResult, 'records' | 'tokensFreed'>,
  tokensToFree: number,
  messageCount: number,
): number {
  const reduction = tokensToFree <= 0 ? 1 : Math.min(1, Math.max(0, result.tokensFreed) / tokensToFree);
  const removed = result.records.reduce((n, r) => n + r.originals.length, 0);
  const preservation = messageCount === 0 ? 1 : (messageCount - removed) / messageCount;
  return SCORE_WEIGHTS.reduction * reduction + SCORE_WEIGHTS.preservation * preservation;
}

/** Measures the conversation and applies the rules of the module comment. */
export function analyseConversation(messages: readonly Message[], tokensOf: (m: Message) => number): HybridAnalysis {
  const first = messages[0];
  const words = first?.role === 'user' ? first.blocks.filter((b) => b.type === 'text' && b.meta.source === 'user') : [];
  const taskStatementTokens = first && words.length > 0 ? tokensOf({ ...first, blocks: words }) : 0;
  const signatures = new Map<string, number>();
  for (const m of messages) {
    const names = m.role === 'assistant' ? m.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.name] : [])) : [];
    if (names.length === 0) continue;
    const key = [...new Set(names)].sort().join(',');
    signatures.set(key, (signatures.get(key) ?? 0) + 1);
  }
  const toolRounds = [...signatures.values()].reduce((a, b) => a + b, 0);
  const dominantToolShare = toolRounds === 0 ? 0 : Math.max(...signatures.values()) / toolRounds;
  const startHeavy = taskStatementTokens >= TASK_STATEMENT_TOKENS;
  const repetitive = toolRounds >= REPETITIVE_MIN_ROUNDS && dominantToolShare >= REPETITIVE_MIN_SHARE;
  const shape = { taskStatementTokens, toolRounds, dominantToolShare };
  if (startHeavy && !repetitive)
    return {
      ...shape,
      suggestion: 'middle-removal',
      reason: `The first message states the task at length (${taskStatementTokens} tokens): middle removal keeps it.`,
    };
  if (repetitive && !startHeavy)
    return {
      ...shape,
      suggestion: 'oldest-removal',
      reason: `${toolRounds} rounds of similar tool calls: the oldest are stale, oldest removal drops them.`,
    };
  const why = startHeavy
    ? 'a long task statement and a repetitive tool loop'
    : 'neither a long task statement nor a repetitive tool loop';
  return {
    ...shape,
    suggestion: undefined,
    reason: `The conversation shows ${why}: both strategies were run and the better score kept.`,
  };
}

/** Picks middle or oldest removal by the rules above, or by score when unsure. Pure. */
export function hybrid(state: ConversationState, opts: RemovalOptions): HybridResult {
  const analysis = analyseConversation(state.messages, opts.tokensOf);
  const run = (choice: HybridChoice, o: RemovalOptions): RemovalResult => {
    const withStrategy = { ...o, strategy: o.strategy ?? 'hybrid' };
    if (choice === 'middle-removal')
      return middleRemoval(state, withStrategy, { layer: 'hybrid', label: 'hybrid: middle removal' });
    return oldestRemoval(state, withStrategy, { layer: 'hybrid', label: 'hybrid: oldest removal' });
  };
  // Drafts use their own ids, so the session's ids are spent only by the run that is kept.
  const draftIds = counterIds('hybrid-draft');
  const count = state.messages.length;
  const scores: Record<HybridChoice, number> = {
    'middle-removal': removalScore(run('middle-removal', { ...opts, ids: draftIds }), opts.tokensToFree, count),
    'oldest-removal': removalScore(run('oldest-removal', { ...opts, ids: draftIds }), opts.tokensToFree, count),
  };
  const byScore = analysis.suggestion === undefined;
  const chosen =
    analysis.suggestion ?? (scores['middle-removal'] >= scores['oldest-removal'] ? 'middle-removal' : 'oldest-removal');
  return { ...run(chosen, opts), chosen, scores, analysis, byScore };
}
