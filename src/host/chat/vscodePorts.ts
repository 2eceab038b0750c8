/** The chat service's editor ports, implemented with VS Code: settings and toasts. */
import * as vscode from 'vscode';
import type { Notifier, SettingsPort } from '../../app/ports';
import {
  readAgentSettings,
  readCompactionSettings,
  readEditorContextSettings,
  readPipelineConfig,
  SETTINGS_SECTION,
} from '../settings';

/**
 * The extension's settings, read fresh on each call (baseUrl and enableRunCommand from the
 * user's settings only, see readAgentSettings); fires after any `contextPipeline.*` change.
 */
export const vscodeSettings: SettingsPort = {
  pipelineConfig: readPipelineConfig,
  agent: readAgentSettings,
  compaction: readCompactionSettings,
  editorContext: readEditorContextSettings,
  onDidChange(listener) {
    const d = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SETTINGS_SECTION)) listener();
    });
    return () => d.dispose();
  },
};

/** Toasts through VS Code's notifications (not awaited: the user answers nothing). */
export const vscodeNotifier: Notifier = {
  info: (text) => void vscode.window.showInformationMessage(text),
  warn: (text) => void vscode.window.showWarningMessage(text),
  error: (text) => void vscode.window.showErrorMessage(text),
};
