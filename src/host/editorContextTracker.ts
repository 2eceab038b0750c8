import * as vscode from 'vscode';
import type { Injection } from '../core/conversation/conversationModel';
import { toWellFormed } from '../core/platform/text';
import { isPanelScheme, nameDocument, selectionInjection, type EditorName, type FilesExclude } from './editorContext';
import { readEditorContextSettings } from './settings';

/** Names a document the way the model sees it (see nameDocument), with the workspace's `files.exclude`; the name is well-formed UTF-16. */
export function nameOf(doc: vscode.TextDocument): EditorName {
  const uri = doc.uri;
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  const exclude = vscode.workspace.getConfiguration('files', uri).get<FilesExclude>('exclude') ?? {};
  const name = nameDocument(
    {
      scheme: uri.scheme,
      uriPath: uri.path,
      fsPath: uri.scheme === 'file' ? uri.fsPath : uri.toString(),
      ...(folder ? { workspaceRelative: vscode.workspace.asRelativePath(uri, false).replace(/\\/g, '/') } : {}),
    },
    exclude,
  );
  // A file name may hold a lone surrogate (Windows names are UTF-16): never send one.
  return name.ok ? { ok: true, path: toWellFormed(name.path) } : name;
}

/** The `ide_selection` injection for an editor's primary selection (lone surrogates replaced), if it is non-empty and may be named. */
export function selectionOf(
  editor: vscode.TextEditor,
  opts: { pinned?: boolean } = {},
): { ok: true; injection: Extract<Injection, { kind: 'ide_selection' }> } | { ok: false; reason: string } {
  const name = nameOf(editor.document);
  if (!name.ok) return { ok: false, reason: name.reason };
  const sel = editor.selection;
  const injection = sel.isEmpty
    ? undefined
    : selectionInjection(
        name.path,
        {
          startLine: sel.start.line,
          endLine: sel.end.line,
          endCharacter: sel.end.character,
          text: toWellFormed(editor.document.getText(sel)),
        },
        opts,
      );
  return injection ? { ok: true, injection } : { ok: false, reason: 'empty selection' };
}

/**
 * The editor context of the active editor right now (opened file and selection, as the
 * settings allow), with no memory of earlier turns. The fallback when no tracker is wired.
 */
export function currentEditorInjections(
  editor: vscode.TextEditor | undefined = vscode.window.activeTextEditor,
): Injection[] {
  if (!editor) return [];
  const settings = readEditorContextSettings();
  const name = nameOf(editor.document);
  if (!name.ok) return [];
  const out: Injection[] = [];
  if (settings.openedFile) out.push({ kind: 'ide_opened_file', path: name.path });
  if (settings.selection) {
    const sel = selectionOf(editor);
    if (sel.ok) out.push(sel.injection);
  }
  return out;
}

/**
 * Follows the active text editor and its selection, and decides the editor context of each
 * user turn. The chat webview takes focus while the user types, so at send time
 * `activeTextEditor` is usually undefined: the tracker keeps the last focused text editor
 * (as long as it still has a tab). The opened file is injected only when it differs from
 * the one injected at the previous turn of the same session; a non-empty selection every turn.
 */
export class EditorContextTracker implements vscode.Disposable {
  private last: vscode.TextEditor | undefined;
  /** URI of the file injected as `ide_opened_file` at the last turn, per session key. */
  private injected: { session: string | undefined; uri: string } | undefined;
  private readonly subscriptions: vscode.Disposable[];
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the context of the next turn may have changed (editor, selection, settings, tabs). */
  readonly onDidChange = this.changed.event;

  constructor() {
    this.remember(vscode.window.activeTextEditor);
    const fire = () => this.changed.fire();
    this.subscriptions = [
      vscode.window.onDidChangeActiveTextEditor((e) => (this.remember(e), fire())),
      vscode.window.onDidChangeTextEditorSelection((e) => (this.remember(e.textEditor), fire())),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (this.last?.document === doc) this.last = undefined;
        fire();
      }),
      vscode.window.tabGroups.onDidChangeTabs(fire),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('contextPipeline') || e.affectsConfiguration('files.exclude')) fire();
      }),
      this.changed,
    ];
  }

  /** The editor whose context goes with the next message: the active one, else the last focused one still open. */
  get editor(): vscode.TextEditor | undefined {
    const active = vscode.window.activeTextEditor;
    if (active && !isPanelScheme(active.document.uri.scheme)) return active;
    const last = this.last;
    if (!last || last.document.isClosed || !hasTab(last.document.uri)) return undefined;
    return last;
  }

  /**
   * What the next user turn would carry now, and the URI of the opened file among it.
   * `session` keys the "changed since the last turn" memory: a new or resumed session hears
   * about the opened file again. Nothing is consumed: see markTold.
   */
  snapshot(session?: string): { injections: Injection[]; openedUri?: string } {
    return this.compute(session);
  }

  /** Remembers that the opened file `uri` went with a message of `session`. */
  markTold(session: string | undefined, uri: string): void {
    this.injected = { session, uri };
    this.changed.fire();
  }

  /** Forgets which file was last injected (the next turn names the opened file again). */
  reset(): void {
    this.injected = undefined;
    this.changed.fire();
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
    this.last = undefined;
  }

  private remember(editor: vscode.TextEditor | undefined): void {
    if (editor && !isPanelScheme(editor.document.uri.scheme)) this.last = editor;
  }

  private compute(session: string | undefined): { injections: Injection[]; openedUri?: string } {
    const editor = this.editor;
    if (!editor) return { injections: [] };
    const settings = readEditorContextSettings();
    const name = nameOf(editor.document);
    if (!name.ok) return { injections: [] };
    const out: Injection[] = [];
    const uri = editor.document.uri.toString();
    let openedUri: string | undefined;
    const told = this.injected !== undefined && this.injected.session === session && this.injected.uri === uri;
    if (settings.openedFile && !told) {
      out.push({ kind: 'ide_opened_file', path: name.path });
      openedUri = uri;
    }
    if (settings.selection) {
      const sel = selectionOf(editor);
      if (sel.ok) out.push(sel.injection);
    }
    return openedUri ? { injections: out, openedUri } : { injections: out };
  }
}

/** Whether some tab of the window shows the document (a closed tab's document may linger). */
function hasTab(uri: vscode.Uri): boolean {
  const key = uri.toString();
  return vscode.window.tabGroups.all.some((g) =>
    g.tabs.some((t) => {
      const input = t.input;
      if (input instanceof vscode.TabInputText) return input.uri.toString() === key;
      if (input instanceof vscode.TabInputTextDiff)
        return input.modified.toString() === key || input.original.toString() === key;
      return false;
    }),
  );
}
