/**
 * The Tools card's content for the budget panel: the definitions of the tools as the open
 * session offers them (toolBudget.ts), and every MCP server's state from the hub, with the
 * actions the card's buttons and switches post. No `vscode`.
 */
import { requestCostUsd } from '../../core/llm/cost';
import { MCP_SOURCE_LABEL } from '../../core/mcp/mcpConfig';
import type { ConversationState } from '../../core/conversation/conversationModel';
import { usualWriteTtl } from '../../core/cache/usualWriteTtl';
import { toolBudget } from '../../core/pipeline/toolBudget';
import type { Tokenizer } from '../../core/platform/platformPorts';
import type { Calibration } from '../../core/tokens/calibration';
import type { AnyToolDefinition } from '../../core/tools/toolDefinition';
import type { BudgetTools } from '../../protocol/budget';
import type { McpServerStatus } from '../mcp/mcpServerState';

/** What the report reads. */
export interface ToolsReportInput {
  /** The open session's conversation (its tools as last offered), with the counting it uses; absent before a session. */
  readonly session?: {
    readonly state: ConversationState;
    readonly tokenizer: Tokenizer;
    readonly calibration: Calibration;
    /** The next request's estimated prompt (what a changed tool list writes to the cache again). */
    readonly promptTokens: number;
  };
  /** Every configured MCP server's status. */
  readonly statuses: readonly McpServerStatus[];
  /** The MCP tools the hub offers now (to list each server's tool names). */
  readonly definitions: readonly AnyToolDefinition[];
  readonly changePending: boolean;
}

/** The Tools card's message. */
export function toolsReport(input: ToolsReportInput): BudgetTools {
  const budget = input.session
    ? toolBudget(input.session.state.tools, input.session.tokenizer, input.session.calibration)
    : { tokens: 0, eagerTokens: 0, groups: [] };
  const deferred = budget.groups.some((g) => g.tools.some((t) => t.deferred));
  const descriptions = new Map(input.session?.state.tools.map((t) => [t.name, t.description]) ?? []);
  const session = input.session;
  // The tools open the cached prefix: a changed list writes the whole prompt to the cache again.
  const rewrite =
    input.changePending && session && session.promptTokens > 0
      ? {
          tokens: session.promptTokens,
          usd:
            requestCostUsd(
              session.state.config.model,
              {
                input_tokens: 0,
                output_tokens: 0,
                cache_read_input_tokens: 0,
                cache_creation_input_tokens: session.promptTokens,
              },
              usualWriteTtl(session.state.config.cacheTtl),
            ) ?? null,
        }
      : undefined;
  const clientSearch = input.session?.state.tools.some((t) => t.name === 'find_tools') ?? false;
  return {
    type: 'tools',
    tokens: budget.tokens,
    eagerTokens: budget.eagerTokens,
    search: deferred ? 'server' : clientSearch ? 'client' : 'none',
    groups: budget.groups.map((g) => ({
      ...g,
      tools: g.tools.map((t) => ({ ...t, description: descriptions.get(t.name) ?? '' })),
    })),
    servers: input.statuses.map((s) => {
      const names = new Set(s.disabledTools);
      for (const d of input.definitions)
        if (d.origin.kind === 'mcp' && d.origin.server === s.name) names.add(d.origin.tool);
      return {
        name: s.name,
        source: MCP_SOURCE_LABEL[s.source],
        transport: s.transport,
        state: s.state,
        ...(s.message !== undefined ? { message: s.message } : {}),
        ...(s.stderrTail !== undefined ? { stderrTail: s.stderrTail } : {}),
        toolCount: s.toolCount,
        stale: s.stale,
        notices: [...s.notices],
        disabledTools: [...s.disabledTools],
        tools: [...names].sort(),
      };
    }),
    changePending: input.changePending,
    ...(rewrite ? { cacheRewrite: rewrite } : {}),
  };
}
