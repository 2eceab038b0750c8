/**
 * The ports of the chat service: what it needs from the editor, each implemented by a thin
 * VS Code adapter in src/host and by fakes in the unit tests.
 */
import type { SubagentSettings } from '../core/subagents/subagentSettings';
import type { AgentSession } from '../core/agent/agentSession';
import type { AgentEvent } from '../core/agent/events';
import type { Compactor } from '../core/compaction/compactor';
import type { CompactionSettings } from '../core/compaction/policy';
import type { Injection, Message, PipelineConfig, ToolSchema } from '../core/conversation/conversationModel';
import type { Tokenizer } from '../core/platform/platformPorts';
import type { ConfigResult } from '../core/pipeline/config';
import type { TokenEstimator } from '../core/tokens/estimator';
import type { ChatToWebview } from '../protocol/chat';
import type { TokensOf } from './tokensOf';
import type { LiveTransport } from './liveTransport';
import type { OpenSession } from './sessionPort';

/** Posts typed messages to the chat webview. */
export interface ChatViewPort {
  post(message: ChatToWebview): void;
}

/** Toasts for the user (info, warning, error); fire and forget. */
export interface Notifier {
  info(text: string): void;
  warn(text: string): void;
  error(text: string): void;
}

/** The extension's log (the "Context Pipeline" output). */
export interface LogPort {
  info(text: string): void;
  warn(text: string): void;
  error(text: string): void;
}

/** Settings of the agent loop and its transport (the API key is not a setting). */
export interface AgentSettings {
  /** Alternative API base URL (a proxy, or the scripted test server); empty for Anthropic's. User settings only. */
  readonly baseUrl: string;
  readonly enableRunCommand: boolean;
  readonly maxToolRounds: number;
  /** `contextPipeline.toolSearch.deferThreshold`: MCP definitions over this many tokens are deferred. */
  readonly deferThreshold: number;
}

/** The current settings, read fresh on every call, and a signal when they change. */
export interface SettingsPort {
  /** The settings resolved into a pipeline config (or why they cannot be). */
  pipelineConfig(): ConfigResult;
  agent(): AgentSettings;
  compaction(): CompactionSettings;
  /** The subagent settings (`contextPipeline.subagents.*`). */
  subagents(): SubagentSettings;
  /** Whether each kind of editor context is injected. */
  editorContext(): { readonly selection: boolean; readonly openedFile: boolean };
  /** Calls `listener` after any of the extension's settings changed; returns its unsubscribe. */
  onDidChange(listener: () => void): () => void;
}

/** The API key's status (never the key). */
export interface ApiKeyPort {
  status(): Promise<Extract<ChatToWebview, { type: 'status' }>['apiKey']>;
  /** Why the key in use cannot be used, if it cannot. */
  problem(): Promise<string | undefined>;
}

/** A notice about the project context (instructions, workspace facts) for the chat. */
export interface ProjectNotice {
  readonly level: 'info' | 'warning';
  readonly text: string;
}

/** The open session's project context (instructions, workspace facts, nested instructions). */
export interface ProjectContextPort {
  /** Reads once, in the background. */
  load(): Promise<unknown>;
  /** Puts what was read into the agent's system prompt; true when it changed. */
  apply(agent: AgentSession): boolean;
  /** Waits for the first read (or a reload made during a turn) and applies it. */
  ready(agent: AgentSession): Promise<readonly ProjectNotice[]>;
  /** Reads again and says what changed. */
  reload(agent: AgentSession): Promise<readonly ProjectNotice[]>;
}

/** An opened session's agent and what the service keeps beside it. */
export interface SessionRuntime {
  readonly agent: AgentSession;
  readonly estimator: TokenEstimator;
  readonly compactor: Compactor;
  readonly tokenizer: Tokenizer;
  readonly project: ProjectContextPort;
  /** What the agent took from the settings at build time (LLM client, tool-round limit); swapped between turns. */
  readonly transport: LiveTransport;
  /** Told the resolved config between turns (e.g. to fetch a newly chosen model's limits). */
  onConfig?(config: PipelineConfig): void;
  /** Lets go of what the runtime holds beyond its session (its context engine) when the session closes. */
  dispose?(): void;
}

/** What building a runtime reports back. */
export interface RuntimeHooks {
  readonly onEvent: (event: AgentEvent) => void;
  /** The resolved config changed (e.g. the Models API's limits arrived). */
  readonly onModelLimits: () => void;
}

/** Builds the runtime (tokenizer, project context, agent) of an opened session. */
export interface AgentFactory {
  build(open: OpenSession, config: PipelineConfig, hooks: RuntimeHooks): Promise<SessionRuntime>;
}

/** The editor context and pinned selections that go with the next message. */
export interface NextTurnPort {
  /** Takes what goes with the next message; `settle(sent)` says whether it went (else it waits for the next). */
  take(sessionId: string | undefined): { readonly injections: readonly Injection[]; settle(sent: boolean): void };
  pin(injection: Extract<Injection, { kind: 'ide_selection' }>): unknown;
  dismiss(key: string): void;
  chips(
    sessionId: string | undefined,
    count: (text: string) => number,
  ): Extract<ChatToWebview, { type: 'pendingContext' }>['chips'];
}

/** The tools offered to the model now (they follow the settings). */
export type ToolSchemasPort = () => readonly ToolSchema[];

/** Posts a session's chat: the updates of each agent event, and the whole transcript on demand. */
export interface TranscriptRendering {
  /** Posts the chat updates of one event (events with nothing to show are ignored). */
  render(e: AgentEvent): void;
  /**
   * Posts the whole transcript of `messages`, then what is in flight in the running turn (the
   * answer streamed so far, the tool cards of the round in progress, the compaction running,
   * the retry countdown or none): a view that (re)loaded mid-turn shows the turn as it stands,
   * not only what the conversation holds.
   */
  resync(messages: readonly Message[]): void;
}

/** Renders chat items from messages and agent events (the host's transcript code). */
export interface TranscriptPort {
  /** A renderer that posts the chat of the open session to `view`. */
  renderer(view: ChatViewPort, tokensOf: () => TokensOf | undefined): TranscriptRendering;
}
