/**
 * The compactor of a session runtime (a chat session's or a subagent's): its tokens counted
 * with the session's calibrated estimator, summaries through the session's client, a
 * main-model summary built from the session's own request, aborted by the abortable wait; what
 * a summary stopped before it was made spent goes to the session's bill.
 */
import type { LlmClient } from '../../core/llm/llmClient';
import type { AgentSession } from '../../core/agent/agentSession';
import { Compactor } from '../../core/compaction/compactor';
import type { CompactionSettings } from '../../core/compaction/policy';
import type { ReadFresh } from '../../core/compaction/reattach';
import type { Clock, IdSource, Tokenizer } from '../../core/platform/platformPorts';
import { calibratedMessageTokens } from '../../core/tokens/calibratedTokens';
import type { TokenEstimator } from '../../core/tokens/estimator';
import { abortableSleep } from '../abortableSleep';

/** What a session's compactor is built from; `agent` is read late (the agent is built after it). */
export interface SessionCompactorDeps {
  readonly agent: () => AgentSession | undefined;
  readonly llm: LlmClient;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly tokenizer: Tokenizer;
  readonly estimator: TokenEstimator;
  readonly settings: () => CompactionSettings;
  readonly readFresh?: ReadFresh;
}

/** The compactor of one session runtime (see the module comment). */
export function sessionCompactor(d: SessionCompactorDeps): Compactor {
  return new Compactor({
    mainRequest: (s) => d.agent()?.mainRequest(s),
    summariser: d.llm,
    clock: d.clock,
    ids: d.ids,
    tokensOf: (m) => calibratedMessageTokens(m, d.tokenizer, d.estimator.calibration),
    measure: (st) => d.estimator.estimate(st).tokens,
    settings: d.settings,
    ...(d.readFresh ? { readFresh: d.readFresh } : {}),
    timeout: abortableSleep,
    // A summary stopped before it was made is still billed (it may settle after the run ended).
    onStoppedSpend: (spend) => void d.agent()?.stoppedSummary(spend),
  });
}
