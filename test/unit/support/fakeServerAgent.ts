/** Shared pieces of agent tests against the fake Anthropic server over HTTP (the official SDK). */
import type { AgentDeps } from '../../../src/core/agent/sessionCore';
import { Compactor } from '../../../src/core/compaction/compactor';
import type { CompactionSettings } from '../../../src/core/compaction/policy';
import { messageRawTokens } from '../../../src/core/tokens/blockTokens';
import { applyCalibration } from '../../../src/core/tokens/calibration';
import { AnthropicLlmClient } from '../../../src/host/anthropic/anthropicClient';

/** ~20 000 characters (~5 000 tokens) of code-like text, different per `n`: under the per-result spill size. */
export function moduleText(n: number): string {
  return Array.from(
    { length: 240 },
    (_, i) => `line ${i} of module${n}.ts: export function handler${n}_${i}(req) { return req.user?.id ?? null; }`,
  ).join('\n');
}

/** The real client against the fake server at `url`: a test key, no retries, no waiting. */
export function fakeServerClient(url: string): AnthropicLlmClient {
  return new AnthropicLlmClient({
    apiKey: async () => 'sk-ant-test',
    baseUrl: url,
    retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
    sleep: async () => undefined,
  });
}

/**
 * A compactor for an agent built from `deps` (its clock, ids, tokenizer and estimator), the
 * summariser through `llm`, with `settings`, and a timeout that never fires.
 */
export function estimatorCompactor(deps: AgentDeps, llm: AnthropicLlmClient, settings: CompactionSettings): Compactor {
  const { estimator, tokenizer } = deps;
  return new Compactor({
    summariser: llm,
    clock: deps.clock,
    ids: deps.ids,
    tokensOf: (m) => applyCalibration(estimator.calibration, messageRawTokens(m, tokenizer)),
    measure: (s) => estimator.estimate(s).tokens,
    settings: () => settings,
    timeout: () => new Promise(() => undefined),
  });
}
