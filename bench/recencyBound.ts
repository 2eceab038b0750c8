/**
 * The recency bound: what retention costs at the least when it is bought by recency alone.
 * The context of request i holds the user's words of every earlier turn (kept verbatim, as
 * every policy of ours does) and the newest messages up to `keep` tokens (at least the newest
 * one) — no summaries, no masks, no re-attached files. Its cost is the cost floor
 * (costFloor.ts: system prompt read, each message written once, the output) plus one cache
 * read of everything it keeps that was already sent before — written again instead where the
 * cache was cold for every policy: a real full miss of the session (no cache read outside its
 * own compaction, as the replay flushes it) or a gap past the 5-minute TTL. Its rewrites (the
 * window slides, so a real policy would cut in chunks and write the rest again), the system
 * prompt's rewrite on a cold cache and any summariser are left out, so it is a lower bound for
 * a policy that keeps this much. Its FRR (frr.ts, without summaries) is what that tail retains.
 *
 * `recencyBound` finds the smallest tail whose FRR reaches a target (the baseline's less two
 * points, the bar): the bound's cost ÷ the baseline's then says how far below the
 * baseline any policy of recent-history retention can get at that recall. Recall grows with
 * the tail (a longer tail sends a superset), so the search bisects on whole thousands.
 */
import { ttlMs } from '../src/core/cache/cacheAnchors';
import { isUserWords } from '../src/core/compaction/regions';
import type { Message } from '../src/core/conversation/conversationModel';
import { calibratedMessageTokens } from '../src/core/tokens/calibratedTokens';
import { FrrTally, frrShare } from './frr';
import { CostTally, totalOf } from './pricing';
import { isRealFullMiss, ReplayClock } from './replayClock';
import type { PreparedTranscript } from './replayCore';

/** One tail length's figures. */
export interface RecencyPoint {
  /** The tail's budget in tokens. */
  readonly keep: number;
  /** Tokens of history sent per request on average (the tail and the older user words). */
  readonly averageKept: number;
  /** FRR without summaries (there are none); `null` when nothing was referenced. */
  readonly frr: number | null;
  /** Floor + reads of what was sent before, in dollars; `null` when a model has no price. */
  readonly costUsd: number | null;
}

/** The user's words of a message, as the policies keep them (undefined when it has none). */
function userWords(m: Message): Message | undefined {
  const blocks = m.role === 'user' ? m.blocks.filter(isUserWords) : [];
  return blocks.length === 0 ? undefined : { ...m, blocks };
}

/** The figures of keeping the newest `keep` tokens of `t` (see the module comment). */
export function recencyPoint(t: PreparedTranscript, keep: number): RecencyPoint {
  const tokensOf = (m: Message) => calibratedMessageTokens(m, t.tokenizer, t.calibration);
  const messages: Message[] = [];
  const sizes: number[] = [];
  // The user's words of each message with their tokens (counted once).
  const words = new Map<Message, { readonly message: Message; readonly tokens: number } | undefined>();
  const frr = new FrrTally();
  const reads = new CostTally();
  let sentBefore = 0; // messages[0 .. sentBefore) had been sent by an earlier request
  let keptTotal = 0;
  let requests = 0;
  let afterCompaction = false;
  const clock = new ReplayClock();
  t.events.forEach((e, i) => {
    if (e.kind === 'compaction') afterCompaction = true;
    if (e.kind === 'message') {
      messages.push(e.message);
      sizes.push(tokensOf(e.message));
      const w = userWords(e.message);
      words.set(e.message, w && { message: w, tokens: tokensOf(w) });
      return;
    }
    if (e.kind !== 'usage' || !e.usage || messages.length === 0) return;
    let from = messages.length - 1;
    let tail = sizes[from] as number;
    while (from > 0 && tail + (sizes[from - 1] as number) <= keep) tail += sizes[--from] as number;
    const older = messages.slice(0, from).flatMap((m) => words.get(m) ?? []);
    const olderTokens = older.reduce((n, w) => n + w.tokens, 0);
    const sent = [...older.map((w) => w.message), ...messages.slice(from)];
    let read = olderTokens;
    for (let j = from; j < Math.min(sentBefore, messages.length); j++) read += sizes[j] as number;
    // Cold for any policy, as the replay has it: a real full miss, or idle past the TTL.
    const last = clock.now;
    const expired = clock.advance(e.at) - last >= ttlMs('5m') && requests > 0;
    const cold = expired || isRealFullMiss(e.usage, requests, afterCompaction, t.reportsCache);
    afterCompaction = false;
    reads.add(
      e.model,
      {
        input_tokens: 0,
        cache_read_input_tokens: cold ? 0 : read,
        cache_creation_input_tokens: cold ? read : 0,
        output_tokens: 0,
      },
      '5m',
    );
    keptTotal += olderTokens + tail;
    requests++;
    sentBefore = messages.length;
    const refs = t.references.get(i);
    if (refs) frr.add(sent, refs);
  });
  return {
    keep,
    averageKept: requests === 0 ? 0 : keptTotal / requests,
    frr: frrShare(frr.totals().overall, false),
    costUsd: totalOf(t.floor, reads),
  };
}

