import type { ConversationState, Message, PipelineConfig } from '../conversation/conversationModel';
import type { SummaryPolicy } from './regions';
import { contextPressure, effectiveWindow } from '../pipeline/window';
import {
  DEFAULT_SERVER_CONTEXT_SETTINGS,
  type ServerContextSettings,
  type ServerStrategy,
} from '../server/serverContext';

/** How the pipeline reacts when the soft threshold is crossed. */
export type SoftAction = 'auto' | 'propose' | 'off';

/** Which compaction runs when history must shrink. */
export type CompactionStrategy = 'summarise' | 'middle-removal' | 'oldest-removal' | 'hybrid' | ServerStrategy;

/** Compaction settings (from the user's settings, with defaults). */
export interface CompactionSettings {
  readonly strategy: CompactionStrategy;
  readonly softAction: SoftAction;
  /** Soft compaction brings utilisation down to this fraction of the effective window. */
  readonly softTarget: number;
  /** Hard compaction leaves at least this fraction of the effective window free for the request. */
  readonly hardBuffer: number;
  /** Summariser timeout in ms (5 minutes). */
  readonly summariserTimeoutMs: number;
  /** `rolling`: the next summary folds the previous one in; `stacked`: summaries accumulate. */
  readonly summaryPolicy: SummaryPolicy;
  /** Whether older tool results may be cleared to a one-line stub (observation masking) before anything is summarised. */
  readonly maskToolResults: boolean;
  /** Cheap edits (masking) in a warm cache only when they pay back the rewrite within this many requests. */
  readonly paybackRequests: number;
  /** Cheap edits free at least this many tokens at once (0: 10 % of the effective window). */
  readonly clearAtLeastTokens: number;
  /** An automatic soft compaction must free at least this share of the effective window. */
  readonly minSoftSavingShare: number;
  /**
   * Below the soft threshold, an automatic summary that pays back (see plan.ts) runs only when
   * it frees at least this share of the effective window: smaller, more frequent summaries cost
   * less but keep less of the history verbatim (measured by the replay's FRR).
   */
  readonly minEarlySavingShare: number;
  /**
   * Whether the request after a compaction that summarised or dropped turns re-attaches the
   * files read or edited most recently, read fresh (see reattach.ts).
   */
  readonly reattachAfterCompaction: boolean;
  /** Settings of the server strategies (`server-clear-tool-uses`, `server-compact`); absent: their defaults. */
  readonly server?: ServerContextSettings;
}

/** Defaults: summarise automatically at the soft threshold down to 50 %; a 10 % buffer at the hard one. */
export const DEFAULT_COMPACTION_SETTINGS: CompactionSettings = {
  strategy: 'summarise',
  softAction: 'auto',
  softTarget: 0.5,
  hardBuffer: 0.1,
  summariserTimeoutMs: 300_000,
  summaryPolicy: 'rolling',
  maskToolResults: true,
  paybackRequests: 30,
  clearAtLeastTokens: 0,
  minSoftSavingShare: 0.1,
  minEarlySavingShare: 0.2,
  reattachAfterCompaction: true,
  server: DEFAULT_SERVER_CONTEXT_SETTINGS,
};

/** The effective window, from its one home (pipeline/window.ts); re-exported for the compaction modules. */
export { effectiveWindow };

/** What the thresholds say about a prompt of `tokens`. */
export type Pressure = {
  readonly level: 'ok' | 'soft' | 'hard';
  readonly utilisation: number;
  readonly tokensToFree: number;
};

/**
 * Compares a prompt size with the thresholds. Soft: bring it down to `softTarget`; hard: down
 * to (hard threshold − buffer) at least, so this request fits with room to spare.
 */
export function pressureOf(tokens: number, config: PipelineConfig, settings: CompactionSettings): Pressure {
  // The level is the one every surface shows (window.ts); `over` is past the hard threshold too.
  const { level, utilisation, effectiveWindow: eff } = contextPressure(tokens, config);
  if (level === 'hard' || level === 'over') {
    const target = Math.min(settings.softTarget, config.hardThreshold - settings.hardBuffer);
    return { level: 'hard', utilisation, tokensToFree: Math.ceil(tokens - target * eff) };
  }
  if (level === 'soft')
    return { level: 'soft', utilisation, tokensToFree: Math.ceil(tokens - settings.softTarget * eff) };
  return { level: 'ok', utilisation, tokensToFree: 0 };
}

