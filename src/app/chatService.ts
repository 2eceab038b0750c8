/**
 * The chat's application service, free of VS Code: connects the chat view to an agent session —
 * opens (or creates) the durable session, turns the user's messages into turns, renders the
 * turn's events as chat items, publishes the status figures, and takes settings changed
 * mid-session (between turns: a turn in flight finishes with the settings it started with).
 */
import { SessionBill } from './sessionBill';
import type { AgentSession, CompactionEntryState } from '../core/agent/agentSession';
import type { AgentEvent } from '../core/agent/events';
import type { TurnInput } from '../core/conversation/assemble';
import type { ConversationState, Message, PipelineConfig } from '../core/conversation/conversationModel';
import type { Clock } from '../core/platform/platformPorts';
import { sessionDisplayTitle } from '../core/session/markdown';
import type { ContinuedFrom } from '../core/session/entries';
import type { TokenEstimator } from '../core/tokens/estimator';
import { ChatNotices } from './chatNotices';
import { logEvent } from './eventLog';
import type {
  AgentFactory,
  ApiKeyPort,
  ChatViewPort,
  LogPort,
  NextTurnPort,
  Notifier,
  ProjectNotice,
  SessionRuntime,
  SettingsPort,
  ToolSchemasPort,
  TranscriptPort,
  TranscriptRendering,
} from './ports';
import { Handoff } from './handoff';
import { ManualCompaction } from './manualCompaction';
import { ProjectReload } from './projectReload';
import { PendingContext, type PinnedSelection } from './pendingContext';
import { SessionLifecycle, validConfig, type Opened } from './sessionLifecycle';
import type { OpenSession, SessionPort } from './sessionPort';
import { Signal } from './signal';
import { statusReport, type ContextFigures } from './statusReport';
import { tokensOf, type TokensOf } from './tokensOf';
import { TurnRunner, type Outcome } from './turnRunner';
import { UserTurns } from './userTurns';
import { inBackground } from '../core/platform/background';
export type { Outcome } from './turnRunner';

/** What the chat service needs; every editor-facing need is a port. */
export interface ChatServiceDeps {
  readonly view: ChatViewPort;
  readonly notifier: Notifier;
  readonly log: LogPort;
  readonly settings: SettingsPort;
  readonly apiKeys: ApiKeyPort;
  readonly sessions: SessionPort;
  readonly agents: AgentFactory;
  readonly nextTurn: NextTurnPort;
  readonly toolSchemas: ToolSchemasPort;
  /** Brings the tools up to date at a turn boundary (MCP servers, changed tool lists); never throws. */
  readonly toolsAtTurnBoundary?: () => Promise<void>;
  readonly transcript: TranscriptPort;
  readonly version: string;
  readonly clock: Clock;
  /** An abortable timer (the handoff summariser's safety timeout); without it only Stop ends that request. */
  readonly timeout?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** The chat of the open session; see the file comment. */
export class ChatService {
  /** The status bar's figures, whenever they change. */
  readonly onStatus = new Signal<ContextFigures>();
  /** Compactions were added or restored, or the session changed. */
  readonly onCompactionsChanged = new Signal();
  /** What the budget panel shows may have changed. */
  readonly onBudgetChanged = new Signal();
  /** Every agent event, with the conversation as it is after it (before it is rendered). */
  readonly onAgentEvent = new Signal<{ event: AgentEvent; state: ConversationState | undefined }>();
  /** A session became the open one. */
  readonly onSessionOpened = new Signal<OpenSession>();
  private readonly lifecycle: SessionLifecycle;
  private readonly renderer: TranscriptRendering;
  private readonly pending: PendingContext;
  private readonly unsubscribe: () => void;
  /** Undefined once a request's price is unknown. */
  private readonly bill = new SessionBill();
  private readonly notices: ChatNotices;
  private readonly turns: TurnRunner;
  private readonly compaction: ManualCompaction;
  private readonly project: ProjectReload;
  /** Continue in a New Session (handoff.ts): its run, Stop, and the offer after compactions. */
  readonly handoff: Handoff;
  /** Turns started in this service's sessions (a sent message entered the conversation). */
  private turnsStarted = 0;

