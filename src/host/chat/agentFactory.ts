/**
 * The host's agent factory: builds an opened session's runtime — the tokenizer, the project
 * context, the system prompt, the SDK client (behind a LiveTransport, so a changed base URL
 * or tool-round limit reaches the next turn), the estimator (anchored on the session's
 * reported usage), the compactor and the AgentSession itself.
 */
import type { ToolRunner } from '../../core/tools/toolRunner';
import { AgentSession } from '../../core/agent/agentSession';
import type { ReadFresh } from '../../core/compaction/reattach';
import type { ConversationState, ToolSchema } from '../../core/conversation/conversationModel';
import { counterIds, type Clock } from '../../core/platform/platformPorts';
import { sessionSystemPrompt } from '../../core/projectContext/staticPrompt';
import { priorFactorFor } from '../../core/tokens/calibration';
import { modelInfo } from '../../core/models/modelFacts';
import { TokenEstimator } from '../../core/tokens/estimator';
import { ToolLoader } from '../../core/tools/toolLoader';
import { LiveTransport } from '../../app/liveTransport';
import type { AgentFactory, LogPort, SettingsPort } from '../../app/ports';
import { AnthropicLlmClient } from '../anthropic/anthropicClient';
import { modelLimits } from '../anthropic/modelLimitsCache';
import type { ApiKeyStore } from '../apiKey';
import { createProjectContext } from '../projectContext/vscodeProjectContext';
import { loadTokenizer } from '../tokenizerLoader';
import { folderSpillReader } from './spillReader';
import type { PastSession, PastSessionReader } from '../../core/recall/corpus';
import { sessionCompactor } from './sessionCompactor';
import type { SessionPort } from '../../app/sessionPort';
import type { ToolLookup } from '../../core/tools/callSummary';
import { subagentLauncher } from '../subagents/subagentLauncher';
import { EngineSlot } from '../../core/engine/engineSlot';
import type { EngineRegistry } from '../../core/engine/engineRegistry';
import { calibratedMessageTokens } from '../../core/tokens/calibratedTokens';
import { abortableSleep } from '../abortableSleep';
import { join } from 'node:path';
import type { SendResult } from '../../core/agent/sessionCore';
import type { AgentEvent } from '../../core/agent/events';
import type { Message } from '../../core/conversation/conversationModel';
import { isUserWords, newestWordsIndex } from '../../core/compaction/regions';
import { inBackground } from '../../core/platform/background';
import type { FilesExclude } from '../tools/workspaceFilter';
import { CheckpointStore, shownPath } from '../rewind/checkpointStore';
import { checkpointingTools } from '../rewind/checkpointingTools';
import { FileRewinder } from '../rewind/fileRewinder';

/** How long the exact first count (`count_tokens`) may take before the estimate stays as it is. */
export const COUNT_TOKENS_TIMEOUT_MS = 3_000;

/** What building an agent needs from the extension. */
export interface AgentFactoryDeps {
  readonly apiKeys: ApiKeyStore;
  readonly settings: SettingsPort;
  readonly tools: ToolRunner;
  readonly toolSchemas: () => readonly ToolSchema[];
  readonly pasteDirectory: (sessionId: string) => string;
  readonly writeFile: (path: string, content: string) => Promise<void>;
  readonly clock: Clock;
  readonly log: LogPort;
  /** Reads a file fresh (read_file's rules) for the re-attach after a compaction; without it nothing is re-attached. */
  readonly readFresh?: ReadFresh;
  /** Where subagents' child sessions go; with `toolDefinition`, sessions get subagents (task). */
  readonly sessions?: Pick<SessionPort, 'createChild' | 'saveTranscript'>;
  /** The tools' definitions by name (what a subagent may use, its cards' one-line summaries). */
  readonly toolDefinition?: ToolLookup;
  /** The context engines registered in this extension host, and the chosen one's id (read per request). */
  readonly engines?: {
    readonly registry: EngineRegistry;
    readonly chosen: () => string;
    /** The time limit on an engine's hook in milliseconds, read per call (absent: the slot's default). */
    readonly timeoutMs?: () => number;
  };
  /**
   * File checkpoints (src/host/rewind): the workspace folders and excluded globs the snapshots
   * see, where each session's rewinder is handed (by its agent), and the undo of a rewind's
   * files (the host's dialog); absent: sessions keep no file checkpoints.
   */
  readonly checkpoints?: {
    readonly roots: () => readonly string[];
    readonly exclude: () => FilesExclude;
    readonly rewinders: WeakMap<AgentSession, FileRewinder>;
    readonly undo: (recordId: string) => Promise<SendResult>;
  };
  /** Reads a session read-only for `recall` (the one a handed-off session continues); without it none is. */
  readonly pastSession?: (id: string) => Promise<PastSession | undefined>;
}

