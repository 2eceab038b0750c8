/**
 * The server summariser route — compaction on demand
 * (https://platform.claude.com/docs/en/build-with-claude/compaction-on-demand) — weighed against
 * the route the plan chose (summariserRoute.ts). The API summarises every message a compaction
 * request sends, so it can only take a region that starts the history: the request sends the
 * messages up to the region's end (https://platform.claude.com/docs/en/build-with-claude/compaction-keep-recent-turns)
 * and the returned block goes first, in their place. Every other region, and the server
 * route's failures, take the plan's route. Pure.
 *
 * Price: the request carries the conversation's own system, tools and thinking, so its prefix
 * is the one earlier requests cached — but only as far as the region's end. The cache holds that
 * far only where an earlier request's prompt ended there, on its last breakpoint (RequestEnds,
 * requestEnds.ts). When that entry is expected alive (written within its lifetime, nothing
 * before it edited since), the request reads up to it
 * and pays plain input for the rest; else it reads only the stable prefix (tools, system). The
 * summary is billed as the main model's output (expectedSummaryTokens, as our own summaries).
 */
import { ttlMs } from '../cache/cacheAnchors';
import { usualWriteTtl } from '../cache/usualWriteTtl';
import type { CacheTtl, ConversationState, Message } from '../conversation/conversationModel';
import { planningPrices } from '../models/modelFacts';
import { isServerStrategy, supportsOnDemandCompaction } from '../server/serverContext';
import { expectedReplacementTokens, type CandidateRegion } from './regions';
import type { RequestEnds, ServerAnchor } from './requestEnds';
import { expectedSummaryTokens, type RouteCost, type SummariserChoice } from './summariserRoute';

export type { ServerAnchor } from './requestEnds';

/** The newest `createdAt` of a message's blocks (0 when it has none). */
function writtenAt(m: Message): number {
  let t = 0;
  for (const b of m.blocks) t = Math.max(t, b.meta.createdAt);
  return t;
}

/**
 * The anchor of a compaction request sending `messages[0..end]` by the messages' own times,
 * for callers that did not see the requests go out (the Compactor remembers them: RequestEnds):
 * the last user message at or before `end` (the request after it ended its prompt there and
 * wrote a breakpoint on it). Alive when that was less than `ttl` ago and no message up to it
 * was made since (a compaction makes new ones). Undefined without a user message. A cheap
 * layer's edit keeps its blocks' times, so this can take an edited prefix for a live one.
 */
export function serverAnchor(
  messages: readonly Message[],
  end: number,
  now: number,
  ttl: CacheTtl,
): ServerAnchor | undefined {
  let index = -1;
  for (let i = Math.min(end, messages.length - 1); i >= 0 && index < 0; i--)
    if (messages[i]?.role === 'user') index = i;
  if (index < 0) return undefined;
  const at = writtenAt(messages[index] as Message);
  let newest = 0;
  for (let i = 0; i < index; i++) newest = Math.max(newest, writtenAt(messages[i] as Message));
  return { index, alive: now - at < ttlMs(ttl) && newest <= at };
}

/** What the server route's price needs. */
export interface ServerCostInputs {
  readonly model: string;
  /** Tokens of the tools and system prompt (the stable prefix). */
  readonly fixedTokens: number;
  /** Tokens of each message sent (the history up to the region's end). */
  readonly perMessage: readonly number[];
  readonly anchor?: ServerAnchor;
  /** Whether the stable prefix is expected cached (the last request went out within its lifetime). */
  readonly stableWarm: boolean;
  readonly ttl: CacheTtl;
  /** The summary tokens expected out. */
  readonly outputTokens: number;
  /** The session's measured full-miss rate (as the main route is priced with it); absent: 0. */
  readonly cacheMissRate?: number;
}

/**
 * Expected cost of a compaction request in US dollars: the stable prefix read (or written when
 * cold), the messages read up to a live anchor and input after it, the summary as output; mixed
 * with the cold case (everything written or input) at the measured miss rate.
 */
export function serverRouteUsd(i: ServerCostInputs): number {
  const p = planningPrices(i.model);
  const write = i.ttl === '1h' ? p.cacheWrite1h : p.cacheWrite5m;
  const total = i.perMessage.reduce((n, t) => n + t, 0);
  let anchored = 0;
  if (i.anchor?.alive) for (let k = 0; k <= i.anchor.index; k++) anchored += i.perMessage[k] ?? 0;
  const output = Math.max(0, i.outputTokens) * p.output;
  const cold = i.fixedTokens * write + total * p.input + output;
  const warm =
    i.fixedTokens * (i.stableWarm ? p.cacheRead : write) +
    anchored * p.cacheRead +
    (total - anchored) * p.input +
    output;
  const miss = Math.min(1, Math.max(0, i.cacheMissRate ?? 0));
  return ((1 - miss) * warm + miss * cold) / 1_000_000;
}

/** What withServerRoute needs besides the plan's choice. */
export interface ServerRouteDeps {
  readonly tokensOf: (m: Message) => number;
  /** Tokens of the tools and system prompt. */
  readonly fixedTokens: number;
  readonly now: number;
  /** The compaction strategy in force (a server strategy's `context_management` cannot go with a compaction request). */
  readonly strategy: string;
  readonly cacheMissRate?: number;
  /** Where the session's requests ended (the Compactor's); absent: the messages' times decide (serverAnchor). */
  readonly ends?: RequestEnds;
}