  constructor(private readonly deps: ChatServiceDeps) {
    this.notices = new ChatNotices(deps.view, deps.clock);
    this.renderer = deps.transcript.renderer(deps.view, () => this.tokensOf());
    this.pending = new PendingContext({
      ...deps,
      session: () => this.sessionLabel?.id,
      tokensOf: () => this.tokensOf(),
    });
    this.lifecycle = new SessionLifecycle({
      sessions: deps.sessions,
      config: () => validConfig(deps.settings),
      start: (open, config) => this.start(open, config),
      opened: (o) => this.opened(o),
      turnRunning: () => this.turns.busy,
      notifier: deps.notifier,
      log: deps.log,
    });
    this.turns = new TurnRunner({
      settings: deps.settings,
      apiKeys: deps.apiKeys,
      notices: this.notices,
      log: deps.log,
      ensure: () => this.lifecycle.ensure(),
      prepare: (runtime, config) => this.prepare(runtime, config),
      postStatus: () => this.postStatus(),
      agent: () => this.agent,
    });
    this.compaction = new ManualCompaction({
      ensure: () => this.lifecycle.ensure(),
      prepared: () => this.turns.prepared(),
      refresh: (rt) => {
        const config = validConfig(deps.settings);
        if (config) this.refresh(rt, config);
      },
      postStatus: () => this.postStatus(),
    });
    this.userTurns = new UserTurns({
      ...deps,
      notices: this.notices,
      turns: this.turns,
      sessionId: () => this.sessionLabel?.id,
      postPendingContext: () => this.postPendingContext(),
      turnsStarted: () => this.turnsStarted,
    });
    this.project = new ProjectReload(this.lifecycle, this.notices, deps.notifier, () => this.postStatus());
    this.handoff = new Handoff({
      ...deps,
      lifecycle: this.lifecycle,
      notices: this.notices,
      turns: this.turns,
      postAll: () => this.postAll(),
      postStatus: () => this.postStatus(),
    });
    this.unsubscribe = deps.settings.onDidChange(() => this.postStatusInBackground());
  }

  /** The open session's runtime (agent, estimator, compactor, tokenizer), if one is open. */
  get runtime(): SessionRuntime | undefined {
    return this.lifecycle.current?.runtime;
  }

  /** The open session's id and display title, and the session it continues (a handoff's). */
  get sessionLabel(): { id: string; title: string; continuedFrom?: ContinuedFrom } | undefined {
    const open = this.lifecycle.current?.open;
    const title = sessionDisplayTitle(open?.title, this.messages()) || 'New session';
    return open
      ? { id: open.id, title, ...(open.continuedFrom ? { continuedFrom: open.continuedFrom } : {}) }
      : undefined;
  }

  /** The open session's compactions (empty before a session is open). */
  get compactions(): readonly CompactionEntryState[] {
    return this.agent?.compactions ?? [];
  }

  /** The open session's estimator (anchored on its last reported usage), for previews. */
  get estimator(): TokenEstimator | undefined {
    return this.runtime?.estimator;
  }

  /**
   * The webview (re)loaded: send the whole transcript with the running turn's answer and tool
   * cards so far, the status and the pending context.
   */
  async onReady(): Promise<void> {
    await this.lifecycle.ensure();
    await this.postAll();
  }

  /** Send, and Retry and Edit of the user's last message (userTurns.ts). */
  readonly userTurns: UserTurns;

  /** Sends the user's words (and the images pasted with them) as a new turn, with the next message's context. */
  send(text: string, images: TurnInput['images'] = []): Promise<void> {
    return this.userTurns.send(text, images);
  }

  /** Stops the running turn, or a message still being prepared (it is then not sent), and a Compact Now waiting for either or running. */
  stop(): void {
    const said = this.compaction.stop(this.agent);
    if (said) this.notices.notice('q', 'info', said);
    this.handoff.stop();
    this.turns.stop();
  }

  /** Re-sends the last request after an error. */
  retry(): Promise<void> {
    return this.turns.run(async (agent) => agent.retry());
  }

