/**
 * The chat webview's handler map: one handler per message type of the protocol (the compiler
 * refuses a map that misses one), each a thin call into the chat service or a VS Code command.
 */
import * as vscode from 'vscode';
import type { ImageAttachment } from '../../protocol/chat';
import type { ChatViewHandlers } from '../chatViewProvider';
import type { ChatApprover } from '../approvals/chatApprover';
import type { RequestPreviewer } from '../requestPreview';
import type { PreviewOk } from '../requestPreviewText';
import { copyToClipboard, openChatLink } from './linkHandler';

/** What the chat's handlers call. */
export interface ChatRouteDeps {
  /** The chat service; undefined only while activation is still wiring it. */
  readonly chat: () =>
    | {
        onReady(): Promise<void>;
        send(text: string, images?: readonly ImageAttachment[]): Promise<void>;
        stop(): void;
        retry(): Promise<void>;
        pin(messageId: string, pinned: boolean): Promise<void>;
        dismissContext(key: string): void;
      }
    | undefined;
  readonly approver: ChatApprover;
  readonly previewer: RequestPreviewer;
  /** Opens a built preview in an editor tab (focused). */
  readonly showPreview: (preview: PreviewOk) => Promise<void>;
  readonly log: vscode.LogOutputChannel;
}

/** The handler of each message the chat webview may send. */
export function chatRoutes(deps: ChatRouteDeps): ChatViewHandlers {
  const { approver, previewer, log } = deps;
  return {
    ready: async (_m, view) => {
      await deps.chat()?.onReady();
      // Prompts still waiting for an answer come back after the view was hidden or reloaded.
      for (const item of approver.pending()) view.post({ type: 'upsert', item });
    },
    send: (m) => deps.chat()?.send(m.text, m.images ?? []),
    stop: () => deps.chat()?.stop(),
    retry: () => deps.chat()?.retry(),
    pin: (m) => deps.chat()?.pin(m.messageId, m.pinned),
    dismissContext: (m) => deps.chat()?.dismissContext(m.key),
    preview: async (m, view) => {
      const result = await previewer.preview(m.requestId, m.text, m.images ?? []);
      view.post(result);
      if (result.ok) await deps.showPreview(result);
    },
    command: async (m) => {
      if (m.command === 'openBaseUrlSetting')
        await vscode.commands.executeCommand('workbench.action.openSettings', 'contextPipeline.baseUrl');
      else await vscode.commands.executeCommand(`contextPipeline.${m.command}`);
    },
    // The same commands as the palette, so they go through the same checks and approvals.
    slash: async (m) => {
      if (m.name === 'compact') await vscode.commands.executeCommand('contextPipeline.compactNow', m.arg.trim());
      else if (m.name === 'new') await vscode.commands.executeCommand('contextPipeline.newSession');
      else await vscode.commands.executeCommand('contextPipeline.pinSelection');
    },
    openLink: (m) => openChatLink(m.href, log),
    copy: (m) => copyToClipboard(m.text),
    approval: (m) => approver.answer(m.id, m.approved, m.reason, m.remember),
    openDiff: (m) => approver.openDiff(m.id),
  };
}
