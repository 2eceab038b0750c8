/**
 * The compaction plan: one pure function that decides, before a request, what (if anything)
 * to compact and says why — the Compact Now preview shows this very plan and the run executes
 * it. Cache-aware: an edit at message p rewrites every cached token after p once (a cache
 * write instead of a read on the next request) and saves the freed tokens on every later
 * request (more where requests find the cache empty: they write what they would have read),
 * so an edit is made when that saving repays the rewrite within a few requests, deeply enough
 * that the next one is far away — and always before the hard threshold.
 *
 * Prices (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#pricing): a cache read costs
 * 0.1× the input price, a 5-minute cache write 1.25×, so a rewritten token costs 1.15× input more than a read one.
 */
import { planningPrices } from '../models/modelFacts';
import { isServerStrategy } from '../server/serverContext';
import type { ConversationState, Message } from '../conversation/conversationModel';
import { maskCandidates, type MaskCandidate } from './mask';
import { formatCount } from '../text/counts';
import { rewriteFrom, settledThrough } from '../cache/settledPrefix';
import {
  clearAtLeastTokensFor,
  effectiveWindow,
  hardTargetTokens,
  keepRecentTokensFor,
  minEarlySavingTokens,
  minSoftSavingTokens,
  pressureOf,
  type CompactionSettings,
  type Pressure,
} from './policy';
import {
  expectedReplacementTokens,
  expectedSaving,
  markRegions,
  pickRegions,
  protectedFrom,
  type CandidateRegion,
} from './regions';
import { maskPaysBeforeSummary, paysBack, requestsUntilPays, summariserChoice } from './planEconomics';
import type { SummariserChoice } from './summariserRoute';

/** Extra cost of a rewritten cached token over a read one, in units of the input price (1.25 − 0.1). */
export const REWRITE_PREMIUM = 1.15;
/** Cost of reading a cached token, in units of the input price. */
export const CACHE_READ_FACTOR = 0.1;

/** A region the plan would summarise, with its expected size afterwards. */
export interface PlannedRegion extends CandidateRegion {
  readonly expectedTokensAfter: number;
}

/** What the plan does. */
export type PlanAction = 'none' | 'mask' | 'summarise';

/** A compaction plan (see the module comment). Token figures are calibrated estimates. */
export interface CompactionPlan {
  readonly action: PlanAction;
  /** Why this action (or why none), in a sentence for the user. */
  readonly reason: string;
  readonly pressure: Pressure;
  /** Messages from this index on are protected (the newest tokens and the last tool round). */
  readonly protectedFrom: number;
  /** Tokens of the protected tail (kept verbatim whatever the action). */
  readonly protectedTokens: number;
  /** The turns protection used (0 at the hard threshold: the turn in progress may be cut). */
  readonly keepRecentTurns: number;
  /** The newest tokens protection used (see keepRecentTokensFor). */
  readonly keepRecentTokens: number;
  /** Results to mask (action `mask`). */
  readonly mask: readonly MaskCandidate[];
  /** Regions to summarise (action `summarise`), in conversation order. */
  readonly regions: readonly PlannedRegion[];
  readonly tokensBefore: number;
  readonly expectedAfter: number;
  readonly expectedSaving: number;
  /** Index of the first message the edit changes (-1: none); everything after it is rewritten in the cache. */
  readonly firstChangedIndex: number;
  /** Cached tokens the next request writes again because of the edit (0 when the cache is cold). */
  readonly rewriteTokens: number;
  /** Expected cost of the edit in US dollars: the rewrite premium plus the summariser. */
  readonly expectedCostUsd: number;
  /** Requests after which the saving has paid the edit back (Infinity when it never does). */
  readonly paybackRequests: number;
  /** Estimated prompt tokens at which the next automatic compaction is expected. */
  readonly nextCompactionAt: number;
  /** Action `summarise`: who writes the summaries and the expected cost of each route (see summariserRoute.ts). */
  readonly summariser?: SummariserChoice;
}

