import type { CacheLifetime, PipelineConfig } from '../conversation/conversationModel';
import { DEFAULT_OUTPUT_RESERVE, modelInfo } from '../models/modelFacts';
import { THINKING_SETTINGS, type ThinkingSetting } from '../models/thinking';
import { formatCount as fmt } from '../text/counts';
import { effectiveWindow, pasteThresholdFor } from './window';

/** What a user may set; everything optional, resolved against the model's facts. */
export interface PipelineSettings {
  readonly model?: string;
  readonly summarizerModel?: string;
  /**
   * Who writes summaries: `auto` (default, by expected cost), `main` (the main model from its
   * cache), `small` (`summarizerModel`) or `server` (the API: compaction on demand).
   */
  readonly summarizer?: string;
  /** 0 or absent: the model's window. */
  readonly contextWindow?: number;
  /** 0 or absent: the model's default answer reserve (max_tokens). */
  readonly maxOutputTokens?: number;
  readonly softThreshold?: number;
  readonly hardThreshold?: number;
  readonly keepRecentTurns?: number;
  /** Absent or null: {@link defaultKeepRecentTokens} of the window. */
  readonly keepRecentTokens?: number | null;
  readonly cacheTtl?: CacheLifetime;
  readonly pasteThresholdChars?: number;
  /** Extended thinking: off (default), low, medium or high. */
  readonly thinking?: ThinkingSetting;
}

/** The model used when none is set: a current Sonnet (4.5 reaches end-of-life on 2026-11-30). */
export const DEFAULT_MODEL = 'claude-sonnet-4-6';

/** Smallest window the pipeline accepts, and the size under which it warns. */
export const MIN_CONTEXT_WINDOW = 16_000;

/**
 * The largest window taken from a setting or the Models API (the `contextPipeline.contextWindow`
 * setting's schema maximum): a bigger figure — 1e12, Infinity — would turn compaction off.
 */
export const MAX_CONTEXT_WINDOW = 2_000_000;

/** The largest output limit taken from the Models API (no model answers with more). */
export const MAX_API_OUTPUT_TOKENS = 1_000_000;

/** `n` when it is a finite number within [min, max] (floored), else undefined. */
function within(n: unknown, min: number, max: number): number | undefined {
  return typeof n === 'number' && Number.isFinite(n) && n >= min && n <= max ? Math.floor(n) : undefined;
}
export const WARN_CONTEXT_WINDOW = 32_000;

/** The protected tail when `keepRecentTokens` is not set: at least this many tokens… */
export const KEEP_RECENT_DEFAULT_TOKENS = 12_000;
/** …or this share of the window when that is more (16 000 tokens in a 200k window)… */
export const KEEP_RECENT_DEFAULT_SHARE = 0.08;
/** …but never more than this many tokens by default (a 1M window would otherwise protect 80 000, and never summarise). */
export const KEEP_RECENT_DEFAULT_MAX_TOKENS = 20_000;

/**
 * The newest tokens compaction keeps verbatim when the user has not set `keepRecentTokens`:
 * {@link KEEP_RECENT_DEFAULT_TOKENS}, or {@link KEEP_RECENT_DEFAULT_SHARE} of the window when
 * more (at most {@link KEEP_RECENT_DEFAULT_MAX_TOKENS}), so a larger window keeps more of the
 * newest history word for word. Replayed on the real sessions (README, Benchmarks), 16 000
 * in a 200k window keeps forward-reference recall within 2 points of summarising everything
 * at 85 % on all three (12 000 lost 3.3 points on Claude Code's) for 3–5 % more cost; 16 000
 * in a 100k window cost 6–12 % more for little recall.
 */
export function defaultKeepRecentTokens(window: number): number {
  const share = Math.min(KEEP_RECENT_DEFAULT_MAX_TOKENS, Math.round(KEEP_RECENT_DEFAULT_SHARE * window));
  return Math.max(KEEP_RECENT_DEFAULT_TOKENS, share);
}

