/**
 * Extended thinking: what the `contextPipeline.thinking` setting sends for each model. Pure.
 *
 * Verified 2026-11 against @anthropic-ai/sdk 1.12.0 (`ThinkingConfigParam`, `ThinkingConfigEnabled`
 * "budget_tokens … Must be ≥1024 and less than `max_tokens`", `OutputConfig.effort` low | medium |
 * high | xhigh | max, `ThinkingBlockParam` "must be passed back unmodified and in their original
 * order") and the docs: https://platform.claude.com/docs/en/build-with-claude/extended-thinking
 * (enabled + budget_tokens; during tool use the thinking blocks of the assistant turn must be
 * passed back complete and unmodified; the final assistant message of a tool-use continuation
 * must start with a thinking block when thinking is on), the adaptive-thinking page
 * https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking (as mirrored by
 * https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-adaptive-thinking.html):
 * Opus 4.6 / Sonnet 4.6 take `{type: 'adaptive'}` with `output_config.effort` (`enabled` is
 * deprecated there), Opus 4.7 and later accept only adaptive, Sonnet 4.5 / Opus 4.5 and older
 * only `enabled` with a budget. Claude 3.5 Haiku has no extended thinking.
 */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { Message, ThinkingBlock } from '../conversation/conversationModel';

/** The setting: off, or how hard to think. */
export type ThinkingSetting = 'off' | 'low' | 'medium' | 'high';

/** The thinking settings, in order. */
export const THINKING_SETTINGS: readonly ThinkingSetting[] = ['off', 'low', 'medium', 'high'];

/** How a model takes thinking: a budget (`enabled`), adaptive with an effort, or not at all. */
export type ThinkingMode = 'budget' | 'adaptive' | 'none';

/** The API's minimum `budget_tokens`. */
export const MIN_THINKING_BUDGET = 1024;

/** `budget_tokens` per setting for models that take a budget. */
export const THINKING_BUDGETS: Readonly<Record<Exclude<ThinkingSetting, 'off'>, number>> = {
  low: 4_000,
  medium: 10_000,
  high: 24_000,
};

const ADAPTIVE = [
  /^claude-opus-4-[6-9]/,
  /^claude-sonnet-4-[6-9]/,
  /^claude-(opus|sonnet|haiku|fable|mythos)-[5-9]/,
  /^claude-mythos/,
];
const BUDGET = [
  /^claude-3-7-sonnet/,
  /^claude-sonnet-4(-[0-5])?(\b|-|$)/,
  /^claude-opus-4(-[0-5])?(\b|-|$)/,
  /^claude-haiku-4-5/,
];

/** How `model` takes thinking (dated ids and `-latest` aliases match their family; unknown models: none). */
export function thinkingMode(model: string): ThinkingMode {
  const id = model.trim().toLowerCase();
  if (ADAPTIVE.some((r) => r.test(id))) return 'adaptive';
  if (BUDGET.some((r) => r.test(id))) return 'budget';
  return 'none';
}

/** The request fields thinking adds (empty when off or not possible). */
export type ThinkingParams = Pick<MessageCreateParamsNonStreaming, 'thinking' | 'output_config'>;

/**
 * Whether the conversation is inside a tool-use turn whose last assistant message does not
 * start with a (signed) thinking block: turning thinking on there is refused by the API, so
 * the request goes without it until the turn ends.
 */
export function midTurnWithoutThinking(messages: readonly Message[]): boolean {
  const last = messages.at(-1);
  if (last?.role !== 'user' || !last.blocks.some((b) => b.type === 'tool_result')) return false;
  const assistant = messages.at(-2);
  if (assistant?.role !== 'assistant') return false;
  const first = assistant.blocks[0];
  return !(first?.type === 'thinking' && isSendableThinking(first));
}

/**
 * Whether a thinking block can be sent back to the API: signed thinking, or a redacted block
 * (its `data` is sent back as `redacted_thinking`; SDK `RedactedThinkingBlockParam`).
 */
export function isSendableThinking(b: ThinkingBlock): boolean {
  return Boolean(b.signature) || b.redactedData !== undefined;
}

/** Whether `b` is a redacted thinking block (`redacted_thinking` in the API). */
export function isRedactedThinking(b: ThinkingBlock): boolean {
  return b.redactedData !== undefined;
}

/** Models that keep the thinking of every earlier assistant turn in context (see {@link stripsEarlierThinking}). */
const KEEPS_ALL_THINKING = [
  /^claude-opus-4-[5-9]/,
  /^claude-sonnet-4-[6-9]/,
  /^claude-(opus|sonnet|haiku|fable|mythos)-[5-9]/,
  /^claude-mythos/,
];

/**
 * Whether the API strips the thinking of earlier turns from `model`'s context (and so does
 * not count it as input). The context-windows guide: "previous thinking blocks are
 * automatically stripped from the context window calculation by the Anthropic API",
 * `context_window = (input_tokens - previous_thinking_tokens) + current_turn_tokens`
 * (https://platform.claude.com/docs/en/build-with-claude/context-windows, "Context window
 * with extended thinking"); the extended-thinking guide
 * (https://platform.claude.com/docs/en/build-with-claude/extended-thinking, thinking block
 * preservation) narrows this per model: Opus 4.5 and later, Sonnet 4.6 and later and Mythos
 * keep all prior thinking blocks; Opus 4.1 and earlier, Sonnet 4.5 and earlier and the Haiku
 * models through 4.5 keep only the last assistant turn's. Unknown models: not stripped (the
 * estimate stays on the high side).
 */
export function stripsEarlierThinking(model: string): boolean {
  const id = model.trim().toLowerCase();
  if (KEEPS_ALL_THINKING.some((r) => r.test(id))) return false;
  return /^claude-(3-7-sonnet|sonnet-4|opus-4|haiku-4|3-5-haiku|3-haiku)/.test(id);
}

/**
 * The thinking fields of a request to `model` with `maxTokens`: adaptive (summarized display)
 * + effort where the model supports it, else a budget (the setting's, lowered to stay under `max_tokens`; left out
 * when under 1024 tokens would remain), nothing when off, unsupported, or mid tool-use turn
 * without thinking (see {@link midTurnWithoutThinking}).
 */
export function thinkingParams(
  model: string,
  setting: ThinkingSetting | undefined,
  maxTokens: number,
  messages: readonly Message[],
): ThinkingParams {
  if (!setting || setting === 'off') return {};
  const mode = thinkingMode(model);
  if (mode === 'none' || midTurnWithoutThinking(messages)) return {};
  // `display: 'summarized'`: Opus 4.7 and later and Fable default to `omitted` (thinking blocks come back with empty
  // text), so a user who turned thinking on would see none of it. SDK 1.12 `ThinkingConfigAdaptive.display`
  // ("summarized" | "omitted"; "The default depends on the model"); the default change is reported in
  // https://github.com/anthropics/claude-code/issues/49268 ("Opus 4.7 changed the default for the display
  // parameter to omitted").
  if (mode === 'adaptive')
    return { thinking: { type: 'adaptive', display: 'summarized' }, output_config: { effort: setting } };
  const budget = Math.min(THINKING_BUDGETS[setting], maxTokens - MIN_THINKING_BUDGET);
  return budget >= MIN_THINKING_BUDGET ? { thinking: { type: 'enabled', budget_tokens: budget } } : {};
}
