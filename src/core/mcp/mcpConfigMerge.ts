/**
 * One list of servers from the three sources. A name is taken by the first source that
 * configures it, in the order user setting, `.vscode/mcp.json`, `.mcp.json` — so a workspace
 * file can never replace a server the user configured; the later one is refused with the
 * reason. Two names that would give the same tool-name prefix (`a.b` and `a_b`) are refused
 * the same way. Pure.
 */
import { MCP_SOURCE_LABEL, type McpConfigRefusal, type McpConfigSet, type McpServerConfig } from './mcpConfig';
import { sanitizeNamePart } from './mcpToolNames';

/** The servers of `sets` (in precedence order), names unique, sorted by name; every refusal kept. */
export function mergeMcpConfigs(sets: readonly McpConfigSet[]): McpConfigSet {
  const byPrefix = new Map<string, McpServerConfig>();
  const servers: McpServerConfig[] = [];
  const refused: McpConfigRefusal[] = sets.flatMap((s) => s.refused);
  for (const server of sets.flatMap((s) => s.servers)) {
    const prefix = sanitizeNamePart(server.name);
    const first = byPrefix.get(prefix);
    if (first !== undefined) {
      const same = first.name === server.name ? 'is already configured' : `has the same tool prefix as "${first.name}"`;
      refused.push({
        server: server.name,
        source: server.source,
        message: `MCP server "${server.name}" in ${MCP_SOURCE_LABEL[server.source]} ${same} in ${MCP_SOURCE_LABEL[first.source]}; it is ignored.`,
      });
      continue;
    }
    byPrefix.set(prefix, server);
    servers.push(server);
  }
  servers.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { servers, refused };
}