/** The anchor of a request sending `state.messages[0..end]` now, and whether the stable prefix is warm. */
export function anchorOf(
  state: ConversationState,
  end: number,
  deps: Pick<ServerRouteDeps, 'now' | 'ends'>,
): { readonly anchor?: ServerAnchor; readonly stableWarm: boolean } {
  const ttl = usualWriteTtl(state.config.cacheTtl);
  if (deps.ends) {
    const anchor = deps.ends.anchor(state.messages, end, deps.now, ttl);
    const last = deps.ends.lastSentAt;
    return { ...(anchor ? { anchor } : {}), stableWarm: last !== undefined && deps.now - last < ttlMs(ttl) };
  }
  let lastAnswer = 0;
  for (const m of state.messages)
    if (m.role === 'assistant') lastAnswer = Math.max(lastAnswer, m.blocks[0]?.meta.createdAt ?? 0);
  const anchor = serverAnchor(state.messages, end, deps.now, ttl);
  return { ...(anchor ? { anchor } : {}), stableWarm: lastAnswer > 0 && deps.now - lastAnswer < ttlMs(ttl) };
}

/**
 * Why the server route cannot take `region` of `state`, or its end index (the region's last
 * message in the state). The region must start the history; the model must support compaction
 * on demand (the Models API's capability when it said, else the table); no server strategy may
 * be in force (its `context_management` cannot go with the request); the request must fit the
 * window with its answer room.
 */
export function serverRegionEnd(
  state: ConversationState,
  region: Pick<CandidateRegion, 'messageIds'>,
  deps: Pick<ServerRouteDeps, 'tokensOf' | 'fixedTokens' | 'strategy'>,
): { readonly ok: true; readonly end: number } | { readonly ok: false; readonly reason: string } {
  const model = state.config.model;
  if (!(state.config.onDemandCompaction ?? supportsOnDemandCompaction(model)))
    return {
      ok: false,
      reason: `${model} does not support compaction on demand${state.config.onDemandCompaction === false ? ' (the Models API says so)' : ''}`,
    };
  if (isServerStrategy(deps.strategy))
    return {
      ok: false,
      reason: 'a server strategy is in force (its context_management cannot go with a compaction request)',
    };
  if (region.messageIds[0] !== state.messages[0]?.id)
    return {
      ok: false,
      reason: 'the region does not start the conversation (the API summarises every message it is sent)',
    };
  const end = state.messages.findIndex((m) => m.id === region.messageIds.at(-1));
  if (end < 0) return { ok: false, reason: 'the region is no longer in the conversation' };
  let sent = deps.fixedTokens;
  for (let k = 0; k <= end; k++) sent += deps.tokensOf(state.messages[k] as Message);
  if (sent + state.config.outputReserve > state.config.contextWindow)
    return { ok: false, reason: 'the region with its answer room does not fit the window' };
  return { ok: true, end };
}

/**
 * The plan's summariser choice with the server route weighed for the first region: under the
 * setting `server` it is taken wherever it can run, under `auto` when it is expected to cost
 * less than the plan's route for that region (its share of that route's estimate, by tokens).
 * `main` and `small` leave the choice as it is; so does a region the server cannot take (the
 * setting `server` then says why in the reason).
 */
export function withServerRoute(
  choice: SummariserChoice | undefined,
  state: ConversationState,
  regions: readonly CandidateRegion[],
  deps: ServerRouteDeps,
): SummariserChoice | undefined {
  const setting = state.config.summarizer ?? 'auto';
  const first = regions[0];
  if (!choice || !first || (setting !== 'auto' && setting !== 'server') || choice.route === 'server') return choice;
  const at = serverRegionEnd(state, first, deps);
  if (!at.ok)
    return setting === 'server'
      ? { ...choice, reason: `compaction on demand cannot run (${at.reason}); ${choice.reason}` }
      : choice;
  const ttl = usualWriteTtl(state.config.cacheTtl);
  const perMessage = state.messages.slice(0, at.end + 1).map(deps.tokensOf);
  const { anchor, stableWarm } = anchorOf(state, at.end, deps);
  const server: RouteCost = {
    model: state.config.model,
    usd: serverRouteUsd({
      model: state.config.model,
      fixedTokens: deps.fixedTokens,
      perMessage,
      ...(anchor ? { anchor } : {}),
      stableWarm,
      ttl,
      outputTokens: expectedSummaryTokens(first.tokens, expectedReplacementTokens(first) - first.userTokens),
      ...((deps.cacheMissRate ?? choice.cacheMissRate)
        ? { cacheMissRate: deps.cacheMissRate ?? choice.cacheMissRate }
        : {}),
    }),
  };
  const all = regions.reduce((n, r) => n + r.tokens, 0);
  const chosen =
    (choice.route === 'main' ? (choice.main?.usd ?? 0) : choice.small.usd) * (all > 0 ? first.tokens / all : 1);
  const fallback = choice.route === 'main' ? 'main' : 'small';
  if (setting === 'auto' && !(server.usd < chosen)) return { ...choice, server };
  return {
    ...choice,
    server,
    route: 'server',
    model: state.config.model,
    fallback,
    reason:
      setting === 'server'
        ? 'contextPipeline.summarizer is "server"'
        : `the API summarising the history up to the region's end ${anchor?.alive ? 'from its warm cache ' : ''}is expected to cost less`,
  };
}
