import { addCosts, formatUsd } from '../../core/agent/cost';
import * as vscode from 'vscode';
import type { ToolRunner } from '../../core/agent/agentPorts';
import type { AgentSession, CompactionEntryState } from '../../core/agent/agentSession';
import type { Compactor } from '../../core/compaction/compactor';
import type { ReadFresh } from '../../core/compaction/reattach';
import { describeRepairs } from '../../core/normalize/normalize';
import { applyCalibration } from '../../core/tokens/calibration';
import { messageRawTokens } from '../../core/tokens/blockTokens';
import type { AgentEvent } from '../../core/agent/events';
import type { ConversationState, Injection, Message, ToolSchema } from '../../core/conversation/conversationModel';
import { counterIds, type Clock, type Tokenizer } from '../../core/platform/platformPorts';
import { sessionDisplayTitle } from '../../core/session/markdown';
import { toWellFormed } from '../../core/platform/text';
import type { TokenEstimator } from '../../core/tokens/estimator';
import type { ChatToHost } from '../../protocol/chat';
import type { BudgetSnapshot } from '../../protocol/budget';
import { BudgetHistory, buildBudgetSnapshot } from '../budget/budgetData';
import type { ApiKeyStore } from '../apiKey';
import type { ChatView } from '../chatViewProvider';
import { readEditorContextSettings, readPipelineConfig } from '../settings';
import { loadTokenizer } from '../tokenizerLoader';
import type { ProjectContextSession, ProjectNotice } from '../projectContext/projectContextSession';
import { createProjectContext } from '../projectContext/vscodeProjectContext';
import type { ContextFigures } from '../statusBar';
import type { NextTurnContext } from './nextTurnContext';
import { buildAgent } from './agentFactory';
import type { OpenSession, SessionPort } from './sessionPort';
import { TranscriptRenderer } from './transcriptRenderer';
import { transcriptOf, type TokensOf } from './transcript';
import { statusReport } from './statusReport';

const clock: Clock = { now: () => Date.now() };

/** What the controller needs from the extension. */
export interface ChatControllerDeps {
  readonly apiKeys: ApiKeyStore;
  readonly sessions: SessionPort;
  readonly tools: ToolRunner;
  readonly toolSchemas: () => readonly ToolSchema[];
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
}

/**
 * Connects the chat view to an agent session: opens (or creates) the durable session,
 * turns the user's messages into turns, and renders the turn's events as chat items.
 */
export class ChatController implements vscode.Disposable {
  private readonly compactionsChanged = new vscode.EventEmitter<void>();
  /** Fires when compactions were added or restored, or the session changed (for the tree). */
  readonly onDidChangeCompactions = this.compactionsChanged.event;
  private readonly budgetChanged = new vscode.EventEmitter<void>();
  /** Fires when what the budget panel shows may have changed (status posted, a turn event). */
  readonly onDidChangeBudget = this.budgetChanged.event;
  private budgetHistory = new BudgetHistory();
  private tokenizerValue: Tokenizer | undefined;
  private agent: AgentSession | undefined;
  private open: OpenSession | undefined;
  private opening: Promise<void> | undefined;
  private compactor: Compactor | undefined;
  private estimatorValue: TokenEstimator | undefined;
  /** The open session's project context (instructions, workspace facts, nested instructions). */
  private project: ProjectContextSession | undefined;
  private noticeCount = 0;
  private readonly renderer: TranscriptRenderer;
  /** Undefined once a request's price is unknown. */
  private costUsd: number | undefined = 0;
  private promptTokens = 0;

  constructor(
    private readonly view: ChatView,
    private readonly deps: ChatControllerDeps,
  ) {
    this.renderer = new TranscriptRenderer(view, () => this.tokensOf());
  }

  /** The webview (re)loaded: send status and the whole transcript. */
  async onReady(): Promise<void> {
    await this.ensureSession();
    this.view.post({ type: 'transcript', items: transcriptOf(this.currentMessages(), this.tokensOf()) });
    await this.postStatus();
    this.postPendingContext();
  }

