/** Toasts: VS Code notifications that ask the user nothing, shown without waiting. */
import * as vscode from 'vscode';
import type { Notifier } from '../app/ports';

/** Lets a notification's Thenable go: it settles when the toast is dismissed and carries nothing back. */
function shown(message: Thenable<unknown>): void {
  // Safe to drop: VS Code's message service resolves it (undefined on dismissal) rather than
  // rejecting; its RPC fails only as the extension host shuts down, when nothing is left to tell.
  void message;
}

/** Shows a notification (no buttons) and returns at once: the chat service's Notifier, and the commands' toasts. */
export const toast: Notifier = {
  info: (text) => shown(vscode.window.showInformationMessage(text)),
  warn: (text) => shown(vscode.window.showWarningMessage(text)),
  error: (text) => shown(vscode.window.showErrorMessage(text)),
};
