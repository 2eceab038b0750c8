import * as vscode from 'vscode';

/** Where a change to a setting takes effect, and its name for a message ("workspace" or "user"). */
export interface SettingTarget {
  readonly target: vscode.ConfigurationTarget;
  readonly scope: 'workspace' | 'user';
}

/**
 * Where to write `key` of `config` so the new value is the one in force: the workspace's
 * settings when they set it (they outrank the user's), else the user's. For settings a
 * workspace may set; the user-only ones (trustedSetting.ts) are always written to the user's.
 */
export function settingTarget(config: vscode.WorkspaceConfiguration, key: string): SettingTarget {
  return config.inspect(key)?.workspaceValue !== undefined
    ? { target: vscode.ConfigurationTarget.Workspace, scope: 'workspace' }
    : { target: vscode.ConfigurationTarget.Global, scope: 'user' };
}
