/**
 * The host's thin adapter over the chat service (src/app/chatService.ts): wires the service's
 * ports to VS Code (the chat view, toasts, settings, the session store, the agent factory),
 * turns its signals into VS Code events, and keeps the budget panel's request history.
 */
import type { AgentFactoryDeps } from './agentFactory';
import type { EngineUse } from '../../core/engine/engineSlot';
import type { PreparedRequest } from '../../core/pipeline/pipeline';
import * as vscode from 'vscode';
import type { ToolRunner } from '../../core/tools/toolRunner';
import type { CompactionEntryState } from '../../core/agent/agentSession';
import type { ReadFresh } from '../../core/compaction/reattach';
import type { PreviousBreakpoint } from '../../core/cache/cacheAnchors';
import type { ConversationState, Message, ToolSchema } from '../../core/conversation/conversationModel';
import type { TokenEstimator } from '../../core/tokens/estimator';
import type { ToolLookup } from '../../core/tools/callSummary';
import type { Tokenizer } from '../../core/platform/platformPorts';
import type { Calibration } from '../../core/tokens/calibration';
import { ChatService, type Outcome } from '../../app/chatService';
import type { ContextFigures } from '../../app/statusReport';
import type { BudgetSnapshot } from '../../protocol/budget';
import { BudgetHistory, buildBudgetSnapshot } from '../budget/budgetData';
import type { ApiKeyStore } from '../apiKey';
import type { ChatView } from '../chatViewProvider';
import type { NextTurnContext } from './nextTurnContext';
import { hostAgentFactory } from './agentFactory';
import type { SessionPort } from '../../app/sessionPort';
import type { PastSession } from '../../core/recall/corpus';
import { continuedItems, TranscriptRenderer } from './transcriptRenderer';
import { abortableSleep } from '../abortableSleep';
import { vscodeSettings } from './vscodePorts';
import { toast } from '../toasts';
import { handoffNoteCost } from '../../core/session/sessionCost';

/** What the controller needs from the extension. */
export interface ChatControllerDeps {
  readonly apiKeys: ApiKeyStore;
  readonly sessions: SessionPort;
  readonly tools: ToolRunner;
  readonly toolSchemas: () => readonly ToolSchema[];
  /** Brings the tools up to date at a turn boundary (MCP servers); never throws. */
  readonly toolsAtTurnBoundary?: () => Promise<void>;
  /** Folder for spilled pastes of a session. */
  readonly pasteDirectory: (sessionId: string) => string;
  readonly writeFile: (path: string, content: string) => Promise<void>;
  readonly log: vscode.LogOutputChannel;
  readonly version: string;
  /** Told whenever the session's figures change (status bar, budget views). */
  readonly onStatus?: (s: ContextFigures) => void;
  /** The editor context and pinned selections that go with the next message. */
  readonly nextTurn: NextTurnContext;
  /** Reads a file fresh (read_file's rules) for the re-attach after a compaction. */
  readonly readFresh?: ReadFresh;
  /** The tools' definitions by name, which the chat's tool rows are summarised from. */
  readonly toolDefinition?: ToolLookup;
  /** The context engines of this extension host and the chosen one's id. */
  readonly engines?: AgentFactoryDeps['engines'];
  /** File checkpoints for rewinds (agentFactory.ts `checkpoints`). */
  readonly checkpoints?: AgentFactoryDeps['checkpoints'];
  /** Reads a session read-only for `recall` in the session a handoff continues it in. */
  readonly pastSession?: (id: string) => Promise<PastSession | undefined>;
}

/** Connects the chat view to the chat service; see the file comment. */
export class ChatController implements vscode.Disposable {
  private readonly compactionsChanged = new vscode.EventEmitter<void>();
  /** Fires when compactions were added or restored, or the session changed (for the tree). */
  readonly onDidChangeCompactions = this.compactionsChanged.event;
  private readonly budgetChanged = new vscode.EventEmitter<void>();
  /** Fires when what the budget panel shows may have changed (status posted, a turn event). */
  readonly onDidChangeBudget = this.budgetChanged.event;
  /** The application service behind the chat (VS Code-free). */
  readonly service: ChatService;
  private budgetHistory = new BudgetHistory();
  /** The chat's renderer: it answers what the chat asks of the compacted history. */
  private renderer: TranscriptRenderer | undefined;