/**
 * The protected tail (`keepRecentTokens`) takes at most this share of the effective window.
 * Compaction can only shrink what lies before the tail, and at the hard threshold it must
 * bring the prompt down to about half the effective window, so a tail as large as the window
 * would leave nothing to compact and the next request would overflow. 0.3 leaves room for the
 * system prompt, the tools and the summaries; it only bites for small windows (a 200k window
 * keeps up to 50 000 tokens).
 */
export const KEEP_RECENT_MAX_SHARE = 0.3;

/**
 * Where the context window came from, in the order it is chosen: an explicit user setting
 * (`contextPipeline.contextWindow` > 0) wins; else the Models API's `max_input_tokens` for the
 * model (when the host reached it this session); else the maintained table (modelTable.ts);
 * else `assumed` (a model the table does not know: a conservative 200k).
 */
export type WindowSource = 'setting' | 'models-api' | 'table' | 'assumed';

/** What the Models API said about a model (`GET /v1/models/{id}`); absent fields: it did not say. */
export interface ApiModelLimits {
  readonly id: string;
  /** `max_input_tokens`: the input context window. */
  readonly maxInputTokens?: number;
  /** `max_tokens`: the largest `max_tokens` the model accepts. */
  readonly maxTokens?: number;
  /**
   * `capabilities.context_management.compact_20260112.supported` (SDK ModelInfo, models.d.ts
   * ContextManagementCapability), when the Models API said; absent: unknown (the table decides).
   */
  readonly serverCompaction?: boolean;
  /**
   * `capabilities.compaction.summarize.supported` (SDK BetaModelInfo, asked with the
   * `compact-2026-09-04` beta): whether the model takes a compaction request; absent: the table decides.
   */
  readonly onDemandCompaction?: boolean;
}

/** Result of resolving settings: a config, plus problems a person should read. */
export type ConfigResult =
  | {
      readonly ok: true;
      readonly config: PipelineConfig;
      readonly warnings: readonly string[];
      readonly windowSource: WindowSource;
    }
  | { readonly ok: false; readonly error: string };

/**
 * Resolves user settings into a PipelineConfig. The window is the user's setting, else the
 * Models API's figure (`api`, when given for this model), else the table's (see WindowSource);
 * the model's default answer reserve is min(32k, its output limit from the same sources).
 * Refuses windows under 16k tokens, warns under 32k, clamps thresholds into range and keeps
 * hard above soft. Pure; never throws.
 */
