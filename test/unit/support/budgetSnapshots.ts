/** A budget snapshot built the way the host builds it, for a plan the test gives (the rest: defaults). */
import type { CompactionPlan } from '../../../src/core/compaction/plan';
import type { Message } from '../../../src/core/conversation/conversationModel';
import { EMPTY_REQUEST_HISTORY } from '../../../src/core/session/requestHistory';
import { chars4Tokenizer } from '../../../src/core/tokens/chars4';
import { TokenEstimator } from '../../../src/core/tokens/estimator';
import { BudgetHistory, buildBudgetSnapshot } from '../../../src/host/budget/budgetData';
import { emptyState } from './builders';

/** The plan fields a snapshot reads, with neutral values; a test overrides what it is about. */
const PLAN_DEFAULTS: Partial<CompactionPlan> = {
  protectedFrom: 0,
  protectedTokens: 0,
  keepRecentTokens: 12_000,
  expectedAfter: 0,
  paybackRequests: Infinity,
};

/** The snapshot of `messages` with a request history of `turnPrompts` and the next compaction `plan`. */
export function snapshotWithPlan(
  messages: readonly Message[],
  plan: Partial<CompactionPlan>,
  turnPrompts: readonly number[],
): ReturnType<typeof buildBudgetSnapshot> {
  return buildBudgetSnapshot({
    session: 's',
    state: emptyState({ messages: [...messages] }),
    tokenizer: chars4Tokenizer,
    estimator: new TokenEstimator(chars4Tokenizer),
    history: new BudgetHistory({ ...EMPTY_REQUEST_HISTORY, turnPrompts: [...turnPrompts] }),
    compactions: [],
    busy: false,
    plan: { ...PLAN_DEFAULTS, ...plan } as CompactionPlan,
  });
}

/** A neutral pressure for a hand-built snapshot: a 1-token usable window, nothing used. */
export const NEUTRAL_PRESSURE = {
  level: 'ok',
  utilisation: 0,
  effectiveWindow: 1,
  softAt: 1,
  hardAt: 1,
  percentFull: 0,
  fullness: '0 % of the 1 usable window',
  softMark: '70 % (1)',
  hardMark: '90 % (1)',
} as const;