  constructor(
    view: ChatView,
    private readonly deps: ChatControllerDeps,
  ) {
    const clock = { now: () => Date.now() };
    this.service = new ChatService({
      view,
      notifier: toast,
      log: deps.log,
      settings: vscodeSettings,
      apiKeys: deps.apiKeys,
      sessions: deps.sessions,
      agents: hostAgentFactory({ ...deps, settings: vscodeSettings, clock }),
      nextTurn: deps.nextTurn,
      toolSchemas: deps.toolSchemas,
      ...(deps.toolsAtTurnBoundary ? { toolsAtTurnBoundary: deps.toolsAtTurnBoundary } : {}),
      transcript: {
        renderer: (v, tokensOf) =>
          (this.renderer = new TranscriptRenderer(
            v,
            tokensOf,
            Date.now,
            deps.toolDefinition,
            () => this.compactions,
            () => this.service.runtime?.agent.plan,
            () => this.budgetHistory.subagentRuns,
            () => continuedItems(this.service.sessionLabel?.continuedFrom),
          )),
      },
      version: deps.version,
      clock,
      timeout: abortableSleep,
    });
    this.service.onAgentEvent.on(({ event }) => this.budgetHistory.observe(event));
    this.service.onSessionOpened.on((open) => (this.budgetHistory = new BudgetHistory(open.requestHistory)));
    this.service.onStatus.on((f) => deps.onStatus?.(f));
    this.service.onBudgetChanged.on(() => this.budgetChanged.fire());
    this.service.onCompactionsChanged.on(() => this.compactionsChanged.fire());
  }

  /** The webview (re)loaded: send status and the whole transcript. */
  onReady(): Promise<void> {
    return this.service.onReady();
  }

  /** Starts a fresh session (the old one stays on disk). */
  newSession(): Promise<void> {
    return this.service.newSession();
  }

  /** Switches to another stored session. */
  resume(id: string): Promise<void> {
    return this.service.resume(id);
  }

  /** Folder of the open session's saved pastes and tool outputs (read_file may read it). */
  filesDir(): string | undefined {
    const label = this.service.sessionLabel;
    return label ? this.deps.pasteDirectory(label.id) : undefined;
  }

  /** Answers the chat's questions about the compacted history (a group's items, a cleared result's original). */
  get history(): Pick<TranscriptRenderer, 'openCompacted' | 'openClearedResult'> | undefined {
    return this.renderer;
  }

  /** The open session's compactions (empty before a session is open). */
  get compactions(): readonly CompactionEntryState[] {
    return this.service.compactions;
  }

  /** The open session's messages as they stand (empty before a session is open). */
  get messages(): readonly Message[] {
    return this.service.messages();
  }

  /** The open session's id and display title. */
  get sessionLabel(): { id: string; title: string } | undefined {
    return this.service.sessionLabel;
  }

  /** The open session's estimator (anchored on its last reported usage), for previews. */
  get estimator(): TokenEstimator | undefined {
    return this.service.estimator;
  }

  /** The open session's last cache breakpoint, so a preview plans the anchors the real request would. */
  /** The open session's request path for a preview (AgentSession.previewRequest); undefined without a session. */
  get previewRequest():
    ((state: ConversationState) => Promise<{ prepared: PreparedRequest; engine?: EngineUse }>) | undefined {
    const agent = this.service.runtime?.agent;
    return agent ? (state) => agent.previewRequest(state) : undefined;
  }

  get previousBreakpoint(): PreviousBreakpoint | undefined {
    return this.service.runtime?.agent.previousBreakpoint;
  }

  /** What Compact Now would do, for the confirmation prompt. */
  compactionPreview() {
    return this.service.compactionPreview();
  }

