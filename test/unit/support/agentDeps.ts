import type { LlmClient } from '../../../src/core/llm/llmClient';
import type { ToolRunner } from '../../../src/core/tools/toolRunner';
import type { AgentDeps } from '../../../src/core/agent/sessionCore';
import { counterIds } from '../../../src/core/platform/platformPorts';
import { TokenEstimator } from '../../../src/core/tokens/estimator';
import { fakeClock } from './builders';
import { nullSink } from './sessionSink';
import { countingTokenizer } from './tokenFakes';

/** An LlmClient for sessions that must not talk to the model: every request fails (not retryable). */
export const refusingLlm: LlmClient = {
  stream: async () => ({
    ok: false,
    error: { kind: 'unknown', message: 'This test has no model (agentDeps default).', retryable: false },
  }),
};

/** A ToolRunner for sessions that run no tools: every call comes back as an error result. */
export const refusingTools: ToolRunner = {
  run: async (call) => ({ content: `No tools in this test (agentDeps default): ${call.name}`, isError: true }),
};

/**
 * Complete `AgentDeps` for an `AgentSession` under test, with fakes for everything: a model
 * that refuses (`refusingLlm`), tools that refuse (`refusingTools`), a sink keeping nothing
 * (`nullSink()`), a fresh `fakeClock()`, `counterIds('a')`, a `countingTokenizer()` and a fresh
 * `TokenEstimator` over that tokenizer (over `overrides.tokenizer` when one is given), pastes
 * in `/session`, a `writeFile` that does nothing, and 5 tool rounds. No compactor, context
 * after tools, spills or count_tokens unless given. `overrides` replace any of these; each
 * call builds fresh fakes, so sessions never share state. Overrides are copied as property
 * descriptors, so a getter (e.g. a `maxToolRounds` read live from settings) stays a getter.
 */
export function agentDeps(overrides: Partial<AgentDeps> = {}): AgentDeps {
  const tokenizer = overrides.tokenizer ?? countingTokenizer();
  const defaults: AgentDeps = {
    llm: refusingLlm,
    tools: refusingTools,
    sink: nullSink(),
    clock: fakeClock(),
    ids: counterIds('a'),
    tokenizer,
    estimator: new TokenEstimator(tokenizer),
    pasteDirectory: '/session',
    writeFile: async () => undefined,
    maxToolRounds: 5,
  };
  return Object.defineProperties(defaults, Object.getOwnPropertyDescriptors(overrides));
}
