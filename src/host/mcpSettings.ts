/**
 * The user's MCP approval settings, read at the user level only (a workspace's value is
 * ignored: a repository never decides what runs without asking) and the one write the
 * extension makes to them: an "Always allow" from an approval card, to the user settings.
 */
import * as vscode from 'vscode';
import type { ToolCallSettings } from './approvals/toolCallPolicy';

const ALWAYS_ALLOW = 'contextPipeline.mcp.alwaysAllow';
const AUTO_READ_ONLY = 'contextPipeline.mcp.autoApproveReadOnly';

/** `contextPipeline.mcp.alwaysAllow` and `…autoApproveReadOnly` as the user set them. */
export function mcpCallSettings(): ToolCallSettings {
  const config = vscode.workspace.getConfiguration();
  const allow = config.inspect<unknown>(ALWAYS_ALLOW)?.globalValue;
  const readOnly = config.inspect<unknown>(AUTO_READ_ONLY)?.globalValue;
  return {
    alwaysAllow: Array.isArray(allow) ? allow.filter((x): x is string => typeof x === 'string') : [],
    autoApproveReadOnly: readOnly === true,
  };
}

/** Adds `entry` (`server` or `server/tool`) to the user's always-allow list. */
export async function rememberAlwaysAllow(entry: string): Promise<void> {
  const current = mcpCallSettings().alwaysAllow;
  if (current.includes(entry)) return;
  await vscode.workspace
    .getConfiguration()
    .update(ALWAYS_ALLOW, [...current, entry], vscode.ConfigurationTarget.Global);
}
