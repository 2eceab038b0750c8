/**
 * The chat header's status and the status bar's figures of the open session: model and window
 * from the settings, the prompt size (reported, or estimated before the first usage), cost,
 * cache hit rate, and the next request by budget category.
 */
import type { AgentSession } from '../core/agent/agentSession';
import { BUDGET_CATEGORIES, CATEGORY_LABELS, categoriesOf } from '../core/pipeline/budget';
import { toolBudget } from '../core/pipeline/toolBudget';
import { contextPressure, type ContextPressure } from '../core/pipeline/window';
import { classifyBaseUrl, withEndpointBanner } from '../core/security/endpoint';
import type { Tokenizer } from '../core/platform/platformPorts';
import { sessionDisplayTitle } from '../core/session/markdown';
import type { TokenEstimator } from '../core/tokens/estimator';
import type { ChatToWebview } from '../protocol/chat';
import type { ApiKeyPort, SettingsPort } from './ports';

/**
 * The status bar's figures of the open session (the host's status bar takes exactly these).
 * The thresholds are fractions of the effective window, shown as percentages.
 */
export interface ContextFigures {
  readonly promptTokens: number;
  /** `promptTokens` is an estimate (nothing reported yet in this session). */
  readonly estimated?: boolean;
  readonly window: number;
  readonly outputReserve: number;
  readonly softThreshold: number;
  readonly hardThreshold: number;
  /** The pressure of `promptTokens` on the window (core's `contextPressure`): colours the meter. */
  readonly pressure: ContextPressure;
  /** Undefined when a request's price is unknown. */
  readonly costUsd: number | undefined;
  /** Present when subagents ran: the part of `costUsd` they spent (undefined when one's price is unknown). */
  readonly subagents?: { readonly costUsd: number | undefined };
  /**
   * Present when a compaction's summary cost something: the part of `costUsd` the summariser
   * spent (undefined when a summariser's price is unknown).
   */
  readonly summaries?: { readonly costUsd: number | undefined };
  /** Present when the session was handed off to with a note that cost something: that part of `costUsd` (undefined: unknown). */
  readonly handoff?: { readonly costUsd: number | undefined };
  /** cache reads / prompt tokens of this session, 0..1, when known. */
  readonly cacheHitRate?: number;
  readonly compactions: number;
  /** The next request by category (calibrated tokens), largest first, when a session is open. */
  readonly breakdown?: ReadonlyArray<{ readonly label: string; readonly tokens: number }>;
  /** The tool definitions by source (built-ins '', then each MCP server), when a session is open. */
  readonly tools?: ReadonlyArray<{ readonly server: string; readonly tokens: number; readonly deferred: number }>;
  /** The context engine in use, by name (set by the host, which owns the engine registry). */
  readonly engine?: string;
}

/** What the status is built from. */
export interface StatusInputs {
  readonly version: string;
  readonly apiKeys: ApiKeyPort;
  readonly settings: SettingsPort;
  readonly agent?: AgentSession;
  readonly estimator?: TokenEstimator;
  readonly tokenizer?: Tokenizer;
  /** The stored title of the open session. */
  readonly title?: string;
  /** The last reported prompt size (0 before the first usage). */
  readonly promptTokens: number;
  /** Undefined when a request's price is unknown; its subagents' included. */
  readonly costUsd: number | undefined;
  /** The part of `costUsd` the session's subagents spent (0: none ran). */
  readonly subagentsCostUsd: number | undefined;
  /** The part of `costUsd` the compaction summariser spent (0: none; undefined: a price unknown). */
  readonly summariesCostUsd: number | undefined;
  /** The part of `costUsd` the handoff note that started the session cost (0: none; undefined: unknown). */
  readonly handoffCostUsd: number | undefined;
  /**
   * The base URL the open session's requests go to now (its transport's): the setting's value
   * from the last turn boundary on. It differs from the setting only while a turn runs after
   * the setting changed (the turn ends with the endpoint it started with).
   */
  readonly inUseBaseUrl?: string;
}

/** The next request by category for the status-bar tooltip (largest first). */
function breakdown(inp: StatusInputs): Pick<ContextFigures, 'breakdown' | 'tools'> {
  const { agent, tokenizer, estimator } = inp;
  if (!agent || !tokenizer || !estimator) return {};
  const totals = categoriesOf(agent.state, tokenizer, estimator.calibration);
  const tools = toolBudget(agent.state.tools, tokenizer, estimator.calibration);
  return {
    breakdown: BUDGET_CATEGORIES.map((c) => ({ label: CATEGORY_LABELS[c], tokens: totals.tokens[c] })).sort(
      (a, b) => b.tokens - a.tokens,
    ),
    tools: tools.groups.map((g) => ({
      server: g.server,
      tokens: g.tokens,
      deferred: g.tools.filter((t) => t.deferred).length,
    })),
  };
}