/** What planCompaction needs besides the state. */
export interface PlanInputs {
  readonly tokensOf: (m: Message) => number;
  /** Tokens outside the messages (system prompt, tools, unseen overhead). */
  readonly fixedTokens: number;
  readonly settings: CompactionSettings;
  /** Whether the prompt cache is still warm (the last request was within the TTL). */
  readonly cacheWarm: boolean;
  /** `auto`: before a request; `manual`: Compact Now (summarise everything compactable). */
  readonly mode: 'auto' | 'manual';
  /** How many tokens the prompt grows per request, as measured (undefined: not known yet). */
  readonly growthPerRequest?: number;
  /**
   * Whether the cache is warm for the summariser's route choice, when it differs from
   * `cacheWarm` (Compact Now plans its rewrite as warm but knows when the last request went).
   */
  readonly routeCacheWarm?: boolean;
  /** Output tokens the main model spends per answer beyond what it shows (its thinking), as measured. */
  readonly mainThinkingTokens?: number;
  /** Share of requests that expected a cache read and found none, as measured (see SessionMeasures). */
  readonly cacheMissRate?: number;
}

/**
 * At the hard threshold a compaction that frees less than the soft minimum waits while the
 * prompt is within this share of the effective window (the rest is the margin for the
 * estimate's error); past it, any compaction runs.
 */
export const HARD_WAIT_LIMIT = 0.97;

/** The reason's addition when stacked summaries are folded into the new one (see summarisePlan). */
export const STACKED_FOLD_NOTE =
  'The earlier summaries are folded into this one: without them the prompt would stay over the hard threshold.';

/** `plan` with the prompt size at which the next automatic compaction is now expected. */
function withNextAt(at: number, plan: CompactionPlan): CompactionPlan {
  return { ...plan, nextCompactionAt: at };
}

