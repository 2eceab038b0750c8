import * as vscode from 'vscode';
import { COMMANDS } from './commands';
import { selectionOf } from './editorContextTracker';
import { toast } from './toasts';

/** What Pin Selection needs: the editor to pin from, and where pins are queued. */
export interface PinCommandDeps {
  /** The editor to pin from when none is active (the last focused one). */
  readonly lastEditor: () => vscode.TextEditor | undefined;
  readonly pin: (pin: {
    path: string;
    startLine: number;
    endLine: number;
    text: string;
    truncatedChars?: number;
  }) => void;
  readonly log: vscode.LogOutputChannel;
}

/**
 * Pin Selection: the active editor's selection goes with the next message as a pinned
 * `<ide_selection>` block, which compaction never touches. Refuses, saying why, with no
 * selection, in a non-file editor, or for secret-looking or excluded files.
 */
export function registerPinCommand(deps: PinCommandDeps): vscode.Disposable {
  return vscode.commands.registerCommand(COMMANDS.pinSelection, () => {
    const editor = vscode.window.activeTextEditor ?? deps.lastEditor();
    if (!editor) {
      toast.warn('Context Pipeline: open a file and select the lines to pin first. Nothing was pinned.');
      return;
    }
    const sel = selectionOf(editor, { pinned: true });
    if (!sel.ok) {
      const why =
        sel.reason === 'empty selection'
          ? 'the selection is empty — select the lines to pin first'
          : sel.reason === 'non-file editor'
            ? 'only text from files or untitled documents can be pinned'
            : sel.reason === 'secret-looking file'
              ? 'this file looks like it holds secrets, so it is never sent'
              : "this file is excluded by the workspace's files.exclude setting";
      deps.log.info(`Pin Selection refused: ${sel.reason}.`);
      toast.warn(`Context Pipeline: nothing was pinned — ${why}.`);
      return;
    }
    const { path, startLine, endLine, text, truncatedChars } = sel.injection;
    deps.pin({ path, startLine, endLine, text, ...(truncatedChars ? { truncatedChars } : {}) });
  });
}