  /** Handles a validated message from the webview. */
  async onMessage(message: Exclude<ChatToHost, { type: 'ready' | 'preview' | 'command' }>): Promise<void> {
    switch (message.type) {
      case 'send':
        // A lone surrogate would be stored and resent with every later request, which the API rejects.
        return this.send(toWellFormed(message.text));
      case 'stop':
        this.agent?.stop();
        return;
      case 'retry':
        return this.run(async (agent) => agent.retry());
      case 'pin': {
        const r = (await this.agent?.setPinned(message.messageId, message.pinned)) ?? {
          ok: false as const,
          reason: 'No session is open.',
        };
        if (!r.ok)
          this.view.post({
            type: 'upsert',
            item: { kind: 'notice', id: `p-${Date.now()}`, level: 'warning', text: r.reason },
          });
        else this.budgetChanged.fire();
        return;
      }
    }
  }

  /** Starts a fresh session (the old one stays on disk). */
  async newSession(): Promise<void> {
    // A session still opening (the view just loaded) finishes first, so two never race.
    await this.opening;
    if (this.agent?.busy) {
      void vscode.window.showWarningMessage('Context Pipeline: stop the running turn before starting a new session.');
      return;
    }
    await this.open?.close();
    this.agent = undefined;
    this.open = undefined;
    this.opening = this.startSession(true);
    await this.opening;
    this.view.post({ type: 'transcript', items: [] });
    await this.postStatus();
    this.postPendingContext();
  }

  /** Folder of the open session's saved pastes and tool outputs (read_file may read it). */
  filesDir(): string | undefined {
    return this.open ? this.deps.pasteDirectory(this.open.id) : undefined;
  }

  /** The open session's compactions (empty before a session is open). */
  get compactions(): readonly CompactionEntryState[] {
    return this.agent?.compactions ?? [];
  }

  /** The open session's id and display title. */
  get sessionLabel(): { id: string; title: string } | undefined {
    return this.open
      ? { id: this.open.id, title: sessionDisplayTitle(this.open.title, this.currentMessages()) || 'New session' }
      : undefined;
  }

  /** What Compact Now would do, for the confirmation prompt. */
  async compactionPreview() {
    await this.ensureSession();
    return this.agent && this.compactor ? this.compactor.preview(this.agent.state) : undefined;
  }

  /** Compacts now (queued until the running turn ends); resolves with the outcome. */
  async compactNow(instructions?: string): Promise<{ ok: true } | { ok: false; reason: string }> {
    await this.ensureSession();
    if (!this.agent) return { ok: false, reason: 'No session is open.' };
    const resolved = readPipelineConfig();
    if (resolved.ok && !this.agent.busy) this.agent.update({ config: resolved.config });
    const r = await this.agent.compactNow(instructions);
    await this.postStatus();
    return r;
  }

  /** Drops a Compact Now that waits for the running turn. */
  cancelQueuedCompaction(): void {
    if (this.agent?.cancelQueuedCompaction())
      this.view.post({
        type: 'upsert',
        item: { kind: 'notice', id: `q-${Date.now()}`, level: 'info', text: 'Queued compaction cancelled.' },
      });
  }

  /** Undoes a compaction of the open session. */
  async restore(recordId: string): Promise<{ ok: true } | { ok: false; reason: string }> {
    if (!this.agent) return { ok: false, reason: 'No session is open.' };
    const r = await this.agent.restore(recordId);
    await this.postStatus();
    return r;
  }

  /** Unpins a whole message or one pinned block (the budget panel's Unpin): the chat's Pin toggle's path. */
  async unpin(kind: 'message' | 'block', id: string): Promise<{ ok: true } | { ok: false; reason: string }> {
    if (!this.agent) return { ok: false, reason: 'No session is open.' };
    return kind === 'message' ? this.agent.setPinned(id, false) : this.agent.setBlockPinned(id, false);
  }

