/**
 * The host's subagent launcher for one parent session: each task opens a child session (its own
 * file in the sessions folder, its header naming the parent and the task call) and runs it as an
 * AgentSession of its own — its model and window (subagentConfig), its own estimator, compactor
 * and cache breakpoints — over the parent's transport (same endpoint and key), with the tools a
 * subagent may use (childTools.ts) and the parent's system prompt plus the subagent block. It
 * spills into the parent's files folder (so its read_file reads its own spills and the parent's
 * recall finds them), and when it closes, its transcript is saved there too (Markdown).
 */
import type { LlmClient } from '../../core/llm/llmClient';
import type { ToolRunner } from '../../core/tools/toolRunner';
import { AgentSession } from '../../core/agent/agentSession';
import type { ReadFresh } from '../../core/compaction/reattach';
import type { ConversationState, ToolSchema } from '../../core/conversation/conversationModel';
import { counterIds, type Clock, type Tokenizer } from '../../core/platform/platformPorts';
import { errorText } from '../../core/text/errors';
import { isServerStrategy } from '../../core/server/serverContext';
import { callSummary, type ToolLookup } from '../../core/tools/callSummary';
import { priorFactorFor } from '../../core/tokens/calibration';
import { TokenEstimator } from '../../core/tokens/estimator';
import { modelInfo } from '../../core/models/modelFacts';
import { subagentToolRunner, subagentToolSchemas } from '../../core/subagents/childTools';
import { subagentSystem } from '../../core/subagents/subagentPrompt';
import { subagentConfig, type SubagentSettings } from '../../core/subagents/subagentSettings';
import type { SubagentLauncher } from '../../core/agent/subagentPort';
import type { SettingsPort } from '../../app/ports';
import type { SessionPort } from '../../app/sessionPort';
import { sessionCompactor } from '../chat/sessionCompactor';

/** What the launcher of one parent session needs. */
export interface LauncherDeps {
  /** The parent session's id. */
  readonly parentId: string;
  /** The parent's conversation now (its system prompt and config are the child's starting point). */
  readonly parent: () => ConversationState | undefined;
  readonly sessions: Pick<SessionPort, 'createChild' | 'saveTranscript'>;
  readonly settings: SettingsPort;
  readonly subagentSettings: () => SubagentSettings;
  /** The parent's client (its transport: the same endpoint and key). */
  readonly llm: LlmClient;
  readonly tokenizer: Tokenizer;
  readonly clock: Clock;
  /** The workspace tools (the parent's runner, its approvals in the parent's chat). */
  readonly tools: ToolRunner;
  readonly toolSchemas: () => readonly ToolSchema[];
  readonly toolDefinition: ToolLookup;
  /** The parent's files folder. */
  readonly filesDirectory: string;
  readonly writeFile: (path: string, content: string) => Promise<void>;
  readonly readFresh?: ReadFresh;
}

/** A launcher of subagents for the parent session `deps.parentId`. */
export function subagentLauncher(deps: LauncherDeps): SubagentLauncher {
  const allowedNames = () => {
    const s = deps.subagentSettings();
    return new Set(subagentToolSchemas(deps.toolSchemas(), deps.toolDefinition, s.allowEdits).map((t) => t.name));
  };
  return {
    settings: deps.subagentSettings,
    describe: (call) => callSummary(deps.toolDefinition(call.name), call.name, call.input),
    async open(task, onEvent) {
      const parent = deps.parent();
      if (!parent) return { ok: false, error: 'the parent session is closed.' };
      const settings = deps.subagentSettings();
      const resolved = subagentConfig(parent.config, settings);
      if (!resolved.ok) return { ok: false, error: resolved.error };
      const config = resolved.config;
      let open: Awaited<ReturnType<LauncherDeps['sessions']['createChild']>>;
      try {
        open = await deps.sessions.createChild(config.model, {
          sessionId: deps.parentId,
          toolUseId: task.toolUseId,
          title: `Subagent: ${task.description}`,
        });
      } catch (err) {
        return { ok: false, error: `its session file could not be created (${errorText(err)}).` };
      }
      const clock = deps.clock;
      const ids = counterIds(`${open.id.slice(-6)}s${clock.now().toString(36)}`);
      const estimator = new TokenEstimator(deps.tokenizer);
      estimator.useModel(config.model, priorFactorFor(modelInfo(config.model).tokenizer));
      const built: { agent?: AgentSession } = {};
      const compactor = sessionCompactor({
        agent: () => built.agent,
        llm: deps.llm,
        clock,
        ids,
        tokenizer: deps.tokenizer,
        estimator,
        // Nobody can press Compact Now for a subagent: it compacts itself, with our strategies.
        settings: () => {
          const c = deps.settings.compaction();
          return { ...c, softAction: 'auto', ...(isServerStrategy(c.strategy) ? { strategy: 'summarise' } : {}) };
        },
        ...(deps.readFresh ? { readFresh: deps.readFresh } : {}),
      });
      const state: ConversationState = {
        system: subagentSystem(parent.system, { clock, ids }),
        tools: subagentToolSchemas(deps.toolSchemas(), deps.toolDefinition, settings.allowEdits),
        messages: [],
        pending: [],
        config,
      };
      const agent = new AgentSession(
        state,
        {
          llm: deps.llm,
          tools: subagentToolRunner(deps.tools, allowedNames),
          sink: open.sink,
          clock,
          ids,
          tokenizer: deps.tokenizer,
          estimator,
          compactor,
          pasteDirectory: deps.filesDirectory,
          writeFile: deps.writeFile,
          maxToolRounds: settings.maxRounds,
        },
        onEvent,
      );
      built.agent = agent;
      const transcript = `${deps.filesDirectory}/subagent-${safeName(task.toolUseId)}.md`;
      return {
        ok: true,
        child: {
          sessionId: open.id,
          model: config.model,
          send: (prompt) => agent.send(prompt),
          stop: () => agent.stop(),
          messages: () => agent.state.messages,
          close: async () => {
            const problems: string[] = [];
            await open
              .close()
              .catch((err: unknown) => problems.push(`its session file did not close cleanly (${errorText(err)})`));
            const saved = await deps.sessions
              .saveTranscript(open.id, transcript)
              .catch((err: unknown) => ({ ok: false as const, error: errorText(err) }));
            if (!saved.ok) problems.push(`its transcript was not saved for recall (${saved.error})`);
            return problems.length > 0 ? `The subagent's session ${open.id}: ${problems.join('; ')}.` : undefined;
          },
        },
      };
    },
  };
}

/** A tool call id as a file name part: word characters and dashes only, at most 80. */
function safeName(id: string): string {
  return id.replace(/[^\w-]/g, '_').slice(0, 80) || 'call';
}
