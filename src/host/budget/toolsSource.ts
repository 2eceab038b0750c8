/** The budget panel's Tools card wired to the MCP servers and the open session. */
import type * as vscode from 'vscode';
import type { McpServers } from '../mcpServers';
import type { BudgetToolsSource } from './budgetPanel';
import { toolsReport, type ToolsReportInput } from './toolsReport';

/** The Tools card's source over `mcp`; `session` gives the open session's tools and counting. */
export function budgetToolsSource(mcp: McpServers, session: () => ToolsReportInput['session']): BudgetToolsSource {
  return {
    report: () => {
      const s = session();
      return toolsReport({
        ...(s ? { session: s } : {}),
        statuses: mcp.statuses(),
        definitions: mcp.definitions(),
        changePending: mcp.changePending,
      });
    },
    onDidChange: (listener): vscode.Disposable => mcp.hub.onDidChange(listener),
    serverAction: async (action, server) => {
      if (action === 'enable' || action === 'disable') await mcp.hub.setServerEnabled(server, action === 'enable');
      else if (action === 'retry') await mcp.hub.retry(server);
      else await mcp.hub.askApprovalAgain(server);
    },
    toolSwitch: (server, tool, enabled) => mcp.hub.setToolEnabled(server, tool, enabled),
  };
}