/**
 * The smallest tail (in whole thousands of tokens, at most `maxKeep`) whose FRR reaches
 * `targetFrr`, with its figures; `undefined` when even `maxKeep` falls short.
 */
export function recencyBound(t: PreparedTranscript, targetFrr: number, maxKeep: number): RecencyPoint | undefined {
  const at = new Map<number, RecencyPoint>();
  const point = (k: number) => {
    let p = at.get(k);
    if (!p) at.set(k, (p = recencyPoint(t, k * 1000)));
    return p;
  };
  const reaches = (k: number) => (point(k).frr ?? 1) >= targetFrr;
  let hi = Math.max(0, Math.floor(maxKeep / 1000));
  if (!reaches(hi)) return undefined;
  let lo = 0;
  if (reaches(lo)) return point(lo);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (reaches(mid)) hi = mid;
    else lo = mid;
  }
  return point(hi);
}

/** One line of the bound table and of replay-all's JSON (`bounds`). */
export interface BoundRow {
  readonly transcript: string;
  readonly window: number;
  /** The baseline's FRR without summaries less two points; `null` when the baseline has none. */
  readonly target_frr: number | null;
  /** The smallest tail reaching it (tokens), or `null` when none within the window does. */
  readonly keep_tokens: number | null;
  readonly frr: number | null;
  /** The bound's cost ÷ the baseline's; `null` when unknown or unreachable. */
  readonly cost_ratio: number | null;
}

/** FRR points the issue allows below the baseline's. */
export const FRR_SLACK = 0.02;

/**
 * The bound row of `t` at `window`, from the baseline's cost and FRR without summaries there:
 * the smallest tail within the window less the unseen overhead whose FRR is the baseline's
 * less {@link FRR_SLACK}, and its cost ÷ the baseline's.
 */
export function boundRow(
  t: PreparedTranscript,
  window: number,
  baseline: { readonly costUsd: number | null; readonly frr: number | null },
): BoundRow {
  const none = { keep_tokens: null, frr: null, cost_ratio: null };
  const row = { transcript: t.name, window };
  if (baseline.frr === null) return { ...row, target_frr: null, ...none };
  const target = Math.max(0, baseline.frr - FRR_SLACK);
  const p = recencyBound(t, target, window - t.overhead);
  if (!p) return { ...row, target_frr: round(target), ...none };
  return {
    ...row,
    target_frr: round(target),
    keep_tokens: p.keep,
    frr: p.frr === null ? null : round(p.frr),
    cost_ratio:
      p.costUsd === null || baseline.costUsd === null || baseline.costUsd === 0
        ? null
        : round(p.costUsd / baseline.costUsd),
  };
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