/** Plans the compaction of `state` (see the module comment). Pure; O(messages). */
export function planCompaction(state: ConversationState, inputs: PlanInputs): CompactionPlan {
  const { tokensOf, settings } = inputs;
  const cfg = state.config;
  const eff = effectiveWindow(cfg);
  const perMessage = state.messages.map(tokensOf);
  const tokensBefore = inputs.fixedTokens + perMessage.reduce((n, t) => n + t, 0);
  const pressure = pressureOf(tokensBefore, cfg, settings);
  const inputPrice = planningPrices(cfg.model).input / 1_000_000;
  const keepRecentTurns = pressure.level === 'hard' ? 0 : cfg.keepRecentTurns;
  const keepRecentTokens = keepRecentTokensFor(cfg, settings, inputs.fixedTokens);
  const regionOpts = {
    keepRecentTurns,
    keepRecentTokens,
    tokensOf,
    summaryPolicy: settings.summaryPolicy,
  };
  const protect = protectedFrom(state.messages, regionOpts);
  const clearAtLeast = clearAtLeastTokensFor(settings, eff);
  const nextCompactionAt = Math.round(cfg.softThreshold * eff);
  const suffix = (from: number) => {
    let n = 0;
    for (let i = Math.max(0, from); i < perMessage.length; i++) n += perMessage[i] as number;
    return n;
  };
  const base = {
    pressure,
    protectedFrom: protect,
    protectedTokens: suffix(protect),
    keepRecentTurns,
    keepRecentTokens,
    tokensBefore,
    nextCompactionAt,
  };
  const none = (reason: string): CompactionPlan => ({
    ...base,
    action: 'none',
    reason,
    mask: [],
    regions: [],
    expectedAfter: tokensBefore,
    expectedSaving: 0,
    firstChangedIndex: -1,
    rewriteTokens: 0,
    expectedCostUsd: 0,
    paybackRequests: Infinity,
  });

  // A request that finds the cache empty (a full miss: the entry was evicted, the server
  // missed) writes its whole prompt: a freed token saves the write price there, not a read,
  // and an edit's rewrite costs nothing extra before a request that would have missed anyway.
  // At the session's measured miss rate m, a freed token saves (0.1 + 1.15·m)× input a
  // request and a rewritten one costs 1.15·(1 − m)× more (the replayed sessions' real misses
  // are 0–8 % of their requests; on the pi session they are 14 % of the baseline's bill at 100k).
  const miss = Math.min(1, Math.max(0, inputs.cacheMissRate ?? 0));
  /** The figures of an edit that changes messages from `first` on, freeing `saving` tokens, plus `llmUsd`. */
  const settled = settledThrough(state.messages);
  const priced = (first: number, saving: number, llmUsd: number) => {
    const rewrite = inputs.cacheWarm ? Math.max(0, suffix(rewriteFrom(settled, first)) - saving) : 0;
    const cost = rewrite * REWRITE_PREMIUM * (1 - miss) * inputPrice + llmUsd;
    const perRequest = saving * (CACHE_READ_FACTOR + miss * REWRITE_PREMIUM) * inputPrice;
    return {
      expectedAfter: tokensBefore - saving,
      expectedSaving: saving,
      firstChangedIndex: first,
      rewriteTokens: rewrite,
      expectedCostUsd: cost,
      paybackRequests: perRequest > 0 ? cost / perRequest : Infinity,
    };
  };
  // Summarise: everything compactable before the protected tail. Stacked summaries stay, but
  // at the hard threshold, when what is left would not take the prompt under it, they are
  // folded into the new one (as rolling does): else no compaction could make the request fit.
  const summarisePlan = (): CompactionPlan | undefined => {
    const savingOf = (rs: readonly CandidateRegion[]) => rs.reduce((n, r) => n + expectedSaving(r), 0);
    let picked = pickRegions(markRegions(state, regionOpts), Infinity);
    let folds = false;
    if (
      pressure.level === 'hard' &&
      settings.summaryPolicy === 'stacked' &&
      tokensBefore - savingOf(picked) > hardTargetTokens(cfg, settings)
    ) {
      const all = pickRegions(markRegions(state, { ...regionOpts, summaryPolicy: 'rolling' }), Infinity);
      if (savingOf(all) > savingOf(picked)) [picked, folds] = [all, true];
    }
    if (picked.length === 0) return undefined;
    const regions = picked.map((r) => ({
      ...r,
      expectedTokensAfter: Math.min(r.tokens, expectedReplacementTokens(r)),
    }));
    const saving = regions.reduce((n, r) => n + expectedSaving(r), 0);
    const summariser = summariserChoice(state, regions, {
      perMessage,
      tokensOf,
      promptTokens: tokensBefore,
      cacheWarm: inputs.routeCacheWarm ?? inputs.cacheWarm,
      ...(inputs.mainThinkingTokens ? { mainThinkingTokens: inputs.mainThinkingTokens } : {}),
      ...(inputs.cacheMissRate ? { cacheMissRate: inputs.cacheMissRate } : {}),
      ...(isServerStrategy(settings.strategy)
        ? { mainUnavailable: 'the server strategy edits the cached prompt, so the summariser model reads the region' }
        : {}),
    });
    const llm = summariser.route === 'main' ? (summariser.main?.usd ?? 0) : summariser.small.usd;
    return {
      ...base,
      action: 'summarise',
      reason: folds ? STACKED_FOLD_NOTE : '',
      mask: [],
      regions,
      summariser,
      ...priced((regions[0] as PlannedRegion).startIndex, saving, llm),
    };
  };
  // Mask: every older tool result before the protected tail.
  const maskPlan = (): CompactionPlan | undefined => {
    if (!settings.maskToolResults) return undefined;
    const mask = maskCandidates(state.messages, protect, tokensOf);
    if (mask.length === 0) return undefined;
    const saving = mask.reduce((n, c) => n + c.saving, 0);
    return {
      ...base,
      action: 'mask',
      reason: '',
      mask,
      regions: [],
      ...priced((mask[0] as MaskCandidate).site.messageIndex, saving, 0),
    };
  };
  const pct = (x: number) => `${Math.round(x * 100)} %`;

  if (inputs.mode === 'manual') {
    const s = summarisePlan();
    return s
      ? { ...s, reason: 'Compact Now: every turn before the newest tokens is summarised.' }
      : none('Nothing can be compacted: everything is recent, pinned or already a summary.');
  }
  if (settings.strategy !== 'summarise') return none('');
  const mask = maskPlan();
  if (pressure.level === 'hard' || (pressure.level === 'soft' && settings.softAction === 'auto')) {
    const why =
      pressure.level === 'hard'
        ? `the context is ${pct(pressure.utilisation)} full, over the hard threshold (${pct(cfg.hardThreshold)})`
        : `the context is ${pct(pressure.utilisation)} full, over the soft threshold (${pct(cfg.softThreshold)})`;
    const hard = pressure.level === 'hard';
    // When what must stay (the system prompt and tools, pins, the protected tail) leaves little
    // room under the hard threshold, a compaction there frees a few thousand tokens and the
    // next request is over it again: a loop of summaries. While the prompt still fits the
    // window with a margin for the estimate, an edit at the hard threshold must free a
    // worthwhile amount (as past the soft threshold); near the window, anything goes.
    const minSaving = minSoftSavingTokens(settings, eff);
    const stuck = (p: CompactionPlan): boolean =>
      hard && tokensBefore <= HARD_WAIT_LIMIT * eff && p.expectedSaving < minSaving;
    let summary: { readonly plan: CompactionPlan | undefined } | undefined;
    const summarised = (): CompactionPlan | undefined => (summary ??= { plan: summarisePlan() }).plan;
    // At the hard threshold a mask that the next request's growth takes over it again is a
    // compaction on every request, each rewriting the cache: when a summary would leave more
    // room, the mask goes first only if the next request is expected to stay under the threshold.
    const maskLasts = (m: CompactionPlan): boolean => {
      if (!hard || m.expectedAfter + (inputs.growthPerRequest ?? 0) <= cfg.hardThreshold * eff) return true;
      const sum = summarised();
      return !sum || stuck(sum) || sum.expectedAfter >= m.expectedAfter;
    };
    // Masking alone is enough: cheaper (no LLM) and it keeps every call and every word.
    if (
      mask &&
      maskLasts(mask) &&
      mask.expectedSaving >= pressure.tokensToFree &&
      (hard || paysBack(mask, inputs.growthPerRequest, settings.paybackRequests))
    )
      return { ...mask, reason: `Older tool results are cleared because ${why}.` };
    // At the hard threshold masking still goes first when it takes the prompt below the hard
    // threshold with its buffer: the cheap, lossless layer before any summary (the summary
    // follows at the next hard threshold, when there is less left to clear) — unless the
    // summary would follow at the soft threshold before the mask paid back.
    const g = inputs.growthPerRequest;
    const soonSummary = () => (settings.softAction === 'auto' ? [summarised()].find((x) => x && !stuck(x)) : undefined);
    const toSoft = (m: CompactionPlan) => (g && g > 0 ? (cfg.softThreshold * eff - m.expectedAfter) / g : Infinity);
    if (
      hard &&
      mask &&
      maskLasts(mask) &&
      maskPaysBeforeSummary(mask, soonSummary(), toSoft(mask)) &&
      mask.expectedAfter <= (cfg.hardThreshold - settings.hardBuffer) * eff
    )
      return {
        ...mask,
        reason: `Older tool results are cleared because ${why}; that is enough to leave the threshold, so summarising waits.`,
      };
    const s = summarised();
    if (s && !stuck(s) && (hard || (s.expectedSaving >= minSaving && paysBack(s, inputs.growthPerRequest, Infinity))))
      return { ...s, reason: `Older history is summarised because ${why}.${s.reason ? ` ${s.reason}` : ''}` };
    // Past the soft threshold, a summary that does not pay back yet will soon (requestsUntilPays):
    // the mask goes first only by maskPaysBeforeSummary's rule.
    if (
      mask &&
      !stuck(mask) &&
      (hard ||
        (maskPaysBeforeSummary(mask, s, s ? requestsUntilPays(s, g) : Infinity) &&
          paysBack(mask, g, settings.paybackRequests)))
    )
      return {
        ...mask,
        reason: `Older tool results are cleared because ${why} (${s ? 'a summary would not pay back yet' : 'nothing else can be summarised'}).`,
      };
    const best = s ?? mask;
    if (best && stuck(best))
      return withNextAt(
        Math.floor(HARD_WAIT_LIMIT * eff),
        none(
          `The context is ${pct(pressure.utilisation)} full, over the hard threshold (${pct(cfg.hardThreshold)}), but compacting now would free only ${formatCount(best.expectedSaving)} tokens — the system prompt and tools take ${formatCount(inputs.fixedTokens)}, and pinned content and the newest tokens stay — so the next requests would be over it again; compaction waits until it frees at least ${formatCount(minSaving)} tokens or the prompt nears the window (${formatCount(Math.floor(HARD_WAIT_LIMIT * eff))} tokens).`,
        ),
      );
    if (!hard && (mask || s)) {
      const heldBack =
        mask && s && paysBack(mask, g, settings.paybackRequests)
          ? ` Older tool results are not cleared first: the summary, due in about ${Math.max(1, Math.ceil(requestsUntilPays(s, g)))} requests, takes them, and clearing them now would write the prompt cache twice.`
          : '';
      return withNextAt(
        Math.round(cfg.hardThreshold * eff),
        none(
          `The context is ${pct(pressure.utilisation)} full, over the soft threshold; compacting now would not yet pay back its prompt-cache rewrite, so it waits (at the latest until the hard threshold, ${pct(cfg.hardThreshold)}).${heldBack}`,
        ),
      );
    }
    return none(
      `The context is ${pct(pressure.utilisation)} full, but nothing can be compacted: everything is recent, pinned or already a summary.`,
    );
  }
  if (mask && mask.expectedSaving >= clearAtLeast) {
    if (!inputs.cacheWarm)
      return {
        ...mask,
        reason: 'Older tool results are cleared while the prompt cache is cold (it is written again anyway).',
      };
    if (paysBack(mask, inputs.growthPerRequest, settings.paybackRequests))
      return {
        ...mask,
        reason: `Older tool results are cleared: the ${Math.round(mask.expectedSaving).toLocaleString('en-US')} tokens saved pay back the cache rewrite within ${Math.ceil(mask.paybackRequests)} requests.`,
      };
  }
  // Below the soft threshold a summary runs when it pays for itself (its summariser and its
  // cache rewrite — nothing when the cache is cold) well within a cycle: deep enough, early
  // enough that the prompt stays small. Only where the user lets soft compactions run.
  const softAt = Math.round(cfg.softThreshold * eff);
  if (settings.softAction !== 'auto')
    return {
      ...none(
        `The context is ${pct(pressure.utilisation)} full; the next compaction comes at ${pct(cfg.hardThreshold)} (the hard threshold)${settings.softAction === 'propose' ? `, proposed from ${pct(cfg.softThreshold)}` : ''}; older tool results may be cleared earlier when that pays back.`,
      ),
      // `propose`: the proposal comes at the soft threshold; `off`: nothing before the hard one.
      nextCompactionAt: settings.softAction === 'propose' ? softAt : Math.round(cfg.hardThreshold * eff),
    };
  const minEarly = minEarlySavingTokens(settings, eff);
  const s = summarisePlan();
  if (s && s.expectedSaving >= minEarly && paysBack(s, inputs.growthPerRequest, settings.paybackRequests))
    return {
      ...s,
      reason: inputs.cacheWarm
        ? `Older history is summarised before the soft threshold: the ${Math.round(s.expectedSaving).toLocaleString('en-US')} tokens saved pay back the summary and the cache rewrite within ${Math.ceil(s.paybackRequests)} requests.`
        : `Older history is summarised while the prompt cache is cold (it is written again anyway): the ${Math.round(s.expectedSaving).toLocaleString('en-US')} tokens saved pay back the summary within ${Math.ceil(s.paybackRequests)} requests.`,
    };
  // The earliest prompt at which a summary could free enough: what it would free now, grown to
  // the minimum; with nothing to summarise yet, the newest tokens it keeps (their full budget
  // once the conversation outgrows it) and the minimum beyond them.
  const kept = Math.max(base.protectedTokens, keepRecentTokens);
  const earliest = Math.round(s ? tokensBefore + minEarly - s.expectedSaving : inputs.fixedTokens + kept + minEarly);
  return {
    ...none(
      `The context is ${pct(pressure.utilisation)} full; a summary comes once it frees at least ${Math.round(minEarly).toLocaleString('en-US')} tokens (${pct(minEarly / eff)} of the window − reserve) and pays back its summariser and prompt-cache rewrite, by ${pct(cfg.softThreshold)} (the soft threshold) if it pays back there, at the latest at ${pct(cfg.hardThreshold)} (the hard threshold); older tool results may be cleared earlier when that pays back.`,
    ),
    nextCompactionAt: Math.min(earliest, softAt),
  };
}