  /** Pins or unpins a whole message (the chat's Pin toggle); a refusal is shown in the chat. */
  async pin(messageId: string, pinned: boolean): Promise<void> {
    const r = (await this.agent?.commands.setPinned(messageId, pinned)) ?? { ok: false, reason: 'No session is open.' };
    if (!r.ok) this.notices.notice('p', 'warning', r.reason);
    else this.onBudgetChanged.fire();
  }

  /** The user cleared the plan's checklist (saved; the chat hears `plan_changed`). */
  async clearPlan(): Promise<void> {
    const r = await this.agent?.clearPlan();
    if (r && !r.ok) this.notices.notice('p', 'warning', r.reason);
  }

  /** Starts a fresh session (the old one stays on disk). */
  async newSession(): Promise<void> {
    if ((await this.lifecycle.fresh()) === 'switched') await this.postAll();
  }

  /** Switches to another stored session. */
  async resume(id: string): Promise<void> {
    if ((await this.lifecycle.resume(id)) === 'switched') await this.postAll();
  }

  /** The open session's conversation (opening the latest session if none is open yet). */
  async conversation(): Promise<ConversationState | undefined> {
    return (await this.lifecycle.ensure())?.runtime.agent.state;
  }

  /** What Compact Now would do, for the confirmation prompt. */
  async compactionPreview() {
    const o = await this.lifecycle.ensure();
    return o ? o.runtime.compactor.preview(o.runtime.agent.state) : undefined;
  }

  /** Compacts now (after a message being prepared, queued until the running turn ends); resolves with the outcome. */
  compactNow(instructions?: string): Promise<Outcome> {
    return this.compaction.run(instructions);
  }

  /** Cancel of Compact Now's progress (ManualCompaction.cancelOrStop), said in the chat. */
  cancelCompaction(): void {
    const said = this.compaction.cancelOrStop(this.agent);
    if (said) this.notices.notice('q', 'info', said);
  }

  /** Undoes a compaction of the open session. */
  async restore(recordId: string): Promise<Outcome> {
    if (!this.agent) return { ok: false, reason: 'No session is open.' };
    const r = await this.agent.commands.restore(recordId);
    await this.postStatus();
    return r;
  }

  /** Unpins a whole message or one pinned block (the budget panel's Unpin): the chat's Pin toggle's path. */
  async unpin(kind: 'message' | 'block', id: string): Promise<Outcome> {
    if (!this.agent) return { ok: false, reason: 'No session is open.' };
    return this.agent.commands[kind === 'message' ? 'setPinned' : 'setBlockPinned'](id, false);
  }

  /** Queues a selection to go with the next message as a pinned block (never compacted). */
  pinText(pin: PinnedSelection): void {
    this.pending.pin(pin);
  }

  /** Leaves a context chip out of the next message. */
  dismissContext(key: string): void {
    this.pending.dismiss(key);
  }

  /** Posts the chips of the context that goes with the next message. */
  postPendingContext(): void {
    this.pending.post();
  }

  /**
   * Posts the header status and publishes the status bar's figures. Between turns the agent
   * first takes the settings as they resolve now (config, base URL, tool-round limit).
   */
  async postStatus(): Promise<void> {
    const resolved = this.deps.settings.pipelineConfig();
    const rt = this.runtime;
    if (resolved.ok && rt && !rt.agent.busy) this.refresh(rt, resolved.config);
    const open = this.lifecycle.current?.open;
    const r = await statusReport({
      version: this.deps.version,
      apiKeys: this.deps.apiKeys,
      settings: this.deps.settings,
      ...(rt ? { agent: rt.agent, estimator: rt.estimator, tokenizer: rt.tokenizer } : {}),
      ...(open?.title !== undefined ? { title: open.title } : {}),
      ...this.bill.figures(),
      ...(rt ? { inUseBaseUrl: rt.transport.settings.baseUrl } : {}),
    });
    // Busy as it is when posted (reports built concurrently may finish out of order), and
    // from Send on, while a message is still being prepared.
    this.deps.view.post({ ...r.status, busy: this.turns.busy || this.handoff.busy });
    if (r.figures) this.onStatus.fire(r.figures);
    this.onBudgetChanged.fire();
  }

