import type { AgentDeps } from '../../../src/core/agent/sessionCore';
import { Compactor } from '../../../src/core/compaction/compactor';
import { DEFAULT_COMPACTION_SETTINGS } from '../../../src/core/compaction/policy';
import type { LlmClient } from '../../../src/core/llm/llmClient';

/**
 * The compactor of an `AgentSession` under test: `summariser` writes the summaries, on
 * `base`'s clock, ids and estimator; a message counts its blocks' JSON / 4; automatic
 * compaction at the soft threshold is off (only the hard threshold, Compact Now and overflow
 * recovery compact); a summariser never times out.
 */
export function testCompactor(base: Pick<AgentDeps, 'clock' | 'ids' | 'estimator'>, summariser: LlmClient): Compactor {
  return new Compactor({
    summariser,
    clock: base.clock,
    ids: base.ids,
    tokensOf: (m) => JSON.stringify(m.blocks).length / 4,
    measure: (s) => base.estimator.estimate(s).tokens,
    settings: () => ({ ...DEFAULT_COMPACTION_SETTINGS, softAction: 'off' }),
    timeout: () => new Promise(() => undefined),
  });
}
