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
        readonly userTurns: {
          retryLast(messageId: string): Promise<void>;
          editLast(messageId: string, text: string, images?: readonly ImageAttachment[]): Promise<void>;
        };
        pin(messageId: string, pinned: boolean): Promise<void>;
        clearPlan(): Promise<void>;
        resume(id: string): Promise<void>;
        dismissContext(key: string): void;
        postPendingContext(): void;
      }
    | undefined;
  /** The `@` mentions of the composer: matching files, and attaching the one chosen. */
  readonly mentions: {
    query(query: string): Promise<ReadonlyArray<{ readonly path: string; readonly kind: 'file' }>>;
    attach(path: string): Promise<boolean>;
    /** Resolves once the files asked to be attached so far are read (or refused). */
    settled(): Promise<void>;
  };
  /** Answers what the chat asks of the compacted history (a group's items, a cleared result). */
  readonly history: () => { openCompacted(id: string): void; openClearedResult(toolUseId: string): void } | undefined;
  readonly approver: ChatApprover;
  readonly previewer: RequestPreviewer;
  /** Opens a subagent's transcript (its child session) read-only in an editor tab. */
  readonly openSubagent: (sessionId: string) => Promise<void>;
  /** Opens a built preview in an editor tab (focused). */
  readonly showPreview: (preview: PreviewOk) => Promise<void>;
  readonly log: vscode.LogOutputChannel;
  /** Rewind to here on one of the user's messages: asks what to rewind, then does it (rewindFlow.ts). */
  readonly rewindTo: (messageId: string) => Promise<void>;
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
    // A file chosen with `@` just before Send goes with this message.
    send: async (m) => {
      await deps.mentions.settled();
      await deps.chat()?.send(m.text, m.images ?? []);
    },
    stop: () => deps.chat()?.stop(),
    retry: () => deps.chat()?.retry(),
    retryLast: (m) => deps.chat()?.userTurns.retryLast(m.messageId),
    editLast: (m) => deps.chat()?.userTurns.editLast(m.messageId, m.text, m.images ?? []),
    rewindTo: (m) => deps.rewindTo(m.messageId),
    pin: (m) => deps.chat()?.pin(m.messageId, m.pinned),
    clearPlan: () => deps.chat()?.clearPlan(),
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
      else if (m.name === 'handoff') await vscode.commands.executeCommand('contextPipeline.handoff', m.arg.trim());
      else if (m.name === 'new') await vscode.commands.executeCommand('contextPipeline.newSession');
      else await vscode.commands.executeCommand('contextPipeline.pinSelection');
    },
    openLink: (m) => openChatLink(m.href, log),
    copy: (m) => copyToClipboard(m.text),
    mentionQuery: async (m, view) =>
      view.post({ type: 'mentionResults', requestId: m.requestId, items: [...(await deps.mentions.query(m.query))] }),
    // The chip (attached, or why not) shows with the next pending context.
    attachFile: async (m) => {
      await deps.mentions.attach(m.path);
      deps.chat()?.postPendingContext();
    },
    approval: (m) => approver.answer(m.id, m.approved, m.reason, m.remember),
    openDiff: (m) => approver.openDiff(m.id),
    openCompacted: (m) => deps.history()?.openCompacted(m.compactionId),
    openClearedResult: (m) => deps.history()?.openClearedResult(m.toolUseId),
    openSubagent: (m) => deps.openSubagent(m.sessionId),
    // The old session of a handoff's card: the chat switches to it (it stays as it was left).
    openSession: (m) => deps.chat()?.resume(m.sessionId),
  };
}
