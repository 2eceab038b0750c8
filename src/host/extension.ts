import { TranscriptDocuments, TRANSCRIPT_SCHEME } from './subagents/transcriptDocument';
import { readSubagentSettings } from './subagents/subagentSettings';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { ApiKeyStore } from './apiKey';
import { BudgetPanel } from './budget/budgetPanel';
import { ChatController } from './chat/chatController';
import { chatRoutes } from './chat/chatRoutes';
import { StoreSessionPort } from './chat/storeSessionPort';
import { ChatViewProvider } from './chatViewProvider';
import { AnthropicLlmClient } from './anthropic/anthropicClient';
import { registerChooseModel } from './chooseModel';
import { registerCommands } from './commands';
import { registerCompactionCommands } from './compactionCommands';
import { CompactionsTreeProvider, RECORD_SCHEME } from './compactionsTree';
import { PREVIEW_SCHEME, PreviewDocument } from './previewDocument';
import { EditorContextTracker } from './editorContextTracker';
import { registerPinCommand } from './pinCommand';
import { RequestPreviewer } from './requestPreview';
import { showSessions } from './sessionsCommand';
import { ContextStatusBar } from './statusBar';
import { ChatApprover } from './approvals/chatApprover';
import { NextTurnContext } from './chat/nextTurnContext';
import { hostFileMentions } from './mentions/hostMentions';
import { spillWriter } from './chat/spillWriter';
import { redactingLog } from './redactingLog';
import { SessionStore } from './sessions/sessionStore';
import { inBackground } from '../core/platform/background';
import {
  noteWorkspaceCostSettings,
  PROJECT_CONTEXT_SETTINGS,
  readAgentSettings,
  readContextEngine,
  readEngineTimeoutMs,
  SETTINGS_SECTION,
} from './settings';
import { WorkspaceToolRunner } from './tools/workspaceToolRunner';
import { toolCallApprover } from './approvals/toolCallPolicy';
import { McpServers } from './mcpServers';
import { FIND_TOOLS_NAME } from '../core/tools/findTools';
import { budgetToolsSource } from './budget/toolsSource';
import type { AnyToolDefinition } from '../core/tools/toolDefinition';
import { mcpCallSettings, rememberAlwaysAllow } from './mcpSettings';
import type { ContextPipelineApi } from '../../api/context-pipeline';
import { EngineRegistry } from '../core/engine/engineRegistry';
import { contextPipelineApi } from './publicApi';
import { offerEngineMigration } from './engineMigration';
import type { AgentSession } from '../core/agent/agentSession';
import type { FileRewinder } from './rewind/fileRewinder';
import { RewindFlow } from './rewind/rewindFlow';
import { shownPath } from './rewind/checkpointStore';

/**
 * Activation: wires the adapters and views. Cheap by design — the tokenizer, the session
 * and the SDK client load on first use, not here. Every disposable goes to context.subscriptions.
 */
