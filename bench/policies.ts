/**
 * The compaction policies a replay can run, each a small object: the compactor settings and
 * pipeline settings it needs, and what it does before each request.
 *
 * - `default`: the Compactor as the extension runs it (DEFAULT_COMPACTION_SETTINGS, beforeRequest;
 *   `contextPipeline.summarizer: auto`, the summariser picked by expected cost).
 * - `default-main` / `default-small`: the default with the summariser forced — the main model
 *   reading its cached prefix, or the summariser model reading the region fresh.
 * - `default-server`: the default with `summarizer: server` — the API's compaction on demand
 *   for the region that starts the history (the request sends the history up to the region's
 *   end and reads what the cache holds of it; bench/serverSummariser.ts), the cheaper of the
 *   other two for any other region and when it fails.
 * - `rolling` / `stacked`: the default with `summaryPolicy` set.
 * - `baseline`: "summarise everything at 85 %" — no cheap layers; at 85 % of the effective
 *   window, one compaction of everything compactable.
 * - `claude-code`: what Claude Code does — summarise everything when the prompt reaches
 *   window − 33k, keeping about 10k recent tokens, with the main model from its cache
 *   (`summarizer: main`); its system prompt and tools are shared by all its users, so always
 *   warm (real Claude Code sessions read them after 40-minute pauses); 5-minute breakpoints.
 *   `baseline` keeps 5-minute breakpoints everywhere too: a saving from lifetimes is ours.
 * - `server-clear`: the app under `compactionStrategy: server-clear-tool-uses` with its default
 *   server settings — each request carries the `clear_tool_uses_20250919` edit the app sends
 *   (trigger at the soft threshold, keep at least 3 tool uses and clear in whole batches —
 *   core/server/clearBatch.ts —, `clear_at_least` the plan's minimum), which the
 *   replay's API applies as the API does (replayApi.ts: the client keeps everything, the
 *   request processed and cached is the edited one). Our side keeps only the hard-threshold
 *   summary as a safety net (Compactor.beforeRequest under a server strategy).
 */
import type { CompactionRun, Compactor } from '../src/core/compaction/compactor';
import { DEFAULT_COMPACTION_SETTINGS, effectiveWindow, type CompactionSettings } from '../src/core/compaction/policy';
import type { PipelineSettings } from '../src/core/pipeline/config';
import type { CacheTtl, ConversationState } from '../src/core/conversation/conversationModel';

/** What a policy gets before each request. */
export interface PolicyContext {
  readonly compactor: Pick<Compactor, 'beforeRequest' | 'compact'>;
  /** Best estimate of a state's prompt tokens. */
  readonly measure: (s: ConversationState) => number;
  readonly lastRequestAt?: number;
  /** The lifetime the previous request wrote its last breakpoint with. */
  readonly lastTtl?: CacheTtl;
  readonly signal: AbortSignal;
}

/** A compaction policy of the replay. */
export interface ReplayPolicy {
  readonly name: PolicyName;
  /** One line for the report. */
  readonly description: string;
  /** Settings of the Compactor. */
  readonly settings: CompactionSettings;
  /** Pipeline settings over the replay's own (model, window). */
  readonly pipeline: Partial<PipelineSettings>;
  /** Whether its tools and system prompt are a prefix other sessions keep warm (Claude Code's, shared by its users). */
  readonly sharedPrefix?: boolean;
  /** Compacts (or not) before a request. */
  beforeRequest(state: ConversationState, ctx: PolicyContext): Promise<CompactionRun>;
}

/** The policies' names, in report order. */
export const POLICY_NAMES = [
  'default',
  'default-main',
  'default-small',
  'default-server',
  'rolling',
  'stacked',
  'baseline',
  'claude-code',
  'server-clear',
] as const;

/** A policy's name. */
export type PolicyName = (typeof POLICY_NAMES)[number];

/** Whether `s` names a policy. */
export function isPolicyName(s: string): s is PolicyName {
  return (POLICY_NAMES as readonly string[]).includes(s);
}

function withSettings(extra: Partial<CompactionSettings>): CompactionSettings {
  return { ...DEFAULT_COMPACTION_SETTINGS, ...extra };
}

