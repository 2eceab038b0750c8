import * as vscode from 'vscode';
import { createRouter, type Handlers, type Routed } from '../app/router';
import { parseChatToHost, type ChatToHost, type ChatToWebview } from '../protocol/chat';
import { MAX_QUEUED, survivesResync } from './chat/resync';
import { SentImages } from './chat/sentImages';
import { webviewHtml, webviewRoots } from './webviewHtml';
import { headChars } from '../core/platform/text';
import { errorDetail } from '../core/text/errors';
import { toast } from './toasts';

/**
 * What the chat view asks of the rest of the extension: a handler for every message type the
 * webview sends (the compiler refuses a map that misses one); `ready` is called after the view
 * marked itself ready, to send the initial state.
 */
export type ChatViewHandlers = Handlers<ChatToHost, ChatView>;

/** The part of the chat view others may use: post a typed message. */
export interface ChatView {
  post(message: ChatToWebview): void;
}

/**
 * The chat webview in the Context Pipeline side panel. Every incoming message is validated
 * against the protocol and dropped when malformed (with a log line and a notice in the
 * chat); outgoing messages are queued (see survivesResync) until the webview has posted
 * `ready`.
 */
export class ChatViewProvider implements vscode.WebviewViewProvider, ChatView, vscode.Disposable {
  /** The view id declared in package.json. */
  static readonly viewId = 'contextPipeline.chat';
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private queue: ChatToWebview[] = [];
  /** The pasted images the current webview holds: their data is posted once (see SentImages). */
  private readonly sentImages = new SentImages();
  /** Messages refused as malformed so far (ids of their notices). */
  private refused = 0;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly route: (raw: unknown, view: ChatView) => Promise<Routed<ChatToHost>>;

  constructor(
    private readonly extensionUri: vscode.Uri,
    handlers: ChatViewHandlers,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.route = createRouter(
      parseChatToHost,
      {
        ...handlers,
        ready: async (message, view) => {
          this.ready = true;
          // A webview that (re)loaded holds no images: the transcript it is sent next carries them.
          this.sentImages.reset();
          const queued = this.queue;
          this.queue = [];
          await handlers.ready(message, view);
          for (const m of queued) this.post(m);
        },
      },
      (error) => {
        this.log.warn(`Dropped a malformed message from the chat view: ${error}`);
        // Said in the chat too: what the user sent must not vanish without a word.
        this.post({
          type: 'upsert',
          item: {
            kind: 'notice',
            id: `invalid-${++this.refused}`,
            level: 'warning',
            text: `The chat could not take that: ${headChars(error, 300)}. Nothing was sent; what you typed is in the message history (Up arrow).`,
          },
        });
      },
    );
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    if (this.view) this.log.info('The chat view was created again; the new one takes over.');
    this.view = view;
    this.ready = false;
    this.sentImages.reset();
    view.webview.options = { enableScripts: true, localResourceRoots: webviewRoots(this.extensionUri) };
    view.webview.html = webviewHtml({
      webview: view.webview,
      extensionUri: this.extensionUri,
      title: 'Context Pipeline',
      script: 'dist/webview/chat.js',
      styles: ['media/chat.css', 'media/plan.css'],
      body: '<main id="app" data-testid="chat-root" aria-live="polite"></main>',
    });
    this.disposables.push(
      view.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
      // Only this view's own end counts: a view disposed after its successor was resolved (VS
      // Code re-creating the view) must not cut the new one off.
      view.onDidDispose(() => {
        if (this.view !== view) return;
        this.view = undefined;
        this.ready = false;
      }),
    );
  }

  /** Shows the chat view without taking focus (opening the side bar container if needed). */
  reveal(): void {
    if (this.view) {
      if (!this.view.visible) this.view.show(true);
      return;
    }
    vscode.commands
      .executeCommand(`${ChatViewProvider.viewId}.focus`)
      .then(undefined, (err: unknown) => this.log.warn(`Could not reveal the chat view: ${String(err)}`));
  }

  post(message: ChatToWebview): void {
    if (!this.view || !this.ready) {
      // The webview gets its whole state again when it posts `ready` (onReady): only what that
      // resync cannot rebuild waits here — errors, notices and approvals — the newest 100 of them.
      if (survivesResync(message)) this.queue = [...this.queue, message].slice(-MAX_QUEUED);
      return;
    }
    this.view.webview.postMessage(this.sentImages.strip(message)).then(
      (delivered) => {
        // Not delivered: what it carried may be missing there, so the next posts send images whole.
        if (!delivered) this.sentImages.reset();
      },
      (err: unknown) => {
        this.sentImages.reset();
        this.log.error(`Could not post ${message.type} to the chat view: ${String(err)}`);
      },
    );
  }

  private async receive(raw: unknown): Promise<void> {
    const type = typeof raw === 'object' && raw !== null ? String((raw as { type?: unknown }).type) : 'message';
    try {
      await this.route(raw, this);
    } catch (err) {
      this.log.error(`Handling ${type} from the chat view failed: ${errorDetail(err)}`);
      toast.error(`Context Pipeline: ${type} failed — ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
