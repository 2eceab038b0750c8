import * as vscode from 'vscode';
import type { SessionPort } from '../../app/sessionPort';
import { toast } from '../toasts';

/** URI scheme of the read-only subagent transcripts. */
export const TRANSCRIPT_SCHEME = 'context-pipeline-transcript';

/**
 * A subagent's transcript, opened from its task card: its child session as read-only Markdown
 * in an editor tab (one tab per session, refreshed on each open: a running subagent shows what
 * it did so far). Secrets are redacted by the store; an unreadable session is a toast.
 */
export class TranscriptDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly sessions: Pick<SessionPort, 'transcript'>) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  /** Opens (or refreshes) session `id`'s transcript beside the chat. */
  async show(id: string): Promise<void> {
    const r = await this.sessions.transcript(id);
    if (!r.ok) {
      toast.error(`Context Pipeline: the subagent's transcript could not be opened: ${r.error}`);
      return;
    }
    const uri = vscode.Uri.from({ scheme: TRANSCRIPT_SCHEME, path: `/Subagent ${id}.md` });
    this.texts.set(uri.toString(), r.text);
    this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: false });
  }

  dispose(): void {
    this.changed.dispose();
  }
}