const NO_RUN = (state: ConversationState): CompactionRun => ({ state, records: [], notices: [] });

/** The extension's own pipeline: cheap layers, then the strategy at the thresholds. */
function layered(
  name: PolicyName,
  description: string,
  extra: Partial<CompactionSettings>,
  pipeline: Partial<PipelineSettings> = {},
): ReplayPolicy {
  return {
    name,
    description,
    settings: withSettings(extra),
    pipeline,
    beforeRequest: (state, ctx) =>
      ctx.compactor.beforeRequest(state, {
        ...(ctx.lastRequestAt !== undefined ? { lastRequestAt: ctx.lastRequestAt } : {}),
        ...(ctx.lastTtl ? { lastTtl: ctx.lastTtl } : {}),
        signal: ctx.signal,
      }),
  };
}

/** Summarise everything compactable once the prompt reaches `at(state)` tokens; no cheap layers. */
function summariseAll(
  name: PolicyName,
  description: string,
  extra: Partial<CompactionSettings>,
  pipeline: Partial<PipelineSettings>,
  at: (s: ConversationState) => number,
  sharedPrefix = false,
): ReplayPolicy {
  return {
    name,
    description,
    settings: withSettings(extra),
    pipeline,
    sharedPrefix,
    beforeRequest: async (state, ctx) =>
      ctx.measure(state) >= at(state)
        ? ctx.compactor.compact(state, { trigger: 'auto-hard', tokensToFree: 'all', signal: ctx.signal })
        : NO_RUN(state),
  };
}

/** The newest tokens the baseline keeps out of its summary, whatever the window (the extension's default before 0.7.8). */
export const BASELINE_KEEP_RECENT_TOKENS = 12_000;

/** Claude Code's auto-compact buffer: it compacts when the prompt reaches window − 33k. */
export const CLAUDE_CODE_BUFFER = 33_000;

/** The policy of a name. */
export function policy(name: PolicyName): ReplayPolicy {
  switch (name) {
    case 'default':
      return layered(
        'default',
        'the layered pipeline (cheap layers, then a summary at the thresholds; summariser by expected cost)',
        {},
        { summarizer: 'auto' },
      );
    case 'default-main':
      return layered(
        'default-main',
        'the layered pipeline, summaries always by the main model from its prompt cache',
        {},
        { summarizer: 'main' },
      );
    case 'default-small':
      return layered(
        'default-small',
        'the layered pipeline, summaries always by the summariser model reading the region fresh',
        {},
        { summarizer: 'small' },
      );
    case 'default-server':
      return layered(
        'default-server',
        "the layered pipeline, summaries by the API's compaction on demand where it can run (else by expected cost)",
        {},
        { summarizer: 'server' },
      );
    case 'rolling':
      return layered('rolling', 'the layered pipeline, summaryPolicy rolling (the previous summary folded in)', {
        summaryPolicy: 'rolling',
      });
    case 'stacked':
      return layered('stacked', 'the layered pipeline, summaryPolicy stacked (summaries side by side)', {
        summaryPolicy: 'stacked',
      });
    case 'baseline':
      return summariseAll(
        'baseline',
        'BASELINE: no cheap layers; summarise everything at 85 %',
        {},
        // A fixed tail, so the reference does not move when the extension's default does; every breakpoint for 5 minutes.
        { keepRecentTokens: BASELINE_KEEP_RECENT_TOKENS, cacheTtl: '5m' },
        (s) => 0.85 * effectiveWindow(s.config),
      );
    case 'claude-code':
      return summariseAll(
        'claude-code',
        'Claude Code: summarise everything at window − 33k with the main model, keep ~10k recent tokens',
        {},
        { keepRecentTokens: 10_000, keepRecentTurns: 1, summarizer: 'main', cacheTtl: '5m' },
        (s) => s.config.contextWindow - CLAUDE_CODE_BUFFER,
        true,
      );
    case 'server-clear':
      return layered(
        'server-clear',
        "the API's clear_tool_uses (trigger at the soft threshold, batched keep ≥ 3); our summary only at the hard threshold",
        { strategy: 'server-clear-tool-uses' },
      );
  }
}
