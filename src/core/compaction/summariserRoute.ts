/**
 * Which model writes a summary, by expected cost. Two routes here, and a third beside them:
 *
 * - `small`: the summariser model (`summarizerModel`, Haiku by default) reads the region as a
 *   fresh transcript (plus its summary prompt) at its input price and writes the summary at
 *   its output price;
 * - `main`: the main model reads the conversation's CURRENT prompt — the very prefix the last
 *   request cached, so a warm cache serves it as cache reads (0.1× input) — with a summarise
 *   instruction appended to the last user message, and writes the summary at its own output
 *   price. What the cache does not hold yet (the messages since the last request, or all of
 *   it when the cache is cold) is written to the cache at the write price; the instruction is
 *   plain input. A second region re-reads the whole prefix from the cache.
 *
 * For an Opus-class main model with a warm cache, the main route is usually cheaper than
 * Haiku's fresh input (Claude Code and pi summarise this way); with a cold cache or a
 * cheaper main model, the small one usually is. `contextPipeline.summarizer` forces either.
 *
 * The third, `server` (compaction on demand: the API summarises the messages sent, serverRoute.ts
 * and serverSummary.ts), is weighed after this choice, for the region that starts the history
 * only; the choice here stays the route of every other region and the fallback. Pure.
 */
import type { CacheTtl } from '../conversation/conversationModel';
import { planningPrices } from '../models/modelFacts';

/**
 * The user's setting: pick by expected cost, or always one route (`server`: compaction on
 * demand wherever it can run, the cheaper of the other two elsewhere).
 */
export type SummarizerSetting = 'auto' | 'main' | 'small' | 'server';

/** The settings' values, for validation. */
export const SUMMARIZER_SETTINGS: readonly SummarizerSetting[] = ['auto', 'main', 'small', 'server'];

/** A route the summary can take. */
export type SummariserRouteName = 'main' | 'small' | 'server';

/** Tokens of the small route's summary prompt and request framing, per request. */
export const SMALL_PROMPT_OVERHEAD_TOKENS = 900;
/** Tokens of the main route's summarise instruction (the rules, the stretch, the length). */
export const MAIN_INSTRUCTION_TOKENS = 900;

/**
 * Share of a region a summary is expected to take when pricing the routes: real summaries
 * come out at 1–2 % of what they replace (bench/summaryLength.ts measures 1.7 % over the
 * real compactions in test/fixtures), far under the 1/5 the prompt allows.
 */
export const EXPECTED_SUMMARY_SHARE = 0.017;
/** …and never under this many tokens (headings and the state of the work alone). */
export const EXPECTED_SUMMARY_FLOOR = 500;

/** Summary tokens expected out of a region of `tokens` asked for at most `target` tokens. */
export function expectedSummaryTokens(tokens: number, target: number): number {
  return Math.max(0, Math.min(target, Math.max(EXPECTED_SUMMARY_FLOOR, Math.round(EXPECTED_SUMMARY_SHARE * tokens))));
}

/** The expected cost of one route, in US dollars (planning prices: an unknown model gets a mid-range guess). */
export interface RouteCost {
  readonly model: string;
  readonly usd: number;
}

/** What the plan decided about the summariser. */
export interface SummariserChoice {
  readonly route: SummariserRouteName;
  /** The model that writes the summary. */
  readonly model: string;
  readonly setting: SummarizerSetting;
  readonly small: RouteCost;
  /** Absent when the main route cannot run (the prompt plus the summary would not fit the main model's window). */
  readonly main?: RouteCost;
  /** Why this route, in a sentence. */
  readonly reason: string;
  /** The share of expected cache reads this session saw miss, when the main route's warm estimate was priced with it. */
  readonly cacheMissRate?: number;
  /** The server route's expected cost for the first region (serverRoute.ts), when it was weighed. */
  readonly server?: RouteCost;
  /** With route `server`: the route of the regions the server cannot take, and of its fallback. */
  readonly fallback?: 'main' | 'small';
}