  /** Compacts now (queued until the running turn ends); resolves with the outcome. */
  compactNow(instructions?: string): Promise<Outcome> {
    return this.service.compactNow(instructions);
  }

  /** Cancel of Compact Now: drops one that waits for the running turn, or stops the one that runs. */
  cancelCompaction(): void {
    this.service.cancelCompaction();
  }

  /** Undoes a compaction of the open session. */
  restore(recordId: string): Promise<Outcome> {
    return this.service.restore(recordId);
  }

  /** Unpins a whole message or one pinned block (the budget panel's Unpin). */
  unpin(kind: 'message' | 'block', id: string): Promise<Outcome> {
    return this.service.unpin(kind, id);
  }

  /** The open session's conversation (opening the latest session if none is open yet). */
  conversation(): Promise<ConversationState | undefined> {
    return this.service.conversation();
  }

  /** Posts the header status (and the status bar's figures). */
  postStatus(): Promise<void> {
    return this.service.postStatus();
  }

  /** Queues a selection to go with the next message as a pinned block (never compacted). */
  pinText(pin: { path: string; startLine: number; endLine: number; text: string; truncatedChars?: number }): void {
    this.service.pinText(pin);
  }

  /** Posts the chips of the context that goes with the next message. */
  postPendingContext(): void {
    this.service.postPendingContext();
  }

  /** Reload Project Instructions: reads instructions and facts again and says in the chat what changed. */
  reloadProjectContext(): Promise<void> {
    return this.service.reloadProjectContext();
  }

  /** The project-context settings changed: the open session reads them again (see ChatService). */
  projectSettingsChanged(): Promise<void> {
    return this.service.projectSettingsChanged();
  }

  /** What the Context Budget panel shows for the open session (undefined before one is open). */
  /** The open session's conversation and how it is counted (for the Tools card); undefined before a session. */
  toolsSession():
    { state: ConversationState; tokenizer: Tokenizer; calibration: Calibration; promptTokens: number } | undefined {
    const rt = this.service.runtime;
    if (!rt) return undefined;
    const state = rt.agent.state;
    const promptTokens = rt.estimator.estimate(state).tokens;
    return { state, tokenizer: rt.tokenizer, calibration: rt.estimator.calibration, promptTokens };
  }

  /** The context engine in use, by name: the last request's, else the chosen one's id (undefined without engines). */
  engineName(): string | undefined {
    const chosen = this.deps.engines?.chosen();
    if (chosen === undefined) return undefined;
    const last = this.budgetHistory.engine;
    return last && last.id === chosen
      ? last.fallback
        ? `${last.name} (the last request fell back to layered)`
        : last.name
      : chosen;
  }

  budgetSnapshot(): BudgetSnapshot | undefined {
    const rt = this.service.runtime;
    if (!rt) return undefined;
    const resolved = vscodeSettings.pipelineConfig();
    return buildBudgetSnapshot({
      session: this.sessionLabel?.title ?? '',
      state: rt.agent.state,
      tokenizer: rt.tokenizer,
      estimator: rt.estimator,
      history: this.budgetHistory,
      compactions: rt.agent.compactions,
      busy: rt.agent.busy,
      ...(resolved.ok ? { windowSource: resolved.windowSource } : {}),
      ...(rt.agent.engine?.ownsCompaction() && !this.budgetHistory.engine?.fallback
        ? {}
        : { plan: rt.compactor.plan(rt.agent.state, { cacheWarm: true, mode: 'auto' }) }),
      softAction: vscodeSettings.compaction().softAction,
      ...(this.deps.engines ? { engineId: this.deps.engines.chosen() } : {}),
      ...(rt.agent.engine?.ownsCompaction() ? { engineOwnsCompaction: true } : {}),
      sent: rt.agent.sentRequests,
      prepareNext: (s) => rt.agent.prepareNext(s),
      handoffCostUsd: handoffNoteCost(this.service.sessionLabel?.continuedFrom) ?? null,
    });
  }

  dispose(): void {
    this.service.dispose();
    this.compactionsChanged.dispose();
    this.budgetChanged.dispose();
  }
}
