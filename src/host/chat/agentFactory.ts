/**
 * Builds the agent of an opened session: the system prompt, the SDK client, the estimator
 * (anchored on the session's reported usage), the compactor and the AgentSession itself.
 */
import type { ToolRunner } from '../../core/agent/agentPorts';
import { AgentSession } from '../../core/agent/agentSession';
import type { ContextAfterTools } from '../../core/agent/contextAfterTools';
import type { AgentEvent } from '../../core/agent/events';
import { Compactor } from '../../core/compaction/compactor';
import type { ReadFresh } from '../../core/compaction/reattach';
import type { ConversationState, PipelineConfig, ToolSchema } from '../../core/conversation/conversationModel';
import { counterIds, type Clock, type Tokenizer } from '../../core/platform/platformPorts';
import { sessionSystemPrompt } from '../../core/projectContext/staticPrompt';
import { abortableSleep } from '../abortableSleep';
import { priorFactorFor } from '../../core/tokens/calibration';
import { calibratedMessageTokens } from '../../core/tokens/calibratedTokens';
import { modelInfo } from '../../core/models/modelFacts';
import { TokenEstimator } from '../../core/tokens/estimator';
import { AnthropicLlmClient } from '../anthropic/anthropicClient';
import { modelLimits } from '../anthropic/modelLimitsCache';
import type { ApiKeyStore } from '../apiKey';
import { readAgentSettings, readCompactionSettings } from '../settings';
import type { OpenSession } from './sessionPort';
import { folderSpillReader } from './spillReader';

/** How long the exact first count (`count_tokens`) may take before the estimate stays as it is. */
export const COUNT_TOKENS_TIMEOUT_MS = 3_000;

/** What building an agent needs from the extension. */
export interface AgentFactoryDeps {
  readonly apiKeys: ApiKeyStore;
  readonly tools: ToolRunner;
  readonly toolSchemas: () => readonly ToolSchema[];
  readonly pasteDirectory: (sessionId: string) => string;
  readonly writeFile: (path: string, content: string) => Promise<void>;
  readonly clock: Clock;
  /** Called when the Models API's limits for the model arrived (the resolved config changed). */
  readonly onModelLimits?: () => void;
  /** Reads a file fresh (read_file's rules) for the re-attach after a compaction; without it nothing is re-attached. */
  readonly readFresh?: ReadFresh;
}

/** An agent and the pieces the controller keeps beside it. */
export interface BuiltAgent {
  readonly agent: AgentSession;
  readonly estimator: TokenEstimator;
  readonly compactor: Compactor;
}

/**
 * Builds the agent for `open` with `config`, sending its events to `onEvent`; its system
 * prompt is the static prompt, and `contextAfterTools` (nested project instructions) is
 * called after each tool round.
 */
export function buildAgent(
  open: OpenSession,
  config: PipelineConfig,
  tokenizer: Tokenizer,
  deps: AgentFactoryDeps,
  onEvent: (e: AgentEvent) => void,
  contextAfterTools?: ContextAfterTools,
): BuiltAgent {
  const agentSettings = readAgentSettings();
  const clock = deps.clock;
  const ids = counterIds(`${open.id.slice(-6)}x${Date.now().toString(36)}`);
  // The static prompt alone; the project context (instructions, workspace facts) joins it once read.
  const state: ConversationState = {
    system: sessionSystemPrompt({ clock, ids }),
    tools: deps.toolSchemas(),
    messages: open.messages,
    pending: [],
    config,
  };
  const llm = new AnthropicLlmClient({
    apiKey: () => deps.apiKeys.get(),
    ...(agentSettings.baseUrl ? { baseUrl: agentSettings.baseUrl } : {}),
  });
  // The Models API's window and output limit, once, in the background (never on the send path).
  modelLimits.ensure(config.model, (id) => llm.retrieveModel(id), deps.onModelLimits);
  const estimator = new TokenEstimator(tokenizer);
  // The first estimate of the session already uses the model's tokenizer prior.
  estimator.useModel(config.model, priorFactorFor(modelInfo(config.model).tokenizer));
  const compactor = new Compactor({
    summariser: llm,
    clock,
    ids,
    tokensOf: (m) => calibratedMessageTokens(m, tokenizer, estimator.calibration),
    measure: (st) => estimator.estimate(st).tokens,
    settings: readCompactionSettings,
    ...(deps.readFresh ? { readFresh: deps.readFresh } : {}),
    timeout: abortableSleep,
  });
  const agent = new AgentSession(
    state,
    {
      llm,
      tools: deps.tools,
      sink: open.sink,
      clock,
      ids,
      tokenizer,
      estimator,
      compactor,
      pasteDirectory: deps.pasteDirectory(open.id),
      writeFile: deps.writeFile,
      // The recall tool searches what the session saved to its folder, read-only.
      spills: folderSpillReader(deps.pasteDirectory(open.id)),
      maxToolRounds: agentSettings.maxToolRounds,
      // The exact first anchor: count_tokens beside the first request per model, short timeout, never on the send path.
      countTokens: (params, signal) =>
        llm
          .countTokens(params, { signal, timeoutMs: COUNT_TOKENS_TIMEOUT_MS })
          .then((r) => (r.ok ? r : { ok: false as const })),
      ...(contextAfterTools ? { contextAfterTools } : {}),
    },
    onEvent,
    open.compactions,
  );
  return { agent, estimator, compactor };
}
