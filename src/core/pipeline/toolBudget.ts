/**
 * What the tool definitions cost, by source (built-ins, then each MCP server) and by tool: the
 * figures of the budget panel's Tools card, the status bar's tooltip and the ledger's grouping.
 * A deferred tool (`deferLoading`) costs nothing in the request until tool search finds it;
 * its would-be size is kept as `eagerTokens`. Pure; counts memoised on the schemas.
 */
import type { ToolSchema } from '../conversation/conversationModel';
import type { Tokenizer } from '../platform/platformPorts';
import { toolSchemaRawTokens, toolSearchRawTokens } from '../tokens/blockTokens';
import { applyCalibration, type Calibration } from '../tokens/calibration';

/** One tool's cost. */
export interface ToolCost {
  readonly name: string;
  /** Calibrated tokens of its definition. */
  readonly tokens: number;
  readonly deferred: boolean;
}

/** One source's tools: `server` '' for the built-ins. */
export interface ToolGroupCost {
  readonly server: string;
  /** Tokens the request carries for this group (deferred tools count 0). */
  readonly tokens: number;
  /** Tokens if every tool of the group were loaded. */
  readonly eagerTokens: number;
  readonly tools: readonly ToolCost[];
}

/** The whole tool list's cost. */
export interface ToolBudget {
  /** Tokens of the tool list the request carries: the loaded definitions, and the tool search tool when any is deferred. */
  readonly tokens: number;
  /** Tokens of the tool search tool's definition (0 when nothing is deferred). */
  readonly searchTokens: number;
  readonly eagerTokens: number;
  readonly groups: readonly ToolGroupCost[];
}

/** The cost of `tools` (as a request sends them), grouped by source in the order they come. */
export function toolBudget(tools: readonly ToolSchema[], tokenizer: Tokenizer, calibration: Calibration): ToolBudget {
  const groups = new Map<string, ToolCost[]>();
  for (const t of tools) {
    const raw = toolSchemaRawTokens(t, tokenizer);
    const tokens = Math.round(applyCalibration(calibration, { text: raw, fixed: 0 }));
    const key = t.server ?? '';
    const list = groups.get(key) ?? [];
    list.push({ name: t.name, tokens, deferred: t.deferLoading === true });
    groups.set(key, list);
  }
  const out: ToolGroupCost[] = [...groups].map(([server, list]) => ({
    server,
    tokens: list.reduce((a, x) => a + (x.deferred ? 0 : x.tokens), 0),
    eagerTokens: list.reduce((a, x) => a + x.tokens, 0),
    tools: list,
  }));
  const deferred = tools.some((t) => t.deferLoading === true);
  const searchTokens = deferred
    ? Math.round(applyCalibration(calibration, { text: toolSearchRawTokens(tokenizer), fixed: 0 }))
    : 0;
  return {
    tokens: out.reduce((a, g) => a + g.tokens, 0) + searchTokens,
    searchTokens,
    eagerTokens: out.reduce((a, g) => a + g.eagerTokens, 0),
    groups: out,
  };
}