/**
 * The protected tail takes at most this share of the room the fixed prompt (system prompt,
 * tools) leaves under the hard threshold less its buffer.
 */
export const KEEP_RECENT_MAX_ROOM_SHARE = 0.5;

/** Tokens of a request for `state` besides its messages (system prompt, tools, framing): `measure` less every message. */
export function fixedRequestTokens(
  state: ConversationState,
  tokensOf: (m: Message) => number,
  measure: (state: ConversationState) => number,
): number {
  let messageTokens = 0;
  for (const m of state.messages) messageTokens += tokensOf(m);
  return Math.max(0, measure(state) - messageTokens);
}

/** The prompt size a compaction at the hard threshold must at least reach: the threshold less its buffer. */
export function hardTargetTokens(config: PipelineConfig, settings: CompactionSettings): number {
  return (config.hardThreshold - settings.hardBuffer) * effectiveWindow(config);
}

/**
 * The newest tokens a compaction keeps out of every region: the configured `keepRecentTokens`,
 * capped to {@link KEEP_RECENT_MAX_ROOM_SHARE} of what the fixed prompt (`fixedTokens`) leaves
 * under the hard threshold less its buffer (where a hard compaction must at least bring the
 * prompt). The config caps the tail by the window alone; this cap also counts the system prompt
 * and tools, so a large one (a 24k-token agent prompt in a 64k window, many MCP tools in a 100k
 * one) cannot leave a tail so large that no compaction could bring the prompt under the
 * threshold. 0 when nothing is left.
 */
export function keepRecentTokensFor(config: PipelineConfig, settings: CompactionSettings, fixedTokens: number): number {
  const room = Math.max(0, hardTargetTokens(config, settings) - fixedTokens);
  return Math.min(config.keepRecentTokens, Math.floor(KEEP_RECENT_MAX_ROOM_SHARE * room));
}

/**
 * The share-of-window minimums stop growing at these many tokens. What makes a compaction pay
 * (planEconomics.ts `paysBack`: the rewrite and summariser repaid by the reads it saves, within a
 * cycle set by how fast the prompt grows) does not grow with the window, so in a 1M-token
 * window a 20 % minimum (190k tokens) would let the history grow, and be read on every
 * request, for hundreds of requests before anything ran. At 200k and below the shares decide.
 */
export const CLEAR_AT_LEAST_MAX_TOKENS = 20_000;
/** See {@link CLEAR_AT_LEAST_MAX_TOKENS}: the cap on an early summary's minimum saving. */
export const EARLY_SAVING_MAX_TOKENS = 40_000;
/** See {@link CLEAR_AT_LEAST_MAX_TOKENS}: the cap on an automatic soft compaction's minimum saving. */
export const SOFT_SAVING_MAX_TOKENS = 20_000;

/**
 * The least a cheap edit (masking) frees at once: the user's `clearAtLeastTokens`, or (0) 10 %
 * of the effective window `eff`, at least 1,000 and at most {@link CLEAR_AT_LEAST_MAX_TOKENS}.
 */
export function clearAtLeastTokensFor(settings: CompactionSettings, eff: number): number {
  if (settings.clearAtLeastTokens > 0) return settings.clearAtLeastTokens;
  return Math.max(1_000, Math.min(CLEAR_AT_LEAST_MAX_TOKENS, Math.round(0.1 * eff)));
}

/**
 * The least a summary below the soft threshold frees: `minEarlySavingShare` of `eff`, at most
 * {@link EARLY_SAVING_MAX_TOKENS}, and never less than {@link clearAtLeastTokensFor}.
 */
export function minEarlySavingTokens(settings: CompactionSettings, eff: number): number {
  const share = Math.min(EARLY_SAVING_MAX_TOKENS, Math.round(settings.minEarlySavingShare * eff));
  return Math.max(clearAtLeastTokensFor(settings, eff), share);
}

/** The least an automatic soft compaction frees: `minSoftSavingShare` of `eff`, at most {@link SOFT_SAVING_MAX_TOKENS}. */
export function minSoftSavingTokens(settings: CompactionSettings, eff: number): number {
  return Math.min(SOFT_SAVING_MAX_TOKENS, Math.round(settings.minSoftSavingShare * eff));
}
