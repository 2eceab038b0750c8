import * as vscode from 'vscode';
import { createRouter, type Routed } from '../../app/router';
import { parseBudgetToHost, type BudgetToHost, type BudgetTools, type BudgetToWebview } from '../../protocol/budget';
import type { ChatController } from '../chat/chatController';
import { webviewHtml, webviewRoots } from '../webviewHtml';
import { errorDetail } from '../../core/text/errors';
import { toast } from '../toasts';

/** The Tools card's source: the report, its changes, and what its buttons and switches do. */
export interface BudgetToolsSource {
  report(): BudgetTools;
  onDidChange(listener: () => void): vscode.Disposable;
  /** A server's button: on or off for the session, a fresh start, or its approval asked again. */
  serverAction(action: 'enable' | 'disable' | 'retry' | 'approve', server: string): Promise<void>;
  /** One tool (the server's own name) on or off for the session, from the next message. */
  toolSwitch(server: string, tool: string, enabled: boolean): void;
}

/** Least time between two snapshots posted to the panel. */
const THROTTLE_MS = 500;

/**
 * The Context Budget panel: an editor-area webview that shows where the window goes, how the
 * estimates compare with what the API reported, the request history, the last request's
 * ledger and its diff, what is pinned (with Unpin), compactions (with Restore) and a forecast.
 * Updated live, throttled.
 */
export class BudgetPanel implements vscode.Disposable {
  static readonly viewType = 'contextPipeline.budget';
  private static current: BudgetPanel | undefined;
  private ready = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastPost = 0;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly route: (raw: unknown) => Promise<Routed<BudgetToHost>>;

  /** Opens (or reveals) the panel. */
  static show(
    extensionUri: vscode.Uri,
    controller: ChatController,
    log: vscode.LogOutputChannel,
    tools?: BudgetToolsSource,
  ): void {
    if (BudgetPanel.current) {
      BudgetPanel.current.panel.reveal();
      BudgetPanel.current.schedule();
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      BudgetPanel.viewType,
      'Context Budget',
      vscode.ViewColumn.Active,
      BudgetPanel.options(extensionUri),
    );
    BudgetPanel.current = new BudgetPanel(panel, extensionUri, controller, log, tools);
  }

  /** Restores a panel VS Code kept across a reload. */
  static revive(
    panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    controller: ChatController,
    log: vscode.LogOutputChannel,
    tools?: BudgetToolsSource,
  ): void {
    BudgetPanel.current?.dispose();
    panel.webview.options = BudgetPanel.options(extensionUri);
    BudgetPanel.current = new BudgetPanel(panel, extensionUri, controller, log, tools);
  }

  private static options(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return { enableScripts: true, localResourceRoots: webviewRoots(extensionUri), retainContextWhenHidden: false };
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly controller: ChatController,
    private readonly log: vscode.LogOutputChannel,
    private readonly tools?: BudgetToolsSource,
  ) {
    this.route = createRouter(
      parseBudgetToHost,
      {
        ready: () => this.onReady(),
        unpin: (m) => this.unpin(m.kind, m.id),
        restore: (m) => this.restore(m.id),
        mcpServer: async (m) => {
          await this.tools?.serverAction(m.action, m.server);
          this.schedule();
        },
        mcpTool: (m) => {
          this.tools?.toolSwitch(m.server, m.tool, m.enabled);
          this.schedule();
        },
      },
      (error) => this.log.warn(`Dropped a malformed message from the budget panel: ${error}`),
    );
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'icon.svg');
    panel.webview.html = webviewHtml({
      webview: panel.webview,
      extensionUri,
      title: 'Context Budget',
      script: 'dist/webview/budget.js',
      // uPlot's stylesheet, bundled from the package by esbuild, then the panel's own.
      styles: ['dist/webview/budget.css', 'media/budget.css'],
      body: '<main id="app" data-testid="budget-root" aria-live="polite"></main>',
    });
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      panel.onDidDispose(() => this.dispose()),
      panel.onDidChangeViewState(() => {
        if (panel.visible) this.schedule();
      }),
      controller.onDidChangeBudget(() => this.schedule()),
      ...(tools ? [tools.onDidChange(() => this.schedule())] : []),
      controller.onDidChangeCompactions(() => this.schedule()),
    );
  }

  /** Posts a snapshot now, or at the end of the throttle window. */
  private schedule(): void {
    if (!this.ready || this.timer) return;
    const wait = Math.max(0, this.lastPost + THROTTLE_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.lastPost = Date.now();
      this.postSnapshot();
    }, wait);
  }

  private postSnapshot(): void {
    let message: BudgetToWebview;
    try {
      message = this.controller.budgetSnapshot() ?? {
        type: 'empty',
        reason: 'No session is open yet: send a message in the Context Pipeline chat.',
      };
    } catch (err) {
      this.log.error(`Building the budget snapshot failed: ${errorDetail(err)}`);
      return;
    }
    this.post(message);
    if (this.tools) {
      try {
        this.post(this.tools.report());
      } catch (err) {
        this.log.error(`Building the Tools card failed: ${errorDetail(err)}`);
      }
    }
  }

  private post(message: BudgetToWebview): void {
    this.panel.webview
      .postMessage(message)
      .then(undefined, (err: unknown) =>
        this.log.error(`Could not post ${message.type} to the budget panel: ${String(err)}`),
      );
  }

  /** Handles a message from the panel; a failure is logged and shown in the panel, never lost. */
  private async receive(raw: unknown): Promise<void> {
    try {
      await this.route(raw);
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      this.log.error(
        `Handling a message from the budget panel failed: ${err instanceof Error ? (err.stack ?? text) : text}`,
      );
      this.post({ type: 'notice', level: 'warning', text: `That did not work: ${text}` });
      this.schedule();
    }
  }

  private async onReady(): Promise<void> {
    this.ready = true;
    // The session opens on demand; the panel may be the first to ask.
    await this.controller
      .conversation()
      .catch((err: unknown) => this.log.warn(`The budget panel could not open the session: ${String(err)}`));
    this.lastPost = 0;
    this.schedule();
  }

  private async unpin(kind: 'message' | 'block', id: string): Promise<void> {
    // The same core path as the chat's Pin toggle; the chat re-renders from the agent's event.
    const r = await this.controller.unpin(kind, id);
    if (!r.ok) this.post({ type: 'notice', level: 'warning', text: `Could not unpin: ${r.reason}` });
    this.schedule();
  }

  private async restore(id: string): Promise<void> {
    // Same semantics as Restore in the Compactions tree: the agent refuses when it cannot.
    const r = await this.controller.restore(id);
    if (r.ok) toast.info('Context Pipeline: the original messages are back in the conversation.');
    else toast.warn(`Context Pipeline: could not restore — ${r.reason}`);
    this.schedule();
  }

  /** Closes the panel and releases its listeners. */
  dispose(): void {
    if (BudgetPanel.current === this) BudgetPanel.current = undefined;
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }
}
