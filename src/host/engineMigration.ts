/**
 * The move of `compactionStrategy: server-compact` to `contextEngine: server-compact`: said
 * once per activation when the old value is set, with a button that moves it in the same
 * settings scope (user or workspace) it was found in. Until moved, the old value still
 * chooses the engine (settings.ts `readContextEngine`).
 */
import * as vscode from 'vscode';
import { SERVER_COMPACT } from '../core/engine/engineRegistry';
import { SETTINGS_SECTION } from './settings';

/** Offers the move when the old setting is in use; never throws (a failed update is logged). */
export async function offerEngineMigration(log: vscode.LogOutputChannel): Promise<void> {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const inspected = c.inspect<string>('compactionStrategy');
  const target =
    inspected?.workspaceValue === SERVER_COMPACT
      ? vscode.ConfigurationTarget.Workspace
      : inspected?.globalValue === SERVER_COMPACT
        ? vscode.ConfigurationTarget.Global
        : undefined;
  if (target === undefined) return;
  const move = 'Move it';
  const answer = await vscode.window.showInformationMessage(
    'Context Pipeline: the API\'s server compaction is now a context engine. "compactionStrategy": "server-compact" is read as "contextEngine": "server-compact" until you move it.',
    move,
  );
  if (answer !== move) return;
  try {
    await c.update('contextEngine', SERVER_COMPACT, target);
    await c.update('compactionStrategy', undefined, target);
  } catch (err) {
    log.error(`Moving compactionStrategy to contextEngine failed: ${String(err)}`);
  }
}