/** The header status message, and the status bar's figures (undefined when the settings are invalid). */
export async function statusReport(
  inp: StatusInputs,
): Promise<{ readonly status: Extract<ChatToWebview, { type: 'status' }>; readonly figures?: ContextFigures }> {
  const resolved = inp.settings.pipelineConfig();
  const settings = inp.settings.agent();
  const window = resolved.ok ? resolved.config.contextWindow : 0;
  const agent = inp.agent;
  // Before the session's first reported usage (a new or a resumed session), the estimate.
  const shown =
    inp.promptTokens > 0 || !agent || !inp.estimator || agent.state.messages.length === 0
      ? { tokens: inp.promptTokens, estimated: false }
      : { tokens: inp.estimator.estimate(agent.state).tokens, estimated: true };
  const pressure = resolved.ok ? contextPressure(shown.tokens, resolved.config) : undefined;
  const switching = inp.inUseBaseUrl !== undefined && inp.inUseBaseUrl !== settings.baseUrl && (agent?.busy ?? false);
  const requestsGoTo = switching ? (inp.inUseBaseUrl ?? '') : settings.baseUrl;
  const status: Extract<ChatToWebview, { type: 'status' }> = {
    type: 'status',
    version: inp.version,
    model: resolved.ok ? resolved.config.model : '(invalid settings)',
    contextWindow: window,
    outputReserve: resolved.ok ? resolved.config.outputReserve : 0,
    softThreshold: resolved.ok ? resolved.config.softThreshold : 0,
    hardThreshold: resolved.ok ? resolved.config.hardThreshold : 0,
    autoCompact: inp.settings.compaction().softAction === 'auto',
    apiKey: await inp.apiKeys.status(),
    // Where requests actually go: a turn that runs keeps the endpoint it started with.
    ...(requestsGoTo ? { baseUrl: shownBaseUrl(requestsGoTo) } : {}),
    ...withEndpointBanner(requestsGoTo),
    busy: agent?.busy ?? false,
    sessionTitle: sessionDisplayTitle(inp.title, agent?.state.messages ?? []) || 'New session',
    promptTokens: shown.tokens,
    ...(shown.estimated ? { promptEstimated: true } : {}),
    ...(pressure ? { pressure: { ...pressure, softAction: inp.settings.compaction().softAction } } : {}),
    costUsd: inp.costUsd ?? null,
    warnings: [
      ...(switching
        ? [
            `contextPipeline.baseUrl changed, but this turn goes on sending to ${requestsGoTo ? shownBaseUrl(requestsGoTo) : "Anthropic's API"} until it ends: press Stop to end it now. The next turn goes to ${settings.baseUrl ? shownBaseUrl(settings.baseUrl) : "Anthropic's API"}.`,
          ]
        : []),
      ...(resolved.ok ? resolved.warnings : [resolved.error]),
      ...[await inp.apiKeys.problem()].filter((w): w is string => w !== undefined),
    ],
  };
  if (!resolved.ok || !pressure) return { status };
  const health = agent?.health;
  const figures: ContextFigures = {
    promptTokens: shown.tokens,
    ...(shown.estimated ? { estimated: true } : {}),
    window,
    outputReserve: resolved.config.outputReserve,
    softThreshold: resolved.config.softThreshold,
    hardThreshold: resolved.config.hardThreshold,
    pressure,
    costUsd: inp.costUsd,
    ...(inp.subagentsCostUsd !== 0 ? { subagents: { costUsd: inp.subagentsCostUsd } } : {}),
    ...(inp.summariesCostUsd !== 0 ? { summaries: { costUsd: inp.summariesCostUsd } } : {}),
    ...(inp.handoffCostUsd !== 0 ? { handoff: { costUsd: inp.handoffCostUsd } } : {}),
    ...(health && health.promptTokens > 0 ? { cacheHitRate: health.cacheHitRate } : {}),
    compactions: agent?.compactions.filter((c) => c.active).length ?? 0,
    ...breakdown(inp),
  };
  return { status, figures };
}

/**
 * The base URL as the webview may see it: its origin only (a path or query could carry a
 * token, userinfo a password), or "(not usable)" for one that is not a URL.
 */
function shownBaseUrl(baseUrl: string): string {
  const endpoint = classifyBaseUrl(baseUrl);
  return endpoint.kind === 'invalid' ? '(not usable)' : endpoint.origin;
}
