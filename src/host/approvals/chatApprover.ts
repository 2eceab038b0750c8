/**
 * The Approver the agent's tools use: asks in the chat, inline. An edit is shown as a diff
 * card (and in VS Code's diff editor beside it, read-only virtual documents, without taking
 * focus); a command as a card with its folder. The answer comes back from the webview as a
 * validated `approval` message and only settles a prompt that is still pending.
 */
import * as vscode from 'vscode';
import type { ApprovalDecision, Approver, CommandProposal, EditProposal, ToolCallProposal } from './approval';
import { commandApprovalItem, editApprovalItem, type ApprovalItem } from './approvalCard';
import { toolCallApprovalItem } from './toolCallCard';
import { PendingApprovals } from './pendingApprovals';

/** URI scheme of the read-only documents the diff editor shows. */
export const PROPOSED_SCHEME = 'context-pipeline-proposed';

/** Where the approver shows its cards. */
export interface ApprovalSurface {
  /** Shows or updates an approval card in the chat. */
  show(item: ApprovalItem): void;
  /** Brings the chat into view (without taking focus) so a prompt is not missed. */
  reveal(): void;
}

interface DiffPair {
  readonly left: vscode.Uri;
  readonly right: vscode.Uri;
  readonly title: string;
}

/** Inline approvals in the chat, with the diff editor as a companion view for edits. */
export class ChatApprover implements Approver, vscode.Disposable {
  private readonly documents = new Map<string, string>();
  private readonly diffs = new Map<string, DiffPair>();
  private readonly registration: vscode.Disposable;
  private readonly prompts: PendingApprovals;
  private nextId = 0;

  constructor(
    private readonly surface: ApprovalSurface,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.prompts = new PendingApprovals((item) => surface.show(item));
    const provider: vscode.TextDocumentContentProvider = {
      provideTextDocumentContent: (uri) => this.documents.get(uri.toString()) ?? '',
    };
    this.registration = vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, provider);
  }

  /** Shows the edit's diff in the chat and the diff editor, and waits for Apply or Reject. */
  async approveEdit(proposal: EditProposal, signal: AbortSignal): Promise<ApprovalDecision> {
    const id = `approval-${Date.now().toString(36)}-${this.nextId++}`;
    const left = this.virtualDocument(proposal.path, `before-${id}`, proposal.before);
    const right = this.virtualDocument(proposal.path, `proposed-${id}`, proposal.after);
    const pair = {
      left,
      right,
      title: `${proposal.displayPath} ${proposal.isNewFile ? '(new file, proposed)' : '↔ proposed edit'}`,
    };
    this.diffs.set(id, pair);
    const item = editApprovalItem(id, proposal);
    const dirty = vscode.workspace.textDocuments.some((d) => d.uri.fsPath === proposal.path && d.isDirty);
    if (dirty)
      item.detail = `${item.detail} · the file has unsaved changes in the editor; the edit is applied to the file on disk`;
    this.surface.reveal();
    // Not awaited (the card is asked at once); showDiff catches and logs its own failure.
    void this.showDiff(pair);
    try {
      return await this.prompts.ask(item, signal);
    } finally {
      this.diffs.delete(id);
      this.documents.delete(left.toString());
      this.documents.delete(right.toString());
      await closeDiff(right);
    }
  }

  /** Shows the command and its folder in the chat and waits for Run or Don't run. */
  approveCommand(proposal: CommandProposal, signal: AbortSignal): Promise<ApprovalDecision> {
    const id = `approval-${Date.now().toString(36)}-${this.nextId++}`;
    this.surface.reveal();
    return this.prompts.ask(commandApprovalItem(id, proposal), signal);
  }

  /** Shows an MCP tool's call (server, tool, description, input) in the chat and waits for Allow or Deny. */
  approveToolCall(proposal: ToolCallProposal, signal: AbortSignal): Promise<ApprovalDecision> {
    const id = `approval-${Date.now().toString(36)}-${this.nextId++}`;
    this.surface.reveal();
    return this.prompts.ask(toolCallApprovalItem(id, proposal), signal);
  }

  /** The user's answer from the chat. Answers for prompts that are not pending are logged and dropped. */
  answer(id: string, approved: boolean, reason?: string, remember?: 'tool' | 'server'): void {
    const r = this.prompts.answer(id, approved, reason, remember);
    if (!r.ok)
      this.log.warn(
        `Ignored an answer for approval ${id}: it is ${r.why === 'settled' ? 'already answered' : 'not known'}.`,
      );
  }

  /** Opens a pending edit's diff in the diff editor again. */
  async openDiff(id: string): Promise<void> {
    const pair = this.diffs.get(id);
    if (pair) await this.showDiff(pair, false);
  }

  /** Pending cards (shown again when the chat view reloads). */
  pending(): ApprovalItem[] {
    return this.prompts.pending();
  }

  /** Refuses what is pending and unregisters the document provider. */
  dispose(): void {
    this.prompts.cancelAll();
    this.documents.clear();
    this.registration.dispose();
  }

  private async showDiff(pair: DiffPair, preserveFocus = true): Promise<void> {
    try {
      await vscode.commands.executeCommand('vscode.diff', pair.left, pair.right, pair.title, {
        preview: true,
        preserveFocus,
      });
    } catch (err) {
      this.log.warn(`Could not open the diff editor: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private virtualDocument(path: string, key: string, content: string): vscode.Uri {
    // Keep the file's name and extension in the path so the diff gets the right language.
    const uri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: vscode.Uri.file(path).path, query: key });
    this.documents.set(uri.toString(), content);
    return uri;
  }
}

/** Closes the diff editor tab whose right side is `modified`, if it is still open. */
async function closeDiff(modified: vscode.Uri): Promise<void> {
  const tabs = vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === modified.toString());
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
}
