/**
 * The VS Code Approver: an edit is shown in VS Code's diff editor (current text on the
 * left, the proposal on the right, both read-only virtual documents) with a modal asking to
 * apply or reject it (optionally with a reason for the agent); a command is shown in a modal asking to run it. One prompt at a time.
 */
import * as vscode from 'vscode';
import type { ApprovalDecision, Approver, CommandProposal, EditProposal } from './approval';

/** URI scheme of the read-only documents the diff editor shows. */
export const PROPOSED_SCHEME = 'context-pipeline-proposed';

const APPLY = 'Apply edit';
const REJECT = 'Reject';
const REJECT_WITH_REASON = 'Reject with reason…';
const RUN = 'Run';
const DONT_RUN = "Don't run";
const DONT_RUN_WITH_REASON = "Don't run, with reason…";

/** Asks the user through VS Code's diff editor and modal dialogs. Dispose to unregister its document provider. */
export class VscodeApprover implements Approver, vscode.Disposable {
  private readonly documents = new Map<string, string>();
  private readonly registration: vscode.Disposable;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 0;

  constructor() {
    const provider: vscode.TextDocumentContentProvider = { provideTextDocumentContent: (uri) => this.documents.get(uri.toString()) ?? '' };
    this.registration = vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, provider);
  }

  /** Opens the diff of the proposal and asks, in a modal, whether to apply it. Dismissing the modal rejects. */
  approveEdit(proposal: EditProposal, signal: AbortSignal): Promise<ApprovalDecision> {
    return this.serialize(signal, async () => {
      const id = this.nextId++;
      const left = this.virtualDocument(proposal.path, `before-${id}`, proposal.before);
      const right = this.virtualDocument(proposal.path, `proposed-${id}`, proposal.after);
      try {
        const title = `${proposal.displayPath} ${proposal.isNewFile ? '(new file, proposed)' : '↔ proposed edit'}`;
        await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true, preserveFocus: false });
        const dirty = vscode.workspace.textDocuments.some((d) => d.uri.fsPath === proposal.path && d.isDirty);
        const detail = [
          proposal.isNewFile ? `The agent wants to create ${proposal.displayPath}.` : `The agent wants to change ${proposal.displayPath}; the diff is open in the editor.`,
          dirty ? 'Warning: this file has unsaved changes in the editor; the edit is applied to the file on disk.' : '',
        ].filter((s) => s !== '').join('\n\n');
        const choice = await vscode.window.showInformationMessage(`Apply the agent's edit to ${proposal.displayPath}?`, { modal: true, detail }, APPLY, REJECT, REJECT_WITH_REASON);
        if (choice === APPLY) return { approved: true };
        if (choice === REJECT_WITH_REASON) return { approved: false, reason: await askReason('Why reject this edit?') };
        return { approved: false };
      } finally {
        this.documents.delete(left.toString());
        this.documents.delete(right.toString());
        await closeDiff(right);
      }
    });
  }

  /** Shows the command and its folder in a modal with 'Run' and "Don't run" (optionally with a reason). Dismissing it declines. */
  approveCommand(proposal: CommandProposal, signal: AbortSignal): Promise<ApprovalDecision> {
    return this.serialize(signal, async () => {
      const detail = `${proposal.command}\n\nin ${proposal.displayCwd} (${proposal.cwd})`;
      const choice = await vscode.window.showWarningMessage('The agent wants to run a shell command.', { modal: true, detail }, RUN, DONT_RUN, DONT_RUN_WITH_REASON);
      if (choice === RUN) return { approved: true };
      if (choice === DONT_RUN_WITH_REASON) return { approved: false, reason: await askReason('Why not run this command?') };
      return { approved: false };
    });
  }

  /** Unregisters the document provider. */
  dispose(): void {
    this.documents.clear();
    this.registration.dispose();
  }

  /** Runs prompts one after another; a prompt whose call was stopped while queued is skipped. */
  private serialize(signal: AbortSignal, ask: () => Promise<ApprovalDecision>): Promise<ApprovalDecision> {
    const run = this.queue.then(() => (signal.aborted ? { approved: false, reason: 'stopped before the prompt was shown' } : ask()));
    this.queue = run.catch(() => undefined);
    return run.catch((e: unknown) => ({ approved: false, reason: `the approval prompt failed (${e instanceof Error ? e.message : String(e)})` }));
  }

  private virtualDocument(path: string, key: string, content: string): vscode.Uri {
    // Keep the file's name and extension in the path so the diff gets the right language.
    const uri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: vscode.Uri.file(path).path, query: key });
    this.documents.set(uri.toString(), content);
    return uri;
  }
}

async function askReason(title: string): Promise<string | undefined> {
  const reason = await vscode.window.showInputBox({ title, prompt: 'Your reason is passed to the agent (optional).', ignoreFocusOut: true });
  return reason?.trim() || undefined;
}

/** Closes the diff editor tab whose right side is `modified`, if it is still open. */
async function closeDiff(modified: vscode.Uri): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === modified.toString());
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
}
