/**
 * Rolling summarisation of one region: the region is split into chunks that fit the
 * summariser (see chunking.ts) and summarised in order, each request carrying the summary of
 * the chunks before it, so the last answer covers the whole region.
 */
import type { LlmClient, LlmError, LlmResult } from '../llm/llmClient';
import { requestCostUsd } from '../llm/cost';
import { CutAttempts } from '../llm/cutRequest';
import type { CacheTtl, Message, Plan } from '../conversation/conversationModel';
import { plural } from '../text/counts';
import { planChunks } from './chunking';
import {
  buildSummaryRequest,
  describeLeftOut,
  summaryMaxTokens,
  summaryOutputLimit,
  summaryTargetTokens,
} from './summaryPrompt';
import { settledSpend, type CallOutcome, type OnStoppedSpend } from './stoppedSpend';
import type { CompactionRegion } from './types';

/** Largest share of the summariser's window one summary may take. */
export const MAX_SUMMARY_WINDOW_SHARE = 0.15;

/** How summariser calls are cut short: a signal to pass on, and a promise that settles when it fires. */
export interface GuardedCall {
  readonly signal: AbortSignal;
  readonly stopped: Promise<{ readonly ok: false; readonly error: LlmError }>;
  timedOut(): boolean;
  /**
   * Runs `call` (unless the guard has fired already) and settles with whichever ends first: its
   * outcome, or the guard's failure. When the guard wins, the call is still billed by the API:
   * what it cost once it settles (stoppedSpend.ts `settledSpend`, as `model` at `ttl`) goes to
   * the guard's `onStoppedSpend`.
   */
  race(
    call: () => Promise<CallOutcome>,
    price: { readonly model: string; readonly ttl?: CacheTtl },
  ): Promise<CallOutcome>;
}

/**
 * Starts the run's safety timeout and links the user's Stop to it: the returned signal aborts
 * on either, and `stopped` then settles as a failed call (`timeout` or `aborted`), so a client
 * that ignores the abort cannot hold the run. `dispose` cancels the timer. What a call cut
 * short still cost, once it settles, goes to `onStoppedSpend` (see GuardedCall.race).
 */
export function startGuard(
  userSignal: AbortSignal,
  timeout: (ms: number, signal: AbortSignal) => Promise<void>,
  timeoutMs: number,
  onStoppedSpend?: OnStoppedSpend,
): GuardedCall & { dispose(): void } {
  const call = new AbortController();
  const timer = new AbortController();
  let timedOut = false;
  const onAbort = () => call.abort();
  if (userSignal.aborted) call.abort();
  else userSignal.addEventListener('abort', onAbort, { once: true });
  timeout(timeoutMs, timer.signal).then(
    () => {
      if (timer.signal.aborted) return;
      timedOut = true;
      call.abort();
    },
    () => undefined,
  );
  const stopped = new Promise<{ ok: false; error: LlmError }>((resolve) => {
    const done = () =>
      resolve({
        ok: false,
        error: {
          kind: timedOut ? 'timeout' : 'aborted',
          message: timedOut ? 'The summariser timed out.' : 'Stopped.',
          retryable: true,
        },
      });
    if (call.signal.aborted) done();
    else call.signal.addEventListener('abort', done, { once: true });
  });
  const race = async (
    run: () => Promise<CallOutcome>,
    price: { readonly model: string; readonly ttl?: CacheTtl },
  ): Promise<CallOutcome> => {
    if (call.signal.aborted) return stopped;
    const pending = run();
    const first = await Promise.race([
      pending.then((outcome) => ({ outcome, late: false })),
      stopped.then((outcome) => ({ outcome, late: true })),
    ]);
    if (first.late && onStoppedSpend)
      pending.then(
        (outcome) => {
          const spend = settledSpend(outcome, price.model, price.ttl ?? '5m');
          if (spend) onStoppedSpend(spend);
        },
        () => undefined, // LlmClient.stream never rejects; a broken one is not billed
      );
    return first.outcome;
  };
  return {
    signal: call.signal,
    stopped,
    timedOut: () => timedOut,
    race,
    dispose: () => {
      timer.abort();
      userSignal.removeEventListener('abort', onAbort);
    },
  };
}

/** What runChunks needs of the run's options. */
export interface ChunkRunOptions {
  readonly summariser: LlmClient;
  readonly summarizerModel: string;
  readonly contextWindow: number;
  readonly tokensOf: (m: Message) => number;
  readonly instructions?: string;
  /** The assistant's plan, which the summary refers to. */
  readonly plan?: Plan;
  /** Upper bound on one summary in tokens, set from the main model's window so summaries never crowd it. */
  readonly maxSummaryTokens?: number;
}

/**
 * The body of a region's summary (without heading), or the error that stopped it; cost either
 * way (`costUnknown`: a call's price was unknown, so `costUsd` leaves it out).
 */
export type ChunkRunResult =
  | {
      readonly ok: true;
      readonly body: string;
      readonly leftOut: readonly string[];
      readonly costUsd: number;
      readonly costUnknown?: true;
      readonly notes: string[];
    }
  | { readonly ok: false; readonly error: LlmError; readonly costUsd: number; readonly costUnknown?: true };

