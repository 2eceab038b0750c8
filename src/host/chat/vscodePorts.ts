/** The chat service's settings port, implemented with VS Code (its toasts are ../toasts.ts). */
import * as vscode from 'vscode';
import type { SettingsPort } from '../../app/ports';
import {
  readAgentSettings,
  readCompactionSettings,
  readEditorContextSettings,
  readPipelineConfig,
  SETTINGS_SECTION,
} from '../settings';
import { readSubagentSettings } from '../subagents/subagentSettings';

/**
 * The extension's settings, read fresh on each call (baseUrl and enableRunCommand from the
 * user's settings only, see readAgentSettings); fires after any `contextPipeline.*` change.
 */
export const vscodeSettings: SettingsPort = {
  pipelineConfig: readPipelineConfig,
  agent: readAgentSettings,
  compaction: readCompactionSettings,
  subagents: readSubagentSettings,
  editorContext: readEditorContextSettings,
  onDidChange(listener) {
    const d = vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SETTINGS_SECTION)) listener();
    });
    return () => d.dispose();
  },
};