  /** postStatus without waiting: for listeners (a failure is logged). */
  private postStatusInBackground(): void {
    inBackground(this.postStatus(), this.deps.log, 'Posting the status');
  }

  /** Reload Project Instructions: reads instructions and facts again and says in the chat what changed. */
  reloadProjectContext(): Promise<void> {
    return this.project.reload();
  }

  /** The project-context settings changed: the open session reads them again (projectReload.ts). */
  projectSettingsChanged(): Promise<void> {
    return this.project.settingsChanged();
  }

  /** Stops a running turn, closes the session and drops every listener. */
  dispose(): void {
    this.unsubscribe();
    inBackground(this.lifecycle.dispose(), this.deps.log, 'Closing the session');
    const signals = [this.onStatus, this.onCompactionsChanged, this.onBudgetChanged, this.onAgentEvent];
    for (const s of [...signals, this.onSessionOpened]) s.clear();
  }

  private get agent(): AgentSession | undefined {
    return this.runtime?.agent;
  }

  /** The open session's messages as they stand (empty before a session is open). */
  messages(): readonly Message[] {
    return this.agent?.state.messages ?? [];
  }

  private tokensOf(): TokensOf | undefined {
    const rt = this.runtime;
    return rt ? tokensOf(rt.tokenizer, rt.estimator) : undefined;
  }

  /** The agent takes the current settings: the config and what it took at build time (only between turns). */
  private refresh(rt: SessionRuntime, config: PipelineConfig): void {
    rt.agent.update({ config });
    const changed = rt.transport.apply(this.deps.settings.agent());
    if (changed.length > 0) this.deps.log.info(`Settings changed (${changed.join(', ')}): the next request uses them.`);
    rt.onConfig?.(config);
  }

  private async postAll(): Promise<void> {
    // With the turn in flight: a view that was hidden and shown again mid-answer gets it back.
    this.renderer.resync(this.messages());
    await this.postStatus();
    this.postPendingContext();
  }

  /**
   * Gives the agent the config, tools and settings, and waits for the project context (the
   * first send reads it; later ones take a reload made during a turn).
   */
  private async prepare(runtime: SessionRuntime, config: PipelineConfig): Promise<readonly ProjectNotice[]> {
    const { agent } = runtime;
    if (!agent.busy) await this.deps.toolsAtTurnBoundary?.();
    agent.update({ config, tools: this.deps.toolSchemas() });
    if (!agent.busy) this.refresh(runtime, config);
    return runtime.project.ready(agent);
  }

  private async start(open: OpenSession, config: PipelineConfig): Promise<SessionRuntime> {
    const runtime = await this.deps.agents.build(open, config, {
      onEvent: (e) => this.render(e),
      onModelLimits: () => this.postStatusInBackground(),
    });
    // Read once per session, in the background; the first send awaits it (see run) and says a failure too.
    const { project, agent } = runtime;
    const loaded = project.load().then(() => project.apply(agent) && this.onBudgetChanged.fire());
    inBackground(loaded, this.deps.log, 'Reading the project context');
    return runtime;
  }

  private opened(o: Opened): void {
    this.bill.opened(o.open);
    this.onSessionOpened.fire(o.open);
    this.onCompactionsChanged.fire();
  }

  /** Turns agent events into chat items, figures and log lines. */
  private render(e: AgentEvent): void {
    if (e.type === 'turn_started') this.turnsStarted++;
    this.onAgentEvent.fire({ event: e, state: this.agent?.state });
    if (e.type !== 'text_delta' && e.type !== 'thinking_delta') this.onBudgetChanged.fire();
    this.renderer.render(e);
    this.handoff.observe(e, this.lifecycle.current);
    logEvent(e, this.deps.log);
    // A subagent's or a summary's cost shows at once; a request's with the turn's next status.
    const billed = this.bill.observe(e);
    if (e.type === 'compaction_finished' || e.type === 'restored' || e.type === 'recalled')
      this.onCompactionsChanged.fire();
    if ((billed && e.type !== 'usage') || e.type === 'turn_finished' || e.type === 'health')
      this.postStatusInBackground();
  }
}
