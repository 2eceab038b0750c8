import * as vscode from 'vscode';
import type { Injection } from '../core/model';
import { headChars } from '../core/text';
import { readEditorContextSettings } from './settings';

/** Selections longer than this are cut, with a notice saying how much is missing. */
export const MAX_SELECTION_CHARS = 20_000;

/** File names that look like secrets: never injected, whatever the settings say. */
const SECRET_NAME = /(^|\/)(\.env(\..*)?|\.netrc|\.npmrc|\.pypirc|id_(rsa|dsa|ecdsa|ed25519)|.*\.(pem|key|p12|pfx|keystore|jks))$/i;

/** Whether a workspace-relative path looks like a secrets file. */
export function looksLikeSecret(path: string): boolean {
  return SECRET_NAME.test(path.replace(/\\/g, '/'));
}

/**
 * The editor context the active editor would add to a message right now: the opened file
 * and a non-empty selection, as the settings allow. Files outside the workspace are named
 * by their full path; untitled editors by their title; non-file editors (output, git
 * diffs) and secret-looking files add nothing.
 */
export function currentEditorInjections(editor: vscode.TextEditor | undefined = vscode.window.activeTextEditor): Injection[] {
  if (!editor) return [];
  const settings = readEditorContextSettings();
  const uri = editor.document.uri;
  if (uri.scheme !== 'file' && uri.scheme !== 'untitled' && uri.scheme !== 'vscode-remote') return [];
  const path = uri.scheme === 'untitled' ? `${uri.path} (unsaved)` : vscode.workspace.asRelativePath(uri, false);
  if (looksLikeSecret(path)) return [];
  const out: Injection[] = [];
  if (settings.openedFile) out.push({ kind: 'ide_opened_file', path });
  const sel = editor.selection;
  if (settings.selection && !sel.isEmpty) {
    const text = editor.document.getText(sel);
    if (text.trim()) {
      const kept = headChars(text, MAX_SELECTION_CHARS);
      out.push({
        kind: 'ide_selection',
        path,
        startLine: sel.start.line + 1,
        endLine: sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line : sel.end.line + 1,
        text: kept,
        ...(kept.length < text.length ? { truncatedChars: text.length - kept.length } : {}),
      });
    }
  }
  return out;
}
