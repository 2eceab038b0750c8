import * as vscode from 'vscode';
import { previewDocumentText, type PreviewOk } from './requestPreviewText';

/** URI scheme of the read-only request preview document. */
export const PREVIEW_SCHEME = 'context-pipeline-preview';

/** The one preview document: its tab is titled `Request preview.md`, reused by every preview. */
function previewUri(): vscode.Uri {
  return vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: '/Request preview.md' });
}

/**
 * The chat's Preview opened where the user looks: a read-only Markdown document in an editor
 * tab, revealed and focused, its first line the summary (tokens, cost, cache hit expected).
 * A later preview replaces its text in the same tab.
 */
export class PreviewDocument implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private text = '';
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  /** The document's text (the last preview shown). */
  provideTextDocumentContent(): string {
    return this.text;
  }

  /** Shows `preview` in the tab, opening or refreshing it, and focuses it. */
  async show(preview: PreviewOk): Promise<void> {
    this.text = previewDocumentText(preview);
    this.changed.fire(previewUri());
    const doc = await vscode.workspace.openTextDocument(previewUri());
    await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: false });
  }

  dispose(): void {
    this.changed.dispose();
  }
}
