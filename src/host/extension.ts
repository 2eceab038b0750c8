import * as vscode from 'vscode';
import { ApiKeyStore } from './apiKey';
import { ChatViewProvider } from './chatViewProvider';
import { notReadySummary, registerCommands } from './commands';
import { CompactionsTreeProvider } from './compactionsTree';
import { RequestPreviewer } from './requestPreview';
import { readPipelineConfig, SETTINGS_SECTION } from './settings';
import type { ChatView } from './chatViewProvider';

/**
 * Activation: wires the adapters and views. Cheap by design — the tokenizer and anything
 * heavy load on first use, not here. Every disposable goes to context.subscriptions.
 */
export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Context Pipeline', { log: true });
  const version = String((context.extension.packageJSON as { version?: unknown }).version ?? '0.0.0');
  const apiKeys = new ApiKeyStore(context.secrets);
  const previewer = new RequestPreviewer(log);

  const sendStatus = async (view: ChatView) => {
    const resolved = readPipelineConfig();
    view.post({
      type: 'status',
      version,
      model: resolved.ok ? resolved.config.model : '(invalid settings)',
      contextWindow: resolved.ok ? resolved.config.contextWindow : 0,
      outputReserve: resolved.ok ? resolved.config.outputReserve : 0,
      apiKey: await apiKeys.status(),
      warnings: resolved.ok ? [...resolved.warnings] : [resolved.error],
      notReady: notReadySummary(),
    });
  };

  const chat = new ChatViewProvider(
    context.extensionUri,
    {
      onReady: sendStatus,
      onMessage: async (message, view) => {
        switch (message.type) {
          case 'preview':
            view.post(await previewer.preview(message.requestId, message.text));
            return;
          case 'command':
            await vscode.commands.executeCommand(`contextPipeline.${message.command}`);
            return;
        }
      },
    },
    log,
  );
  const compactions = new CompactionsTreeProvider();

  context.subscriptions.push(
    log,
    chat,
    compactions,
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, chat, { webviewOptions: { retainContextWhenHidden: false } }),
    vscode.window.registerTreeDataProvider('contextPipeline.compactions', compactions),
    ...registerCommands({ apiKeys, log }),
    apiKeys.onDidChange(() => void sendStatus(chat)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SETTINGS_SECTION)) void sendStatus(chat);
    }),
  );
  log.info(`Context Pipeline activated (version ${version}).`);
}

/** Nothing to tear down beyond context.subscriptions. */
export function deactivate(): void {}