/** One region to summarise: its tokens, what the small route reads of it, and the summary tokens expected out. */
export interface RouteRegion {
  readonly tokens: number;
  /**
   * Tokens of the region's transcript, which the small route sends instead of the messages
   * (transcriptTokens.ts); absent: `tokens`.
   */
  readonly readTokens?: number;
  readonly outputTokens: number;
}

/** What the cost model needs. */
export interface RouteInputs {
  readonly setting: SummarizerSetting;
  readonly mainModel: string;
  readonly smallModel: string;
  readonly regions: readonly RouteRegion[];
  /** Tokens of the whole current prompt (system, tools, messages). */
  readonly promptTokens: number;
  /** Tokens of the prompt the last request did not cache (the messages added since). */
  readonly uncachedTokens: number;
  readonly cacheWarm: boolean;
  readonly cacheTtl: CacheTtl;
  /** The main model's window, and the answer room a summary request keeps (its max_tokens). */
  readonly mainContextWindow: number;
  readonly mainOutputReserve: number;
  /** Why the main route cannot run at all (e.g. a server strategy edits the cached prompt); absent: it can. */
  readonly mainUnavailable?: string;
  /**
   * Output tokens the main model spends per answer beyond what it shows (its thinking, which a
   * summary request carries as the conversation does: "changes to thinking parameters
   * (enabled/disabled or budget allocation) invalidate message cache breakpoints",
   * https://platform.claude.com/docs/en/build-with-claude/extended-thinking, "Extended thinking
   * with prompt caching"), as measured on this session's answers; absent or 0: none.
   */
  readonly mainThinkingTokens?: number;
  /**
   * Share of this session's requests that expected a cache read and found the cache empty (a
   * full miss no edit explains), as measured; the main route's first request then writes the
   * whole prompt instead of reading it. Absent or 0: a warm cache is taken at its word.
   */
  readonly cacheMissRate?: number;
}

/** Expected cost of the small route: each region's transcript read fresh plus its prompt, and its summary. */
export function smallRouteUsd(inputs: Pick<RouteInputs, 'smallModel' | 'regions'>): number {
  const p = planningPrices(inputs.smallModel);
  let usd = 0;
  for (const r of inputs.regions)
    usd +=
      (Math.max(0, r.readTokens ?? r.tokens) + SMALL_PROMPT_OVERHEAD_TOKENS) * p.input +
      Math.max(0, r.outputTokens) * p.output;
  return usd / 1_000_000;
}

/**
 * Expected cost of the main route: the first request reads the cached part of the prompt
 * (warm cache) and writes the rest; each later region's request reads the whole prompt from
 * the cache; every request adds the instruction as input and its summary, plus the thinking
 * the main model is measured to spend per answer, at the output price. With a warm cache that
 * this session has been seen to miss at `cacheMissRate`, the cost is that mix of the warm
 * case and the cold one (the whole prompt written).
 */
export function mainRouteUsd(
  inputs: Pick<
    RouteInputs,
    | 'mainModel'
    | 'regions'
    | 'promptTokens'
    | 'uncachedTokens'
    | 'cacheWarm'
    | 'cacheTtl'
    | 'mainThinkingTokens'
    | 'cacheMissRate'
  >,
): number {
  const p = planningPrices(inputs.mainModel);
  const write = inputs.cacheTtl === '1h' ? p.cacheWrite1h : p.cacheWrite5m;
  const prompt = Math.max(0, inputs.promptTokens);
  const thinking = Math.max(0, inputs.mainThinkingTokens ?? 0);
  const cost = (uncached: number) => {
    let usd = 0;
    for (const [i, r] of inputs.regions.entries()) {
      const read = i === 0 ? prompt - uncached : prompt;
      const written = i === 0 ? uncached : 0;
      usd +=
        read * p.cacheRead +
        written * write +
        MAIN_INSTRUCTION_TOKENS * p.input +
        (Math.max(0, r.outputTokens) + thinking) * p.output;
    }
    return usd / 1_000_000;
  };
  if (!inputs.cacheWarm) return cost(prompt);
  const warm = cost(Math.min(prompt, Math.max(0, inputs.uncachedTokens)));
  const miss = Math.min(1, Math.max(0, inputs.cacheMissRate ?? 0));
  return miss > 0 ? (1 - miss) * warm + miss * cost(prompt) : warm;
}