  /** Switches to another stored session. */
  async resume(id: string): Promise<void> {
    await this.opening;
    if (this.agent?.busy) {
      void vscode.window.showWarningMessage('Context Pipeline: stop the running turn before switching sessions.');
      return;
    }
    if (this.open?.id === id) return;
    const r = await this.deps.sessions.open(id);
    if (!r.ok) {
      void vscode.window.showErrorMessage(`Context Pipeline: could not open the session: ${r.error}`);
      return;
    }
    await this.open?.close();
    this.agent = undefined;
    this.open = undefined;
    this.opening = this.startSession(false, r.session);
    await this.opening;
    this.view.post({ type: 'transcript', items: transcriptOf(this.currentMessages(), this.tokensOf()) });
    await this.postStatus();
    this.postPendingContext();
  }

  /** The open session's conversation (opening the latest session if none is open yet). */
  async conversation(): Promise<ConversationState | undefined> {
    await this.ensureSession();
    return this.agent?.state;
  }

  /** The open session's estimator (anchored on its last reported usage), for previews. */
  get estimator(): TokenEstimator | undefined {
    return this.estimatorValue;
  }

  /** What the Context Budget panel shows for the open session (undefined before one is open). */
  budgetSnapshot(): BudgetSnapshot | undefined {
    const agent = this.agent;
    if (!agent || !this.tokenizerValue || !this.estimatorValue) return undefined;
    return buildBudgetSnapshot({
      session: this.sessionLabel?.title ?? '',
      state: agent.state,
      tokenizer: this.tokenizerValue,
      estimator: this.estimatorValue,
      history: this.budgetHistory,
      compactions: agent.compactions,
      busy: agent.busy,
      ...windowSourceOf(readPipelineConfig()),
      ...(this.compactor ? { plan: this.compactor.plan(agent.state, { cacheWarm: true, mode: 'auto' }) } : {}),
    });
  }

  /** Calibrated tokens of a message with the session's tokenizer and calibration (undefined before a session is open). */
  private tokensOf(): TokensOf | undefined {
    const tokenizer = this.tokenizerValue;
    const estimator = this.estimatorValue;
    if (!tokenizer || !estimator) return undefined;
    const count: TokensOf = Object.assign(
      (m: Message) => applyCalibration(estimator.calibration, messageRawTokens(m, tokenizer)),
      {
        text: (text: string) => applyCalibration(estimator.calibration, { text: tokenizer.count(text), fixed: 0 }),
      },
    );
    return count;
  }

  private currentMessages() {
    return this.agent?.state.messages ?? [];
  }

  /** Posts the header status (and the status bar's figures). */
  async postStatus(): Promise<void> {
    // One resolved config for the header, the status bar and the budget panel: between turns the
    // agent takes the settings as they resolve now (e.g. once the Models API's window arrived).
    const resolved = readPipelineConfig();
    if (resolved.ok && this.agent && !this.agent.busy) this.agent.update({ config: resolved.config });
    const r = await statusReport({
      version: this.deps.version,
      apiKeys: this.deps.apiKeys,
      ...(this.agent ? { agent: this.agent } : {}),
      ...(this.estimatorValue ? { estimator: this.estimatorValue } : {}),
      ...(this.tokenizerValue ? { tokenizer: this.tokenizerValue } : {}),
      ...(this.open?.title !== undefined ? { title: this.open.title } : {}),
      promptTokens: this.promptTokens,
      costUsd: this.costUsd,
    });
    this.view.post(r.status);
    if (r.figures) this.deps.onStatus?.(r.figures);
    this.budgetChanged.fire();
  }

  private async send(text: string): Promise<void> {
    await this.run(async (agent) => {
      const taken = this.deps.nextTurn.take(this.open?.id);
      let sent = false;
      try {
        agent.setPending(taken.injections);
        this.postPendingContext();
        const result = await agent.send(text);
        sent = result.ok;
        return result;
      } finally {
        // Not sent (refused or failed): the pins and dismissed chips wait for the next message.
        taken.settle(sent);
        this.postPendingContext();
      }
    });
  }

