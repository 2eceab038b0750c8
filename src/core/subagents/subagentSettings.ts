/**
 * The subagent settings' defaults and bounds, and the pipeline config a subagent runs with.
 * Pure.
 *
 * Defaults, and why:
 * - window 64k: a subagent re-sends its whole prompt every round, so the round price grows with
 *   what it has read; 64k holds ~40k tokens of reads before its own compaction starts (soft at
 *   70 % of the usable window), plenty for "find X and report", while a 200k window would let
 *   a wandering subagent spend up to 3× more per round before anything shrinks it.
 * - model '' = the summariser model (claude-haiku-4-5): the subagents' work is reading and
 *   searching, and their report is checked by the main model; Haiku 4.5's price is a third of
 *   Sonnet's and a fifth of Opus's per token (models/modelTable.ts, from Anthropic's pricing
 *   page), which the subagents bench measures on the scripted exploration
 *   (`npm run bench -- subagents`). Set the main model's id for harder delegated work.
 * - 3 at a time, 30 rounds each: bounded spend and rate limits; a round limit hit is an error
 *   result, never a hang.
 */
import { resolveConfig, type ConfigResult } from '../pipeline/config';
import type { PipelineConfig } from '../conversation/conversationModel';
import { modelInfo } from '../models/modelFacts';

/** The subagent settings (`contextPipeline.subagents.*`). */
export interface SubagentSettings {
  /** Subagents are offered (`task`). */
  readonly enabled: boolean;
  /** Tool rounds one subagent may run before it is stopped with an error result. */
  readonly maxRounds: number;
  /** Subagents of one tool round that run at the same time; the others wait their turn. */
  readonly maxConcurrent: number;
  /** The subagent's context window in tokens. */
  readonly contextWindow: number;
  /** The subagent's model ('' : the summariser model). */
  readonly model: string;
  /** edit_file and run_command (when enabled) are offered to subagents too, with the usual approvals. */
  readonly allowEdits: boolean;
}

/** The defaults (see the module comment). */
export const DEFAULT_SUBAGENT_SETTINGS: SubagentSettings = Object.freeze({
  enabled: true,
  maxRounds: 30,
  maxConcurrent: 3,
  contextWindow: 64_000,
  model: '',
  allowEdits: false,
});

/** Bounds of the numeric settings (the package.json schema says the same). */
export const SUBAGENT_LIMITS = Object.freeze({
  maxRounds: [1, 200],
  maxConcurrent: [1, 8],
  contextWindow: [16_000, 2_000_000],
} as const);

/** Raw values (as a settings store gives them, possibly anything) brought within bounds, defaults for the rest. */
export function subagentSettingsOf(raw: Partial<Record<keyof SubagentSettings, unknown>>): SubagentSettings {
  const d = DEFAULT_SUBAGENT_SETTINGS;
  const int = (v: unknown, [lo, hi]: readonly [number, number], fallback: number) =>
    typeof v === 'number' && Number.isFinite(v) ? Math.min(hi, Math.max(lo, Math.floor(v))) : fallback;
  return {
    enabled: typeof raw.enabled === 'boolean' ? raw.enabled : d.enabled,
    maxRounds: int(raw.maxRounds, SUBAGENT_LIMITS.maxRounds, d.maxRounds),
    maxConcurrent: int(raw.maxConcurrent, SUBAGENT_LIMITS.maxConcurrent, d.maxConcurrent),
    contextWindow: int(raw.contextWindow, SUBAGENT_LIMITS.contextWindow, d.contextWindow),
    model: typeof raw.model === 'string' ? raw.model.trim() : d.model,
    allowEdits: typeof raw.allowEdits === 'boolean' ? raw.allowEdits : d.allowEdits,
  };
}

/** The model a subagent runs on: the setting's, else the parent's summariser model. */
export function subagentModel(parent: PipelineConfig, s: SubagentSettings): string {
  return s.model || parent.summarizerModel;
}

/**
 * The config a subagent runs with: its model, its window (the setting's, at most the model's),
 * the parent's thresholds and paste limit, a 5-minute cache (a subagent's requests follow
 * each other within seconds; a 1-hour write costs 2× instead of 1.25×), no extended thinking,
 * and small-model summaries of its own history. An error value when it cannot be built.
 */
export function subagentConfig(parent: PipelineConfig, s: SubagentSettings): ConfigResult {
  const model = subagentModel(parent, s);
  return resolveConfig({
    model,
    summarizerModel: parent.summarizerModel,
    summarizer: 'small',
    contextWindow: Math.min(s.contextWindow, modelInfo(model).contextWindow),
    softThreshold: parent.softThreshold,
    hardThreshold: parent.hardThreshold,
    keepRecentTurns: 0,
    keepRecentTokens: null,
    cacheTtl: '5m',
    pasteThresholdChars: parent.pasteThresholdChars,
    thinking: 'off',
  });
}
