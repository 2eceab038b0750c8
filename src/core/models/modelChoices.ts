/**
 * The choices of the model picker (Choose Model…), each saying what the switch would mean
 * for the open conversation: the model's window and prices, how much of that window the
 * conversation would fill (in the model's own tokens), and what starting its prompt cache
 * afresh costs — a new model never reads the old one's cache (platform.claude.com/docs/en/
 * build-with-claude/prompt-caching: the cache is per model), so the next request writes the
 * whole prompt again. The list is the Models API's (what the key can use) when it answered,
 * else the maintained table. Pure.
 */
import type { CacheTtl } from '../conversation/conversationModel';
import { modelInfo, rateCardFor, type TokenizerFamily } from './modelFacts';
import { MODEL_TABLE } from './modelTable';
import { shortTokens } from '../platform/text';

/** A model as the Models API lists it (`GET /v1/models`). */
export interface ListedModel {
  readonly id: string;
  readonly displayName?: string;
  /** The API's window (`max_input_tokens`), when it gave one. */
  readonly maxInputTokens?: number;
  /** `deprecated` models are still callable; `retired` ones are never offered. */
  readonly lifecycle?: 'active' | 'deprecated' | 'retired';
}

/** What the picker needs to know. */
export interface ModelChoiceInput {
  /** The model in use (first in the list, marked current). */
  readonly current: string;
  /** The Models API's list; undefined when it was not reached (the table is offered). */
  readonly listed?: readonly ListedModel[];
  /** The open conversation's prompt in the current model's tokens (0: nothing to carry over). */
  readonly promptTokens: number;
  /** The cache lifetime the requests ask for (its write price applies). */
  readonly cacheTtl: CacheTtl;
  /** The user's `contextPipeline.contextWindow` when set (> 0): it is every model's window then. */
  readonly windowSetting?: number;
}

/** One entry of the picker. */
export interface ModelChoice {
  readonly id: string;
  readonly current: boolean;
  /** `Claude Opus 4.6 · 1M window · $5 / $25 per MTok` (prices from the maintained table). */
  readonly description: string;
  /**
   * What switching means for this conversation, on one short line (a quick pick cuts longer
   * ones): the share of the window it fills in the model's tokens, and the cache write it
   * costs. Empty for the current model or an empty conversation.
   */
  readonly detail: string;
}

/**
 * How many tokens one text is in `to`'s tokenizer for each token in `from`'s: the newer
 * tokenizer (Opus 4.7+, Sonnet 5, Fable, Mythos, Haiku 5.5) gives "approximately 30 percent
 * more tokens" for the same text (platform.claude.com/docs/en/build-with-claude/token-counting).
 */
export function tokenizerRatio(from: TokenizerFamily, to: TokenizerFamily): number {
  if (from === to) return 1;
  return to === 'claude-2026' ? 1.3 : 1 / 1.3;
}

/**
 * Whether `text` can be a model id to send: letters, digits and `-._:@` (dated ids, Vertex's
 * `@date`, a proxy's `vendor:model`), an optional `[1m]` suffix, at most 100 characters.
 */
export function isModelId(text: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,99}(\[1m\])?$/.test(text);
}

function price(n: number): string {
  return `$${Number.isInteger(n) ? n : n.toFixed(2).replace(/0$/, '')}`;
}

function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** The ids to offer: the API's (not retired) or the table's, the current one first, no duplicates. */
function offeredIds(input: ModelChoiceInput): string[] {
  const ids = input.listed
    ? input.listed.filter((m) => m.lifecycle !== 'retired').map((m) => m.id)
    : MODEL_TABLE.map((m) => m.id);
  return [...new Set([input.current, ...ids])];
}

/** The picker's entries, the current model first (see the module comment). */
export function modelChoices(input: ModelChoiceInput): ModelChoice[] {
  const from = modelInfo(input.current);
  const listed = new Map((input.listed ?? []).map((m) => [m.id, m]));
  return offeredIds(input).map((id): ModelChoice => {
    const info = modelInfo(id);
    const api = listed.get(id);
    const window = input.windowSetting ?? api?.maxInputTokens ?? info.contextWindow;
    const windowNote = input.windowSetting
      ? ' (your contextWindow setting)'
      : info.known || api?.maxInputTokens
        ? ''
        : ' (assumed)';
    const name = api?.displayName && api.displayName !== id ? api.displayName : undefined;
    const prices =
      info.known && info.prices
        ? `${price(info.prices.input)} / ${price(info.prices.output)} per MTok`
        : 'price unknown';
    const current = id === input.current;
    const description = [
      ...(current ? ['current'] : []),
      ...(name ? [name] : []),
      `${shortTokens(window)} window${windowNote}`,
      prices,
      ...(api?.lifecycle === 'deprecated' ? ['deprecated'] : []),
    ].join(' · ');
    if (current || input.promptTokens <= 0) return { id, current, description, detail: '' };
    const tokens = input.promptTokens * tokenizerRatio(from.tokenizer, info.tokenizer);
    const share = tokens / window;
    const fits =
      share > 1
        ? `Over its window (≈ ${count(tokens)} tokens): the next request compacts first`
        : `Fills ${Math.max(1, Math.round(share * 100))} % of its window (≈ ${count(tokens)} tokens)`;
    const sent = Math.min(tokens, window);
    const card = info.prices ? rateCardFor(info.prices, sent) : undefined;
    const write = card ? (input.cacheTtl === '1h' ? card.cacheWrite1h : card.cacheWrite5m) : undefined;
    const cache = `cache starts over${write === undefined ? '' : `: ≈ $${((sent * write) / 1e6).toFixed(2)} to write it again`}`;
    return { id, current, description, detail: `${fits} · ${cache}` };
  });
}