  /** Queues a selection to go with the next message as a pinned block (never compacted). */
  pinText(pin: { path: string; startLine: number; endLine: number; text: string; truncatedChars?: number }): void {
    const injection: Extract<Injection, { kind: 'ide_selection' }> = {
      kind: 'ide_selection',
      ...pin,
      path: toWellFormed(pin.path),
      text: toWellFormed(pin.text),
      pinned: true,
    };
    this.deps.nextTurn.pin(injection);
    this.postPendingContext();
    const lines = pin.endLine - pin.startLine + 1;
    this.deps.log.info(`Pinned lines ${pin.startLine}–${pin.endLine} of ${pin.path} for the next message.`);
    void vscode.window.showInformationMessage(
      `Pinned ${lines} ${lines === 1 ? 'line' : 'lines'} of ${pin.path}; they go with your next message and are never compacted.`,
    );
  }

  /** Leaves a context chip out of the next message. */
  dismissContext(key: string): void {
    this.deps.nextTurn.dismiss(key);
    this.postPendingContext();
  }

  /** Posts the chips of the context that goes with the next message. */
  postPendingContext(): void {
    const counter = this.tokensOf();
    const count = (text: string) => (counter ? counter.text(text) : Math.ceil(text.length / 4));
    const settings = readEditorContextSettings();
    const disabled = [
      ...(settings.selection ? [] : ['ide_selection' as const]),
      ...(settings.openedFile ? [] : ['ide_opened_file' as const]),
    ];
    this.view.post({ type: 'pendingContext', chips: this.deps.nextTurn.chips(this.open?.id, count), disabled });
  }

  private async run(
    action: (agent: AgentSession) => Promise<{ ok: true } | { ok: false; reason: string }>,
  ): Promise<void> {
    const resolved = readPipelineConfig();
    if (!resolved.ok) {
      this.view.post({
        type: 'upsert',
        item: {
          kind: 'error',
          id: `err-${Date.now()}`,
          text: `${resolved.error} Change it in Settings (contextPipeline.*); your message was not sent.`,
          retryable: false,
        },
      });
      return;
    }
    await this.ensureSession();
    const agent = this.agent;
    if (!agent) {
      this.view.post({
        type: 'upsert',
        item: {
          kind: 'error',
          id: `err-${Date.now()}`,
          text: 'No session could be opened; see the "Context Pipeline" output for why. Your message was not sent.',
          retryable: false,
        },
      });
      return;
    }
    agent.update({ config: resolved.config, tools: this.deps.toolSchemas() });
    // The first send waits for the project context; later ones take a reload made during a turn.
    if (this.project) this.postNotices(await this.project.ready(agent));
    const started = action(agent);
    await this.postStatus();
    const result = await started;
    if (!result.ok)
      this.view.post({
        type: 'upsert',
        item: { kind: 'notice', id: `n-${Date.now()}`, level: 'warning', text: result.reason },
      });
    await this.postStatus();
  }