export function resolveConfig(settings: PipelineSettings, api?: ApiModelLimits): ConfigResult {
  const model = (settings.model ?? '').trim() || DEFAULT_MODEL;
  const table = modelInfo(model);
  const fromApi = api && api.id === model ? api : undefined;
  const warnings: string[] = [];
  // The Models API's figures are taken only when plausible: a proxy or a hostile endpoint can
  // answer anything (a window of 1e12 turns compaction off), and the table is the fallback.
  const apiWindow = within(fromApi?.maxInputTokens, MIN_CONTEXT_WINDOW, MAX_CONTEXT_WINDOW);
  const apiOutput = within(fromApi?.maxTokens, 1, MAX_API_OUTPUT_TOKENS);
  if (fromApi?.maxInputTokens !== undefined && apiWindow === undefined)
    warnings.push(
      `The Models API reported a context window of ${String(fromApi.maxInputTokens)} tokens for ${model}, which is not plausible: the maintained table's ${fmt(table.contextWindow)} is used.`,
    );
  const info = { ...table, ...(apiOutput ? { outputReserve: Math.min(DEFAULT_OUTPUT_RESERVE, apiOutput) } : {}) };
  const explicitWindow =
    settings.contextWindow && settings.contextWindow > 0 ? Math.floor(settings.contextWindow) : undefined;
  if (explicitWindow !== undefined && !(explicitWindow <= MAX_CONTEXT_WINDOW))
    return {
      ok: false,
      error: `A context window of ${fmt(explicitWindow)} tokens is more than the ${fmt(MAX_CONTEXT_WINDOW)} Context Pipeline accepts: set contextPipeline.contextWindow to the model's real window (or 0 to use it).`,
    };
  const windowSource: WindowSource = explicitWindow
    ? 'setting'
    : apiWindow
      ? 'models-api'
      : table.known
        ? 'table'
        : 'assumed';
  if (windowSource === 'assumed')
    warnings.push(
      `Unknown model "${model}": assuming a ${table.contextWindow.toLocaleString('en-US')}-token window. Set contextPipeline.contextWindow if that is wrong.`,
    );
  const window = explicitWindow ?? apiWindow ?? table.contextWindow;
  if (window < MIN_CONTEXT_WINDOW) {
    return {
      ok: false,
      error: `A context window of ${fmt(window)} tokens is too small: Context Pipeline needs at least ${fmt(MIN_CONTEXT_WINDOW)} tokens to hold the system prompt, tools and a useful history.`,
    };
  }
  if (window < WARN_CONTEXT_WINDOW)
    warnings.push(`A context window of ${fmt(window)} tokens is small: expect frequent compaction.`);
  // The model's default reserve takes at most a quarter of the window; one the user set, at most half.
  const explicit =
    settings.maxOutputTokens && settings.maxOutputTokens > 0 ? Math.floor(settings.maxOutputTokens) : undefined;
  const outputReserve = explicit
    ? Math.min(explicit, Math.floor(window / 2))
    : Math.min(info.outputReserve, Math.floor(window / 4));
  if (explicit && explicit > outputReserve)
    warnings.push(
      `An answer reserve of ${fmt(explicit)} tokens leaves too little room in a ${fmt(window)}-token window; using ${fmt(outputReserve)}.`,
    );
  let soft = clamp(settings.softThreshold ?? 0.7, 0.3, 0.95);
  let hard = clamp(settings.hardThreshold ?? 0.9, 0.5, 0.99);
  if (hard <= soft) {
    warnings.push(
      `The hard threshold (${hard}) must be above the soft one (${soft}); using ${Math.min(0.99, soft + 0.05).toFixed(2)}.`,
    );
    hard = Math.min(0.99, soft + 0.05);
    soft = Math.min(soft, hard - 0.01);
  }
  // The user's own value is capped with a warning; the default is capped silently.
  const keepSet =
    typeof settings.keepRecentTokens === 'number' ? Math.max(0, Math.floor(settings.keepRecentTokens)) : undefined;
  const keepWanted = keepSet ?? defaultKeepRecentTokens(window);
  const keepMax = Math.floor(KEEP_RECENT_MAX_SHARE * effectiveWindow({ contextWindow: window, outputReserve }));
  const keepRecentTokens = Math.min(keepWanted, keepMax);
  if (keepSet !== undefined && keepSet > keepMax)
    warnings.push(
      `Keeping the newest ${fmt(keepWanted)} tokens out of compaction (keepRecentTokens) leaves it too little to shrink in a ${fmt(window)}-token window; keeping ${fmt(keepMax)}.`,
    );
  return {
    ok: true,
    warnings,
    windowSource,
    config: {
      model,
      summarizerModel: (settings.summarizerModel ?? '').trim() || 'claude-haiku-4-5',
      summarizer:
        settings.summarizer === 'main' || settings.summarizer === 'small' || settings.summarizer === 'server'
          ? settings.summarizer
          : 'auto',
      contextWindow: window,
      outputReserve,
      softThreshold: soft,
      hardThreshold: hard,
      keepRecentTurns: Math.max(0, Math.floor(settings.keepRecentTurns ?? 0)),
      keepRecentTokens,
      cacheTtl: settings.cacheTtl === '1h' || settings.cacheTtl === '5m' ? settings.cacheTtl : 'auto',
      minCacheableTokens: info.minCacheableTokens,
      pasteThresholdChars: pasteThresholdFor(settings.pasteThresholdChars, window),
      ...(settings.thinking && settings.thinking !== 'off' && THINKING_SETTINGS.includes(settings.thinking)
        ? { thinking: settings.thinking }
        : {}),
      ...(fromApi?.serverCompaction !== undefined ? { serverCompaction: fromApi.serverCompaction } : {}),
      ...(fromApi?.onDemandCompaction !== undefined ? { onDemandCompaction: fromApi.onDemandCompaction } : {}),
    },
  };
}

function clamp(v: number, lo: number, hi: number): number {
  return Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : lo;
}
