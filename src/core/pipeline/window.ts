/**
 * The one home of the window figures: the effective window (what a prompt may use once the
 * answer's reserve is set aside) and the pressure a prompt puts on it (which threshold it
 * crossed, and where the thresholds are in tokens). The compaction policy, the status bar,
 * the budget panel and the chat header all take them from here; the webviews get them in
 * their state messages and only display them.
 */
import type { PipelineConfig } from '../conversation/conversationModel';
import { DEFAULT_PASTE_THRESHOLD_CHARS } from '../conversation/paste';
import { shortTokens } from '../platform/text';

/** The window settings the figures are computed from (fractions as in {@link PipelineConfig}). */
export type WindowFigures = Pick<PipelineConfig, 'contextWindow' | 'outputReserve' | 'softThreshold' | 'hardThreshold'>;

/** One block the conversation takes inline (a tool result, a paste) may hold this share of the window… */
export const INLINE_WINDOW_SHARE = 0.3;
/** …counted at this many characters a token. */
export const INLINE_CHARS_PER_TOKEN = 4;

/**
 * Characters one inline block may hold in a `contextWindow`-token window, before any other
 * bound ({@link INLINE_WINDOW_SHARE} at {@link INLINE_CHARS_PER_TOKEN}): the tool-result guard's
 * limit and the paste threshold's cap both start from it.
 */
export function inlineCharsFor(contextWindow: number): number {
  return Math.floor(Math.max(0, contextWindow) * INLINE_WINDOW_SHARE * INLINE_CHARS_PER_TOKEN);
}

/**
 * The paste threshold in force: the setting (default {@link DEFAULT_PASTE_THRESHOLD_CHARS}),
 * but at most what one inline block may hold in a `window`-token window (inlineCharsFor, as a
 * tool result) — a user's words are never compacted, so in a small window a paste the setting
 * lets through would leave no room at all — and at least 1 000 characters.
 */
export function pasteThresholdFor(settingChars: number | undefined, window: number): number {
  const setting = Math.floor(settingChars ?? DEFAULT_PASTE_THRESHOLD_CHARS);
  return Math.max(1_000, Math.min(setting, inlineCharsFor(window)));
}

/** The effective window: window − output reserve, at least 1 token. */
export function effectiveWindow(config: Pick<PipelineConfig, 'contextWindow' | 'outputReserve'>): number {
  return Math.max(1, config.contextWindow - config.outputReserve);
}

/** The levels of {@link ContextPressure}, from no pressure to a prompt that does not fit. */
export const PRESSURE_LEVELS = ['ok', 'soft', 'hard', 'over'] as const;
/** One level of {@link PRESSURE_LEVELS}. */
export type PressureLevel = (typeof PRESSURE_LEVELS)[number];

/** What the thresholds say about a prompt: its level and the figures (tokens) it was judged by. */
export interface ContextPressure {
  /**
   * `ok` below the soft threshold; `soft` at or past it; `hard` at or past the hard one;
   * `over` when the prompt is larger than the effective window (the answer's reserve no longer fits).
   */
  readonly level: PressureLevel;
  /** Prompt tokens / effective window (may exceed 1). */
  readonly utilisation: number;
  readonly effectiveWindow: number;
  /** Prompt tokens at which the soft threshold is crossed (soft fraction × effective window). */
  readonly softAt: number;
  /** Prompt tokens at which the hard threshold is crossed (hard fraction × effective window). */
  readonly hardAt: number;
  /** The one "% full": `utilisation` as a whole percentage of the effective (usable) window. */
  readonly percentFull: number;
  /** {@link percentFull} and what it is of, as every surface says it: `62 % of the 168k usable window`. */
  readonly fullness: string;
  /** Where the soft threshold is, in words: `70 % (118k)`. */
  readonly softMark: string;
  /** Where the hard threshold is, in words: `90 % (151k)`. */
  readonly hardMark: string;
}

/**
 * How full a prompt of `tokens` makes a usable window of `effective` tokens, as a whole
 * percentage and in words: `62 % of the 168k usable window`. The chat header, the status bar
 * and the budget panel all show this figure (never the share of the raw window).
 */
export function fullnessOf(
  tokens: number,
  effective: number,
): { readonly percentFull: number; readonly fullness: string } {
  const percentFull = Math.round((100 * tokens) / Math.max(1, effective));
  return { percentFull, fullness: `${percentFull} % of the ${shortTokens(effective)} usable window` };
}

/** A threshold in words: its percentage of the usable window and its tokens, `70 % (118k)`. */
function markOf(fraction: number, tokens: number): string {
  return `${Math.round(fraction * 100)} % (${shortTokens(tokens)})`;
}

/** The pressure a prompt of `tokens` puts on the window `config` describes (the one rule every surface shows). */
export function contextPressure(tokens: number, config: WindowFigures): ContextPressure {
  const eff = effectiveWindow(config);
  const utilisation = tokens / eff;
  const level: PressureLevel =
    tokens > eff
      ? 'over'
      : utilisation >= config.hardThreshold
        ? 'hard'
        : utilisation >= config.softThreshold
          ? 'soft'
          : 'ok';
  const softAt = Math.round(config.softThreshold * eff);
  const hardAt = Math.round(config.hardThreshold * eff);
  return {
    level,
    utilisation,
    effectiveWindow: eff,
    softAt,
    hardAt,
    ...fullnessOf(tokens, eff),
    softMark: markOf(config.softThreshold, softAt),
    hardMark: markOf(config.hardThreshold, hardAt),
  };
}