export function activate(context: vscode.ExtensionContext): ContextPipelineApi {
  let knownKey: string | undefined;
  // Secrets that must never be written or shown: the key in use and the environment's.
  const secrets = (): string[] =>
    [knownKey, process.env.ANTHROPIC_API_KEY?.trim(), process.env.ANTHROPIC_AUTH_TOKEN?.trim()].filter(
      (k): k is string => !!k,
    );
  const log = redactingLog(vscode.window.createOutputChannel('Context Pipeline', { log: true }), secrets);
  const version = String((context.extension.packageJSON as { version?: unknown }).version ?? '0.0.0');
  const apiKeys = new ApiKeyStore(context.secrets);
  // The chat shows approval cards; `chat` is created below and only used once a tool asks.
  const approver = new ChatApprover(
    { show: (item) => chat.post({ type: 'upsert', item }), reveal: () => chat.reveal() },
    log,
  );
  // The key in use, for redaction: read now and after each change of it.
  const learnKey = (): void =>
    inBackground(
      apiKeys.get().then((k) => (knownKey = k)),
      log,
      'Reading the API key',
    );
  learnKey();
  const store = SessionStore.inGlobalStorage(context.globalStorageUri.fsPath, {
    now: Date.now,
    random: Math.random,
    secrets,
  });
  const sessions = new StoreSessionPort(store, () => vscode.workspace.workspaceFolders?.[0]?.name ?? '');
  const tools: WorkspaceToolRunner = new WorkspaceToolRunner({
    roots: () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    approver,
    readOnlyRoots: () => {
      const dir = controller?.filesDir();
      return dir && existsSync(dir) ? [dir] : [];
    },
    runCommandEnabled: () => readAgentSettings().enableRunCommand,
    subagentsEnabled: () => readSubagentSettings().enabled,
    secrets,
    filesExclude: () => vscode.workspace.getConfiguration('files').get<Record<string, boolean>>('exclude') ?? {},
    // `mcp` is created just below; its tools are read per call and per turn, never before.
    extraTools: (): readonly AnyToolDefinition[] => mcp.definitions(),
    approveCall: toolCallApprover({
      settings: mcpCallSettings,
      ask: (proposal, signal) => approver.approveToolCall(proposal, signal),
      remember: rememberAlwaysAllow,
      log: (text) => log.info(text),
    }),
  });
  // Tool names MCP tools never shadow: the built-ins and the session's own.
  const mcp: McpServers = new McpServers(context, log, new Set([...tools.builtinNames(), FIND_TOOLS_NAME]));

  // Assigned once below; the chat view's callbacks above may run before that (hence `let`).
  // eslint-disable-next-line prefer-const
  let controller: ChatController | undefined;
  const editorContext = new EditorContextTracker();
  const nextTurn = new NextTurnContext(editorContext);
  const fileMentions = hostFileMentions(nextTurn);
  const statusBar = new ContextStatusBar();
  // The open conversation's prompt as last measured, for Choose Model's "what a switch means".
  let promptTokens = 0;
  const toolSchemas = () => tools.schemas();
  const previewer = new RequestPreviewer(
    log,
    async () => controller?.conversation(),
    toolSchemas,
    () => controller?.estimator,
    () => nextTurn.preview(controller?.sessionLabel?.id),
    () => controller?.previousBreakpoint,
    () => controller?.previewRequest,
  );
  const previewDocument = new PreviewDocument();
  const transcripts = new TranscriptDocuments(sessions);
  const chat = new ChatViewProvider(
    context.extensionUri,
    chatRoutes({
      chat: () => controller?.service,
      history: () => controller?.history,
      approver,
      previewer,
      showPreview: (p) => previewDocument.show(p),
      openSubagent: (id) => transcripts.show(id),
      log,
      mentions: fileMentions.mentions,
      rewindTo: (messageId) => rewinds.rewindTo(messageId),
    }),
    log,
  );
  const engines = new EngineRegistry();
  const rewinders = new WeakMap<AgentSession, FileRewinder>();
  const workspaceRoots = () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const rewinds = new RewindFlow(
    () => {
      const agent = controller?.service.runtime?.agent;
      return agent
        ? { messages: agent.state.messages, busy: agent.busy, commands: agent.commands, rewinder: rewinders.get(agent) }
        : undefined;
    },
    (text) => chat.post({ type: 'draft', text }),
    (ref) => shownPath(ref, (vscode.workspace.workspaceFolders?.length ?? 0) > 1),
    log,
  );
  controller = new ChatController(chat, {
    engines: { registry: engines, chosen: readContextEngine, timeoutMs: readEngineTimeoutMs },
    checkpoints: {
      roots: workspaceRoots,
      exclude: () => vscode.workspace.getConfiguration('files').get<Record<string, boolean>>('exclude') ?? {},
      rewinders,
      undo: (recordId) => rewinds.undo(recordId),
    },
    apiKeys,
    sessions,
    tools,
    toolSchemas,
    toolsAtTurnBoundary: () => mcp.atTurnBoundary(),
    pasteDirectory: (id) => join(store.dir, `${id}.files`),
    writeFile: spillWriter(secrets),
    log,
    version,
    onStatus: (figures) => {
      const engine = controller?.engineName();
      statusBar.update(engine ? { ...figures, engine } : figures);
      promptTokens = figures.promptTokens;
    },
    nextTurn,
    readFresh: (path) => tools.readFresh(path),
    toolDefinition: (name) => tools.definition(name),
    pastSession: (id) => sessions.past(id),
  });
  const compactions = new CompactionsTreeProvider(controller, (name) => tools.definition(name));
  const budgetController = controller;
  const toolsCard = budgetToolsSource(mcp, () => budgetController.toolsSession());

  context.subscriptions.push(
    log,
    chat,
    rewinds,
    controller,
    approver,
    fileMentions.files,
    mcp,
    statusBar,
    compactions,
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, chat, {
      webviewOptions: { retainContextWhenHidden: false },
    }),
    vscode.window.registerTreeDataProvider('contextPipeline.compactions', compactions),
    vscode.workspace.registerTextDocumentContentProvider(RECORD_SCHEME, compactions),
    previewDocument,
    vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, previewDocument),
    transcripts,
    vscode.workspace.registerTextDocumentContentProvider(TRANSCRIPT_SCHEME, transcripts),
    ...registerCompactionCommands(controller, log),
    ...registerCommands({ apiKeys, log }),
    registerChooseModel({
      // The Models API at the user's own endpoint (baseUrl from the user's settings only).
      listModels: async () => {
        const baseUrl = readAgentSettings().baseUrl;
        const client = new AnthropicLlmClient({ apiKey: () => apiKeys.get(), ...(baseUrl ? { baseUrl } : {}) });
        const r = await client.listModels();
        if (!r.ok)
          log.info(`Choose Model: the Models API was not reached (${r.error.message}); the known models are offered.`);
        return r.ok ? r.models : undefined;
      },
      promptTokens: () => promptTokens,
      log,
    }),
    editorContext,
    // Chips above the input follow the editor (debounced: selection events come in bursts).
    editorContext.onDidChange(debounce(() => controller?.postPendingContext(), 150)),
    registerPinCommand({ lastEditor: () => editorContext.editor, pin: (p) => controller?.pinText(p), log }),
    vscode.commands.registerCommand('contextPipeline.showBudget', () =>
      BudgetPanel.show(context.extensionUri, budgetController, log, toolsCard),
    ),
    vscode.window.registerWebviewPanelSerializer(BudgetPanel.viewType, {
      deserializeWebviewPanel: async (panel) =>
        BudgetPanel.revive(panel, context.extensionUri, budgetController, log, toolsCard),
    }),
    vscode.commands.registerCommand('contextPipeline.newSession', () => controller?.newSession()),
    vscode.commands.registerCommand('contextPipeline.handoff', (instructions?: unknown) =>
      controller?.service.handoff.run(typeof instructions === 'string' ? instructions : undefined),
    ),
    vscode.commands.registerCommand('contextPipeline.reloadProjectContext', () => controller?.reloadProjectContext()),
    // Instructions and workspace facts follow their settings without a Reload.
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SETTINGS_SECTION)) noteWorkspaceCostSettings(log);
      if (PROJECT_CONTEXT_SETTINGS.some((key) => e.affectsConfiguration(key)))
        controller
          ?.projectSettingsChanged()
          .catch((err: unknown) =>
            log.error('Reloading the project context after a settings change failed.', { error: String(err) }),
          );
    }),
    vscode.commands.registerCommand('contextPipeline.showSessions', () => showSessions(store, controller, log)),
    apiKeys.onDidChange(() => {
      learnKey();
      if (controller) inBackground(controller.postStatus(), log, 'Posting the status');
    }),
  );
  // A workspace's cost settings are said once (a few reads; the message does not block).
  noteWorkspaceCostSettings(log);
  inBackground(offerEngineMigration(log), log, 'Offering the context engine setting');
  log.info(`Context Pipeline activated (version ${version}).`);
  return contextPipelineApi(engines, log);
}

/** Calls `fn` once calls have paused for `ms`. */
function debounce(fn: () => void, ms: number): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(fn, ms);
  };
}

/** Nothing to tear down beyond context.subscriptions (which stop a running turn and close the session). */
export function deactivate(): void {}
