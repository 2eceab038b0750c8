import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { cachedPrefixes, nextBreakpoint } from '../cache/breakpointMemory';
import { planCacheAnchors, type PreviousBreakpoint } from '../cache/cacheAnchors';
import { settledThrough } from '../cache/settledPrefix';
import { PRIOR_GAP_STATS, startsTurn, type GapStats } from '../cache/replyGaps';
import { chooseTtls, type TimedAnchor } from '../cache/ttlChoice';
import { planningPrices } from '../models/modelFacts';
import type { ConversationState } from '../conversation/conversationModel';
import { normalizeState, type Repair } from '../normalize/normalize';
import type { Clock } from '../platform/platformPorts';
import { sentBlockCount, serializeRequest } from './serialize';
import { dropUnboundThinking } from './thinkingBinding';
import type { RequestCounter, RequestTokens } from '../tokens/requestTokens';

/** A request ready to send, with what the views need to explain it. */
export interface PreparedRequest {
  readonly params: MessageCreateParamsNonStreaming;
  /**
   * The conversation as sent: the normalized copy of the state passed in (the very same
   * object when nothing needed repair). `tokens.messages` and the anchors' message indices
   * refer to its messages; build the ledger from it and give it to the estimator's `observe`.
   */
  readonly sent: ConversationState;
  /** What normalize repaired to make the request valid (empty when nothing). */
  readonly repairs: readonly Repair[];
  readonly tokens: RequestTokens;
  /** The breakpoints, in prefix order, each with its lifetime (ttlChoice.ts). */
  readonly anchors: readonly TimedAnchor[];
  /** Where the last message breakpoint went (and the live 1-hour checkpoint), to pass as `previous` next time. */
  readonly lastBreakpoint?: PreviousBreakpoint;
}

/**
 * The per-turn tail of the pipeline, after assembly: normalize → thinking whose prefix changed
 * left out (thinkingBinding.ts; normalize again when that empties a message) → estimate →
 * cache anchors and their lifetimes (`deps.gaps`: the session's rhythm, replyGaps.ts; the
 * priors when absent) → serialize. Normalize comes first so that the token counts and the anchors'
 * message indices are those of the messages actually sent. The state passed in is never
 * changed (the session file keeps what it holds). Pure given its ports; cost is O(messages)
 * with every block counted and serialised once.
 */
export function prepareRequest(
  input: ConversationState,
  deps: {
    readonly count: RequestCounter;
    readonly clock: Clock;
    readonly previous?: PreviousBreakpoint;
    readonly gaps?: GapStats;
    /** The session's measured full-miss rate (the compactor's); absent: 0. */
    readonly missRate?: number;
  },
): PreparedRequest {
  const { state, repairs } = sendableState(input);
  const tokens = deps.count(state);
  const now = deps.clock.now();
  const settledIndex = settledThrough(state.messages);
  const positions = planCacheAnchors({
    toolsTokens: tokens.tools,
    systemTokens: tokens.system,
    messages: state.messages.map((m, i) => ({ id: m.id, tokens: tokens.messages[i] ?? 0, blocks: sentBlockCount(m) })),
    minCacheableTokens: state.config.minCacheableTokens,
    now,
    ...(deps.previous ? { previous: deps.previous } : {}),
    settledIndex,
  });
  const cached = cachedPrefixes(state.messages, tokens, now, deps.previous);
  const anchors = chooseTtls(positions, {
    lifetime: state.config.cacheTtl,
    gaps: deps.gaps ?? PRIOR_GAP_STATS,
    prices: planningPrices(state.config.model),
    readTokens: cached.readTokens,
    checkpointTokens: cached.checkpointTokens,
    missRate: deps.missRate ?? 0,
    turnDepth: startsTurn(state.messages) ? 1 : ((deps.gaps ?? PRIOR_GAP_STATS).turnRequests ?? 0) + 1,
    ...(cached.stableCached ? { stableCached: cached.stableCached } : {}),
  });
  const params = serializeRequest(
    state,
    anchors.map((a) => ({ ...a.target, ttl: a.ttl })),
  );
  const lastBreakpoint = nextBreakpoint(
    state.messages,
    tokens,
    anchors,
    now,
    deps.previous,
    cached.stableCached,
    settledIndex,
  );
  return { params, sent: state, repairs, tokens, anchors, ...(lastBreakpoint ? { lastBreakpoint } : {}) };
}

/**
 * The state as sent: normalized, then without thinking the model would refuse (normalized
 * again if that changed it).
 */
function sendableState(input: ConversationState): { state: ConversationState; repairs: readonly Repair[] } {
  const normalized = normalizeState(input);
  const unbound = dropUnboundThinking(normalized.state);
  if (unbound.repairs.length === 0) return normalized;
  const again = normalizeState(unbound.state);
  return { state: again.state, repairs: [...normalized.repairs, ...unbound.repairs, ...again.repairs] };
}