  private async ensureSession(): Promise<void> {
    if (this.agent) return;
    this.opening ??= this.startSession(false)
      .catch((err: unknown) => {
        // Reported, not swallowed: the next message tries again (e.g. after the disk or settings are fixed).
        this.deps.log.error(
          `Could not open a session: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
        );
        void vscode.window.showErrorMessage(
          `Context Pipeline could not open a session: ${err instanceof Error ? err.message : String(err)}`,
        );
      })
      .finally(() => {
        this.opening = undefined;
      });
    await this.opening;
  }

  private async startSession(fresh: boolean, given?: OpenSession): Promise<void> {
    const resolved = readPipelineConfig();
    const config = resolved.ok ? resolved.config : undefined;
    if (!config) return;
    const open =
      given ??
      (fresh
        ? await this.deps.sessions.create(config.model)
        : ((await this.deps.sessions.openLatest()) ?? (await this.deps.sessions.create(config.model))));
    for (const r of open.repairs) this.deps.log.warn(`Session ${open.id}: ${r}`);
    if (open.repairs.length > 0)
      void vscode.window.showWarningMessage(`Context Pipeline repaired the session file: ${open.repairs.join(' ')}`);
    const loaded = await loadTokenizer();
    if (loaded.fallbackReason) this.deps.log.warn(`Tokenizer fell back to chars/4: ${loaded.fallbackReason}`);
    this.tokenizerValue = loaded.tokenizer;
    this.budgetHistory = new BudgetHistory(open.requestHistory);
    const project = createProjectContext({
      clock,
      ids: counterIds(`${open.id.slice(-6)}p${Date.now().toString(36)}`),
      tokenizer: loaded.tokenizer,
      log: (t) => this.deps.log.info(t),
    });
    project.seed(open.messages);
    const built = buildAgent(
      open,
      config,
      loaded.tokenizer,
      { ...this.deps, clock, onModelLimits: () => void this.postStatus() },
      (e) => this.render(e),
      (calls) => project.afterTools(calls),
    );
    this.project = project;
    // Read once per session, in the background; the first send awaits it (see run).
    void project.load().then(() => project.apply(built.agent) && this.budgetChanged.fire());
    this.estimatorValue = built.estimator;
    this.compactor = built.compactor;
    this.open = open;
    this.costUsd = open.costUsd;
    this.promptTokens = open.lastPromptTokens;
    this.agent = built.agent;
    this.opening = undefined;
    this.compactionsChanged.fire();
  }

  /** Reload Project Instructions: reads instructions and facts again and says in the chat what changed. */
  async reloadProjectContext(): Promise<void> {
    await this.ensureSession();
    if (!this.agent || !this.project)
      return void vscode.window.showWarningMessage('Context Pipeline: no session is open.');
    this.postNotices(await this.project.reload(this.agent));
    await this.postStatus();
  }

  private postNotices(notices: readonly ProjectNotice[]): void {
    for (const n of notices)
      this.view.post({
        type: 'upsert',
        item: { kind: 'notice', id: `ctx-${Date.now()}-${++this.noticeCount}`, level: n.level, text: n.text },
      });
  }

  /** Turns agent events into chat items. */
  private render(e: AgentEvent): void {
    this.budgetHistory.observe(e, this.agent?.state);
    if (e.type !== 'text_delta' && e.type !== 'thinking_delta') this.budgetChanged.fire();
    this.renderer.render(e);
    switch (e.type) {
      case 'request_started':
        if (e.repairs && e.repairs.length > 0 && e.attempt <= 1)
          this.deps.log.warn(`${describeRepairs(e.repairs) ?? ''} ${e.repairs.map((r) => r.detail).join(' ')}`);
        return;
      case 'usage':
        this.costUsd = addCosts(this.costUsd, e.costUsd);
        this.promptTokens = e.reportedTokens;
        this.deps.log.info(
          `Request ${e.requestId ?? ''}: ${e.reportedTokens} prompt tokens reported (estimated ${e.estimatedTokens}), ${e.costUsd === undefined ? `price of ${e.model} unknown` : formatUsd(e.costUsd)}.`,
        );
        return;
      case 'error':
        this.deps.log.error(`Turn failed: ${e.error.kind}: ${e.error.message}`);
        return;
      case 'compaction_finished':
        for (const r of e.records)
          this.deps.log.info(
            `Compaction ${r.id} (${r.trigger}, ${r.layer}): ${r.tokensBefore} → ${r.tokensAfter} tokens${r.fallbacks.length ? `; fallbacks: ${r.fallbacks.join('; ')}` : ''}.`,
          );
        this.compactionsChanged.fire();
        return;
      case 'restored':
      case 'recalled':
        this.compactionsChanged.fire();
        return;
      case 'turn_finished':
      case 'health':
        void this.postStatus();
        return;
      default:
        return;
    }
  }

  dispose(): void {
    this.compactionsChanged.dispose();
    this.budgetChanged.dispose();
    this.agent?.stop();
    void this.open?.close();
  }
}

/** The window's source of a resolved config, for the budget panel. */
function windowSourceOf(r: ReturnType<typeof readPipelineConfig>): {
  windowSource?: 'setting' | 'models-api' | 'table' | 'assumed';
} {
  return r.ok ? { windowSource: r.windowSource } : {};
}