/** Whether the main model can take the whole prompt, the instruction and a summary's answer room. */
export function mainRouteFits(
  inputs: Pick<RouteInputs, 'promptTokens' | 'mainContextWindow' | 'mainOutputReserve'>,
): boolean {
  return inputs.promptTokens + MAIN_INSTRUCTION_TOKENS + inputs.mainOutputReserve <= inputs.mainContextWindow;
}

/**
 * Picks the route: forced by the setting (`main` falls back to `small` only when the prompt
 * does not fit the main model), else the cheaper by expected cost (ties go to `small`, which
 * leaves the main model's rate limits alone). Both costs are recorded either way. `server`
 * picks here as `auto` does (this is then the route of the regions the server cannot take).
 */
export function chooseSummariser(inputs: RouteInputs): SummariserChoice {
  const small: RouteCost = { model: inputs.smallModel, usd: smallRouteUsd(inputs) };
  const fits = inputs.mainUnavailable === undefined && mainRouteFits(inputs);
  const main: RouteCost | undefined = fits ? { model: inputs.mainModel, usd: mainRouteUsd(inputs) } : undefined;
  const missRate = main && inputs.cacheWarm && inputs.cacheMissRate ? inputs.cacheMissRate : 0;
  const base = {
    setting: inputs.setting,
    small,
    ...(main ? { main } : {}),
    ...(missRate > 0 ? { cacheMissRate: missRate } : {}),
  };
  const pick = (route: SummariserRouteName, reason: string): SummariserChoice => ({
    ...base,
    route,
    model: route === 'main' ? inputs.mainModel : inputs.smallModel,
    reason,
  });
  if (!main)
    return pick(
      'small',
      inputs.mainUnavailable ??
        'the prompt would not fit the main model with a summary, so the summariser model reads the region',
    );
  if (inputs.setting === 'main') return pick('main', 'contextPipeline.summarizer is "main"');
  if (inputs.setting === 'small') return pick('small', 'contextPipeline.summarizer is "small"');
  return main.usd < small.usd
    ? pick('main', `the main model reading its ${inputs.cacheWarm ? 'warm' : 'cold'} cache is expected to cost less`)
    : pick('small', `the summariser model reading the region fresh is expected to cost less`);
}

/** The choice in words for the preview, e.g. `summariser: claude-opus-4-6 from cache, est. $0.04 vs claude-haiku-4-5 $0.09`. */
export function describeChoice(c: SummariserChoice): string {
  // Both estimates at one precision, so they compare: 4 decimals when either is under a cent or
  // when cents would show two different estimates as one.
  const other = c.main?.usd;
  const fine =
    Math.min(c.small.usd, other ?? Infinity) < 0.01 ||
    (other !== undefined && other !== c.small.usd && other.toFixed(2) === c.small.usd.toFixed(2));
  const usd = (x: number) => `$${fine ? x.toFixed(4) : x.toFixed(2)}`;
  const misses =
    c.cacheMissRate !== undefined && c.cacheMissRate >= 0.005
      ? ` (the cache missed ${Math.round(c.cacheMissRate * 100)} % of the reads this session expected)`
      : '';
  if (c.route === 'server')
    return `summariser: the API (compaction on demand, ${c.model}), est. ${usd(c.server?.usd ?? 0)} vs ${c.fallback === 'main' ? `${c.main?.model ?? c.model} from cache ${usd(c.main?.usd ?? 0)}` : `${c.small.model} ${usd(c.small.usd)}`}`;
  if (c.route === 'main')
    return `summariser: ${c.model} from cache, est. ${usd(c.main?.usd ?? 0)}${misses} vs ${c.small.model} ${usd(c.small.usd)}`;
  return c.main
    ? `summariser: ${c.model}, est. ${usd(c.small.usd)} vs ${c.main.model} from cache ${usd(c.main.usd)}${misses}`
    : `summariser: ${c.model}, est. ${usd(c.small.usd)} (the prompt is too large for ${c.setting === 'small' ? 'the main model' : 'the main model to summarise from cache'})`;
}
