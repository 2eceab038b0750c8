/** Reads `contextPipeline.subagents.*` (bounds and defaults: core/subagents/subagentSettings.ts). */
import * as vscode from 'vscode';
import { subagentSettingsOf, type SubagentSettings } from '../../core/subagents/subagentSettings';
import { SETTINGS_SECTION, userOnly } from '../settings';
import { isBoolean } from '../trustedSetting';

/**
 * The subagent settings, read fresh. `allowEdits` is read from the user's settings only: a
 * repository's settings never widen what an agent may do (the approvals stay either way).
 */
export function readSubagentSettings(): SubagentSettings {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return subagentSettingsOf({
    enabled: c.get<unknown>('subagents.enabled'),
    maxRounds: c.get<unknown>('subagents.maxRounds'),
    maxConcurrent: c.get<unknown>('subagents.maxConcurrent'),
    contextWindow: c.get<unknown>('subagents.contextWindow'),
    model: c.get<unknown>('subagents.model'),
    allowEdits: userOnly(c, 'subagents.allowEdits', isBoolean, false),
  });
}
