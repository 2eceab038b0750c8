import * as vscode from 'vscode';
import { apiKeyProblem, type ApiKeyStore } from './apiKey';
import { SETTINGS_SECTION } from './settings';
import { SETTINGS_QUERY } from './settingsQuery';
import { settingTarget } from './settingTarget';
import { toast } from './toasts';

/** Ids of every command the extension contributes (see package.json). */
export const COMMANDS = {
  compactNow: 'contextPipeline.compactNow',
  newSession: 'contextPipeline.newSession',
  handoff: 'contextPipeline.handoff',
  showBudget: 'contextPipeline.showBudget',
  setApiKey: 'contextPipeline.setApiKey',
  openSettings: 'contextPipeline.openSettings',
  pinSelection: 'contextPipeline.pinSelection',
  toggleEditorContext: 'contextPipeline.toggleEditorContext',
  reloadProjectContext: 'contextPipeline.reloadProjectContext',
} as const;

/**
 * Registers the commands that need no session (New Session and Sessions are the chat
 * controller's, Pin Selection is pinCommand.ts', Show Context Budget is budgetPanel.ts'); returns their disposables.
 */
export function registerCommands(deps: { apiKeys: ApiKeyStore; log: vscode.LogOutputChannel }): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(COMMANDS.setApiKey, () => setApiKey(deps.apiKeys, deps.log)),
    vscode.commands.registerCommand(COMMANDS.toggleEditorContext, toggleEditorContext),
    vscode.commands.registerCommand(COMMANDS.openSettings, () =>
      vscode.commands.executeCommand('workbench.action.openSettings', SETTINGS_QUERY),
    ),
  ];
}

async function setApiKey(apiKeys: ApiKeyStore, log: vscode.LogOutputChannel): Promise<void> {
  const value = await vscode.window.showInputBox({
    title: 'Anthropic API key',
    prompt: "Stored in VS Code's secret storage, never in settings or logs. Leave empty to remove the stored key.",
    password: true,
    ignoreFocusOut: true,
    placeHolder: 'sk-ant-…',
    validateInput: (v) => apiKeyProblem(v),
  });
  if (value === undefined) return; // cancelled
  const stored = await apiKeys.set(value);
  if (!stored.ok) {
    toast.error(`Context Pipeline: the key was not stored. ${stored.problem}`);
    return;
  }
  const cleared = value.trim() === '';
  log.info(cleared ? 'API key removed from secret storage.' : 'API key stored in secret storage.');
  toast.info(
    cleared
      ? 'Context Pipeline: the stored API key was removed.'
      : 'Context Pipeline: API key saved in secret storage.',
  );
}

async function toggleEditorContext(): Promise<void> {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const on = c.get<boolean>('injectSelection', true) || c.get<boolean>('injectOpenedFile', true);
  // Each written where it takes effect: a workspace that sets it outranks the user's settings.
  const scopes = new Set<string>();
  for (const key of ['injectSelection', 'injectOpenedFile']) {
    const { target, scope } = settingTarget(c, key);
    await c.update(key, !on, target);
    scopes.add(scope);
  }
  const where = [...scopes].join(' and ');
  toast.info(
    on
      ? `Context Pipeline: editor context is off (${where} settings) — your selection and opened file are no longer sent.`
      : `Context Pipeline: editor context is on (${where} settings) — your selection and opened file are sent with your messages.`,
  );
}