/** Reads the session `id` continues once it has been read (a failed read is tried again at the next recall). */
function pastReader(read: (id: string) => Promise<PastSession | undefined>, id: string): PastSessionReader {
  let got: PastSession | undefined;
  return {
    read: async () => (got ??= await read(id)),
  };
}

/**
 * The factory of session runtimes: the system prompt is the static prompt (the project context
 * joins it once read), and the nested project instructions are asked for after each tool round.
 */
export function hostAgentFactory(deps: AgentFactoryDeps): AgentFactory {
  return {
    async build(open, config, hooks) {
      const clock = deps.clock;
      const loaded = await loadTokenizer();
      if (loaded.fallbackReason) deps.log.warn(`Tokenizer fell back to chars/4: ${loaded.fallbackReason}`);
      const tokenizer = loaded.tokenizer;
      const project = createProjectContext({
        clock,
        ids: counterIds(`${open.id.slice(-6)}p${Date.now().toString(36)}`),
        tokenizer,
        log: (t) => deps.log.info(t),
      });
      project.seed(open.messages);
      const agentSettings = deps.settings.agent();
      const ids = counterIds(`${open.id.slice(-6)}x${Date.now().toString(36)}`);
      const state: ConversationState = {
        system: sessionSystemPrompt({ clock, ids }),
        tools: deps.toolSchemas(),
        messages: open.messages,
        pending: [],
        config,
        ...(open.plan ? { plan: open.plan } : {}),
      };
      // baseUrl is read from the user's settings only (see settings.ts and trustedSetting.ts).
      const transport = new LiveTransport(
        (baseUrl) => new AnthropicLlmClient({ apiKey: () => deps.apiKeys.get(), ...(baseUrl ? { baseUrl } : {}) }),
        agentSettings,
      );
      // The Models API's window and output limit, once per model, in the background (never on the send path).
      const ensureLimits = (model: string) =>
        modelLimits.ensure(
          model,
          transport.settings.baseUrl,
          (id) => transport.client.retrieveModel(id),
          hooks.onModelLimits,
        );
      ensureLimits(config.model);
      const estimator = new TokenEstimator(tokenizer);
      // MCP definitions over the threshold are deferred: behind the API's tool search where the
      // model takes it (the model table: the Models API reports no such capability), else behind find_tools.
      const toolLoader = new ToolLoader({
        tokenizer,
        thresholdTokens: () => deps.settings.agent().deferThreshold,
        serverToolSearch: () => modelInfo(built.agent?.state.config.model ?? config.model).toolSearch,
      });
      // The first estimate of the session already uses the model's tokenizer prior.
      estimator.useModel(config.model, priorFactorFor(modelInfo(config.model).tokenizer));
      // The agent is built after its compactor; the main-model summary asks it for its request.
      const built: { agent?: AgentSession } = {};
      const compactor = sessionCompactor({
        agent: () => built.agent,
        llm: transport.llm,
        clock,
        ids,
        tokenizer,
        estimator,
        settings: () => deps.settings.compaction(),
        ...(deps.readFresh ? { readFresh: deps.readFresh } : {}),
      });
      const engine = deps.engines
        ? new EngineSlot({
            registry: deps.engines.registry,
            engineId: deps.engines.chosen,
            sessionId: open.id,
            messageTokens: (ms) => ms.map((m) => calibratedMessageTokens(m, tokenizer, estimator.calibration)),
            measure: (st) => estimator.estimate(st).tokens,
            now: () => clock.now(),
            sleep: abortableSleep,
            ...(deps.engines.timeoutMs ? { timeoutMs: deps.engines.timeoutMs } : {}),
          })
        : undefined;
      const checkpoints = deps.checkpoints ? await openCheckpoints(deps, open.id) : undefined;
      const notify = (text: string) => hooks.onEvent({ type: 'notice', level: 'warning', text });
      const tools =
        checkpoints && deps.checkpoints
          ? checkpointingTools(deps.tools, {
              store: checkpoints,
              checkpoint: () => newestWordsId(built.agent?.state.messages ?? open.messages),
              roots: deps.checkpoints.roots,
              effectOf: (name) => deps.toolDefinition?.(name)?.effect,
              notify,
            })
          : deps.tools;
      // Each message of the user's is a checkpoint: the files as they were when it was sent.
      const onEvent = (e: AgentEvent) => {
        if (
          checkpoints &&
          e.type === 'message_added' &&
          e.message.role === 'user' &&
          e.message.blocks.some(isUserWords)
        )
          inBackground(
            checkpoints.checkpoint(e.message.id).then((r) => (r.ok ? undefined : notify(`Checkpoint: ${r.error}`))),
            deps.log,
            'Recording a checkpoint',
          );
        hooks.onEvent(e);
      };
      const agent = new AgentSession(
        state,
        {
          llm: transport.llm,
          ...(checkpoints && deps.checkpoints ? { rewindFiles: { undo: deps.checkpoints.undo } } : {}),
          ...(engine ? { engine } : {}),
          tools,
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
          // And, in a session handed off to, the session it continues (read-only).
          ...(open.continuedFrom && deps.pastSession
            ? { pastSession: pastReader(deps.pastSession, open.continuedFrom.sessionId) }
            : {}),
          // Read per turn: the transport takes a changed limit between turns.
          get maxToolRounds() {
            return transport.maxToolRounds;
          },
          // The exact first anchor: count_tokens beside the first request per model, short timeout, never on the send path.
          // A reopened session's rhythm of replies goes on from what it saved (cache lifetimes).
          pastRequests: open.pastRequests,
          countTokens: (params, signal) =>
            transport.client
              .countTokens(params, { signal, timeoutMs: COUNT_TOKENS_TIMEOUT_MS })
              .then((r) => (r.ok ? r : { ok: false as const })),
          contextAfterTools: (calls, note) => project.afterTools(calls, note),
          toolLoader,
          ...(deps.sessions && deps.toolDefinition
            ? {
                subagents: subagentLauncher({
                  parentId: open.id,
                  parent: () => built.agent?.state,
                  sessions: deps.sessions,
                  settings: deps.settings,
                  subagentSettings: () => deps.settings.subagents(),
                  llm: transport.llm,
                  tokenizer,
                  clock,
                  tools: deps.tools,
                  toolSchemas: deps.toolSchemas,
                  toolDefinition: deps.toolDefinition,
                  filesDirectory: deps.pasteDirectory(open.id),
                  writeFile: deps.writeFile,
                  ...(deps.readFresh ? { readFresh: deps.readFresh } : {}),
                }),
              }
            : {}),
        },
        onEvent,
        open.compactions,
        open.planChanges,
      );
      built.agent = agent;
      if (checkpoints && deps.checkpoints)
        deps.checkpoints.rewinders.set(
          agent,
          new FileRewinder(checkpoints, (ref) => shownPath(ref, (deps.checkpoints?.roots().length ?? 0) > 1)),
        );
      return {
        agent,
        estimator,
        compactor,
        tokenizer,
        project,
        transport,
        onConfig: (c) => ensureLimits(c.model),
        dispose: () => engine?.dispose(),
      };
    },
  };
}

/** The session's checkpoint store, in its files folder; undefined (logged) when it cannot be opened. */
async function openCheckpoints(deps: AgentFactoryDeps, sessionId: string): Promise<CheckpointStore | undefined> {
  const c = deps.checkpoints;
  if (!c) return undefined;
  const opened = await CheckpointStore.open({
    folder: join(deps.pasteDirectory(sessionId), 'checkpoints'),
    roots: c.roots,
    exclude: c.exclude,
  });
  if (!opened.ok) {
    deps.log.warn(`File checkpoints are off for this session: ${opened.error}`);
    return undefined;
  }
  for (const s of opened.skipped) deps.log.warn(`Checkpoint journal line ${s.line} skipped: ${s.reason}`);
  return opened.store;
}

/** The id of the newest message holding the user's words (the current checkpoint). */
function newestWordsId(messages: readonly Message[]): string | undefined {
  return messages[newestWordsIndex(messages)]?.id;
}