/** `{ costUnknown: true }` when `unknown`, else nothing: spread into a result or a record. */
export function unknownCost(unknown: boolean | undefined): { readonly costUnknown?: true } {
  return unknown ? { costUnknown: true } : {};
}

/**
 * The summary a summariser answer carries, or why it carries none: a refusal (not retryable)
 * or no text (retryable). `who` names the writer in the error ("summariser", "main model").
 */
export function summaryTextOf(
  result: LlmResult,
  who: string,
): { readonly ok: true; readonly text: string } | { readonly ok: false; readonly error: LlmError } {
  if (result.stopReason === 'refusal')
    return {
      ok: false,
      error: {
        kind: 'invalid_request',
        message: `The ${who} refused to summarise this part of the conversation.`,
        retryable: false,
      },
    };
  const text = result.content
    .flatMap((c) => (c.type === 'text' ? [c.text] : []))
    .join('')
    .trim();
  if (!text)
    return { ok: false, error: { kind: 'unknown', message: `The ${who} returned no summary text.`, retryable: true } };
  return { ok: true, text };
}

/**
 * Summarises `originals` chunk by chunk. The target of each request is about 1/5 of the
 * tokens covered so far (rolling), at least 200, at most 8,000 and the summariser's output limit
 * (summaryTargetTokens).
 * Messages too large for any chunk are left out and named.
 */
export async function runChunks(
  originals: readonly Message[],
  region: CompactionRegion,
  opts: ChunkRunOptions,
  guard: GuardedCall,
  onProgress: (chunk: number, chunks: number) => void,
): Promise<ChunkRunResult> {
  // A summary (and the rolling one handed on) may take at most 15 % of the window each.
  const limit = Math.max(
    1,
    Math.min(
      summaryOutputLimit(opts.summarizerModel),
      Math.floor(opts.contextWindow * MAX_SUMMARY_WINDOW_SHARE),
      opts.maxSummaryTokens ?? Number.MAX_SAFE_INTEGER,
    ),
  );
  const regionTokens = originals.reduce((n, m) => n + opts.tokensOf(m), 0);
  const plan = planChunks(originals, {
    window: opts.contextWindow,
    tokensOf: opts.tokensOf,
    outputReserve: summaryMaxTokens(summaryTargetTokens(regionTokens, limit), limit),
  });
  const leftOut = plan.leftOut.map(describeLeftOut);
  const notes: string[] =
    plan.leftOut.length > 0 ? [`left out ${plural(plan.leftOut.length, 'message')} too large to summarise`] : [];
  let previous: { text: string; turns: readonly [number, number] } | undefined;
  let covered = 0;
  let costUsd = 0;
  let costUnknown = false;
  // Attempts cut mid-answer (retried, or the one that failed) are billed: the record counts them.
  const cuts = new CutAttempts();
  const spent = () => {
    const c = cuts.cost(opts.summarizerModel);
    return { costUsd: costUsd + c.usd, ...unknownCost(costUnknown || c.unknown) };
  };
  const turns: readonly [number, number] = [region.firstTurn, region.lastTurn];
  for (const [i, chunk] of plan.chunks.entries()) {
    covered += chunk.reduce((n, m) => n + opts.tokensOf(m), 0);
    const target = summaryTargetTokens(covered, limit);
    const params = buildSummaryRequest({
      model: opts.summarizerModel,
      messages: chunk,
      regionTurns: turns,
      chunk: i + 1,
      chunks: plan.chunks.length,
      ...(previous ? { previous } : {}),
      ...(opts.instructions?.trim() ? { instructions: opts.instructions } : {}),
      ...(opts.plan ? { plan: opts.plan } : {}),
      targetTokens: target,
      maxTokens: summaryMaxTokens(target, limit),
      ...(i === plan.chunks.length - 1 ? { leftOut: plan.leftOut } : {}),
    });
    onProgress(i + 1, plan.chunks.length);
    const res = await guard.race(
      () => opts.summariser.stream(params, { signal: guard.signal, onEvent: cuts.onEvent }),
      { model: opts.summarizerModel },
    );
    if (!res.ok) {
      cuts.failed(res.error);
      return { ok: false, error: res.error, ...spent() };
    }
    const cost = requestCostUsd(opts.summarizerModel, res.result.usage);
    // An unknown summariser price is said in the notes, and the record says its cost is unknown.
    if (cost === undefined && !costUnknown)
      notes.push(`price of summariser model ${opts.summarizerModel} unknown: its cost is not counted`);
    costUnknown ||= cost === undefined;
    costUsd += cost ?? 0;
    const answer = summaryTextOf(res.result, 'summariser');
    if (!answer.ok) return { ok: false, error: answer.error, ...spent() };
    const text = answer.text;
    if (res.result.stopReason === 'max_tokens') notes.push(`summary of part ${i + 1} was cut at max_tokens`);
    previous = { text, turns: [region.firstTurn, chunk.at(-1)?.turn ?? region.lastTurn] };
  }
  const body = previous?.text ?? 'Every message of these turns was too large to summarise.';
  return { ok: true, body, leftOut, ...spent(), notes };
}
