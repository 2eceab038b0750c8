/**
 * The LLM layer of compaction: summarises picked regions with a separate, cheaper model
 * (rolling over chunks when a region is too big for it) — or, on the main-model route the
 * plan picked (summariserRoute.ts), with the main model reading its cached prefix
 * (mainSummary.ts; the summariser model takes over a region it fails) — or, on the server route,
 * the first region by the API's compaction on demand (serverSummary.ts; the other routes take
 * over when it fails, with a notice) — records one CompactionRecord per
 * region and applies it. On a summariser error or timeout the failed region and the rest are
 * dropped instead, behind a visible marker; a record that would not shrink the context is
 * never applied. The LlmClient never throws; time comes from the injected clock and timeout.
 */
import type { LlmClient, LlmError } from '../llm/llmClient';
import type { CacheTtl, ConversationState, Message, Plan } from '../conversation/conversationModel';
import type { Clock, IdSource } from '../platform/platformPorts';
import { applyRecord } from './apply';
import { messagesText, checkRetention } from './retention';
import { isUserWords } from './regions';
import { runMain, type MainPrefix } from './mainSummary';
import { runChunks, startGuard, unknownCost, type GuardedCall } from './summariseChunks';
import { reportSpent, type OnStoppedSpend } from './stoppedSpend';
import { runServer, type ServerRunResult } from './serverSummary';
import {
  buildReplacement,
  dropMarker,
  recallFooter,
  regionMessages,
  summaryText,
  withSummaryText,
  type ReplacementContent,
} from './summaryReplacement';
import type { CompactionRecord, CompactionRegion, CompactionTrigger } from './types';

/** The safety timeout of one summarisation run: 5 minutes. */
export const SUMMARISER_TIMEOUT_MS = 5 * 60_000;

/** Progress of a run, for the UI. */
export interface SummariseProgress {
  /** 1-based region and chunk numbers. */
  readonly region: number;
  readonly regions: number;
  readonly chunk: number;
  readonly chunks: number;
}

/** Everything needed to summarise regions. */
export interface SummariseOptions {
  /** The regions to summarise (see pickRegions), in conversation order. */
  readonly regions: readonly CompactionRegion[];
  readonly trigger: CompactionTrigger;
  /** The user's instructions of a manual compaction ("focus on the auth bug"). */
  readonly instructions?: string;
  /** The assistant's plan (update_plan): the summary refers to its steps. */
  readonly plan?: Plan;
  readonly summariser: LlmClient;
  readonly summarizerModel: string;
  /**
   * The main-model route (see summariserRoute.ts): when set, each region that is a stretch of
   * this prefix is summarised by the main model from its cached prefix (one request, no
   * chunks); a region that is not falls back to `summarizerModel`.
   */
  readonly main?: { readonly prefix: MainPrefix; readonly ttl: CacheTtl };
  /**
   * The server route (serverRoute.ts, serverSummary.ts): when set, the first region — if it
   * starts the sent history — is summarised by compaction on demand; when that fails, the
   * region takes the other routes (with a notice).
   */
  readonly server?: { readonly prefix: MainPrefix; readonly ttl: CacheTtl; readonly anchorId?: string };
  /** The summariser's context window in tokens; chunks are planned against it. */
  readonly contextWindow: number;
  /** Calibrated tokens of a message. */
  readonly tokensOf: (m: Message) => number;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** Resolves after `ms` (the host's timer); `signal` is aborted when the run ends early. */
  readonly timeout: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Safety timeout of the whole run; default 5 minutes. */
  readonly timeoutMs?: number;
  /** The user's Stop: ends the run; nothing more is summarised or dropped. */
  readonly signal: AbortSignal;
  /** Compaction strategy setting in force, recorded. */
  readonly strategy: string;
  /** Upper bound on one summary in tokens (from the main model's window). */
  readonly maxSummaryTokens?: number;
  readonly onProgress?: (p: SummariseProgress) => void;
  /**
   * What a region stopped before its summary was made had spent (stoppedSpend.ts): its
   * requests that completed, its cut attempts, and — once it settles — the request in flight
   * when the Stop (or the timeout) came. Without it that money is not reported.
   */
  readonly onStoppedSpend?: OnStoppedSpend;
  /**
   * When set (e.g. the circuit breaker is open), the summariser is not called: every region
   * is dropped behind a marker giving this reason, and the run does not count as a failure.
   */
  readonly dropReason?: string;
}

/** A region that was not compacted, with why (and the record that would have been applied). */
export interface SkippedRegion {
  readonly region: CompactionRegion;
  readonly reason: string;
  readonly record?: CompactionRecord;
}

/** What a run did. `failed`: the summariser failed (count it in the circuit breaker). */
export interface SummariseOutcome {
  readonly state: ConversationState;
  /** Applied records, in order. */
  readonly records: readonly CompactionRecord[];
  readonly skipped: readonly SkippedRegion[];
  readonly failed: boolean;
  /** The summariser's error, in words for the user. */
  readonly error?: string;
  /** The user stopped the run. */
  readonly aborted: boolean;
  /** Sentences for the user beyond the error (a server summary that fell back to ours). */
  readonly notices?: readonly string[];
}

/** A short reason for the drop marker. */
export function shortReason(error: LlmError, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timed out after ${Math.round(timeoutMs / 60_000)} minutes`;
  const phrases: Partial<Record<LlmError['kind'], string>> = {
    authentication: 'invalid API key',
    permission: 'permission denied',
    billing: 'no credit left',
    rate_limit: 'rate limited',
    overloaded: 'the API is overloaded',
    server: 'server error',
    network: 'network error',
    timeout: 'timed out',
    prompt_too_long: 'the region was too long for it',
    context_exceeded: 'the region was too long for it',
    not_found: 'model not found',
  };
  return phrases[error.kind] ?? (error.message.split(/(?<=\.)\s/)[0] ?? error.kind).slice(0, 120);
}

/**
 * Summarises each region (rolling over chunks), makes one record per region and applies it.
 * After a failure, that region and every later one are dropped behind a marker instead.
 */
export async function summariseRegions(state: ConversationState, opts: SummariseOptions): Promise<SummariseOutcome> {
  const timeoutMs = opts.timeoutMs ?? SUMMARISER_TIMEOUT_MS;
  const g = startGuard(opts.signal, opts.timeout, timeoutMs, opts.onStoppedSpend);
  let current = state;
  const records: CompactionRecord[] = [];
  const skipped: SkippedRegion[] = [];
  let failure: { reason: string; message: string } | undefined;
  const preset = opts.dropReason?.trim();
  const notices: string[] = [];
  try {
    for (const [index, region] of opts.regions.entries()) {
      const originals = regionMessages(current, region);
      if (!originals) {
        skipped.push({ region, reason: 'Its messages are no longer in the conversation.' });
        continue;
      }
      const started = opts.clock.now();
      const server = !preset && index === 0 ? await serverAttempt(originals, region, opts, g) : undefined;
      if (server?.ok) {
        const applied = applyRecord(current, server.record);
        if (server.record.tokensAfter < server.record.tokensBefore && applied.ok) {
          current = applied.state;
          records.push(server.record);
          continue;
        }
        notices.push(
          "The API's summary would not shrink the context; the turns were summarised by our own summariser.",
        );
      } else if (server) {
        if (opts.signal.aborted) {
          // A stopped region's cost so far is in no record: it goes where the late ones go.
          reportSpent(opts.onStoppedSpend, server, opts.server?.prefix.params.model ?? opts.summarizerModel);
          return { state: current, records, skipped, failed: false, aborted: true };
        }
        notices.push(
          `Compaction on demand failed (${server.error.message}); the turns were summarised by our own summariser instead.`,
        );
      }
      let content: RegionContent;
      if (preset) content = dropContent(region, preset, 0);
      else if (!failure) {
        const onProgress = (chunk: number, chunks: number) =>
          opts.onProgress?.({ region: index + 1, regions: opts.regions.length, chunk, chunks });
        const main = opts.main
          ? await runMain(
              region,
              {
                summariser: opts.summariser,
                prefix: opts.main.prefix,
                ttl: opts.main.ttl,
                maxSummaryTokens: opts.maxSummaryTokens ?? Number.MAX_SAFE_INTEGER,
                regionTokens: originals.reduce((n, m) => n + opts.tokensOf(m), 0),
                ...(opts.instructions?.trim() ? { instructions: opts.instructions } : {}),
                ...(opts.plan ? { plan: opts.plan } : {}),
              },
              g,
            )
          : undefined;
        if (main) onProgress(1, 1);
        let model = main && opts.main ? opts.main.prefix.params.model : opts.summarizerModel;
        let r = main ?? (await runChunks(originals, region, opts, g, onProgress));
        if (main && !main.ok && !g.signal.aborted) {
          // The main model failed: the summariser model tries the region fresh before anything is dropped.
          const small = await runChunks(originals, region, opts, g, onProgress);
          const note = `the main model failed (${main.error.message}) → ${opts.summarizerModel}`;
          const spent = {
            costUsd: small.costUsd + main.costUsd,
            ...unknownCost(small.costUnknown ?? main.costUnknown),
          };
          r = small.ok ? { ...small, ...spent, notes: [note, ...small.notes] } : { ...small, ...spent };
          model = opts.summarizerModel;
        }
        if (server) {
          // What the server attempt cost counts in the record of what replaced it.
          const attempt = server.ok ? server.record : server;
          const note = `compaction on demand ${server.ok ? 'did not shrink the context' : 'failed'} → ${model}`;
          const spent = {
            costUsd: r.costUsd + attempt.costUsd,
            ...unknownCost(r.costUnknown ?? attempt.costUnknown),
          };
          r = r.ok ? { ...r, ...spent, notes: [note, ...r.notes] } : { ...r, ...spent };
        }
        if (r.ok) {
          const hasWords = originals.some((m) => m.blocks.some(isUserWords));
          const inTurn = originals.at(-1)?.role === 'user';
          content = {
            kind: 'summary',
            text: summaryText(
              region.firstTurn,
              region.lastTurn,
              r.body,
              r.leftOut,
              hasWords ? (inTurn ? 'before' : 'after') : 'none',
              inTurn,
            ),
            costUsd: r.costUsd,
            ...unknownCost(r.costUnknown),
            notes: r.notes,
            model,
          };
        } else if (opts.signal.aborted) {
          reportSpent(opts.onStoppedSpend, r, model);
          return { state: current, records, skipped, failed: false, aborted: true };
        } else {
          failure = {
            reason: shortReason(r.error, g.timedOut(), timeoutMs),
            message: g.timedOut()
              ? `The summariser did not answer within ${Math.round(timeoutMs / 60_000)} minutes.`
              : r.error.message,
          };
          content = { ...dropContent(region, failure.reason, r.costUsd), ...unknownCost(r.costUnknown), model };
        }
      } else content = dropContent(region, failure.reason, 0);
      const record = makeRecord(originals, region, content, started, opts);
      if (record.tokensAfter >= record.tokensBefore) {
        skipped.push({
          region,
          record,
          reason: 'Its replacement would not shrink the context, so it was not applied.',
        });
        continue;
      }
      const applied = applyRecord(current, record);
      if (!applied.ok) {
        skipped.push({ region, record, reason: applied.reason });
        continue;
      }
      current = applied.state;
      records.push(record);
    }
  } finally {
    g.dispose();
  }
  return {
    state: current,
    records,
    skipped,
    failed: failure !== undefined,
    ...(failure ? { error: failure.message } : {}),
    aborted: false,
    ...(notices.length > 0 ? { notices } : {}),
  };
}

/** The server route's attempt at the first region (undefined: no server route, or the region does not start the history). */
function serverAttempt(
  originals: readonly Message[],
  region: CompactionRegion,
  opts: SummariseOptions,
  g: GuardedCall,
): Promise<ServerRunResult | undefined> {
  if (!opts.server) return Promise.resolve(undefined);
  const s = opts.server;
  return runServer(
    originals,
    region,
    {
      summariser: opts.summariser,
      prefix: s.prefix,
      ttl: s.ttl,
      ...(s.anchorId ? { anchorId: s.anchorId } : {}),
      ...(opts.instructions?.trim() ? { instructions: opts.instructions } : {}),
      ...(opts.plan ? { plan: opts.plan } : {}),
    },
    {
      clock: opts.clock,
      ids: opts.ids,
      tokensOf: opts.tokensOf,
      trigger: opts.trigger,
      strategy: opts.strategy,
      ...(opts.instructions?.trim() ? { instructions: opts.instructions } : {}),
    },
    g,
  );
}

/** What stands in a region's place, what it cost and which model wrote it (absent: none). */
interface RegionContent {
  readonly text: string;
  readonly kind: 'summary' | 'marker';
  readonly costUsd: number;
  readonly costUnknown?: true;
  readonly notes: string[];
  readonly model?: string;
}

function dropContent(region: CompactionRegion, reason: string, costUsd: number): RegionContent & { kind: 'marker' } {
  return {
    kind: 'marker',
    text: dropMarker(region.firstTurn, region.lastTurn, reason),
    costUsd,
    notes: [`summariser failed: ${reason} → dropped turns ${region.firstTurn}–${region.lastTurn}`],
  };
}

/**
 * The record of one region. For a summary, the retention check runs on the replacement as
 * the summariser left it (so the record says what the summary itself lost); then the
 * summary gets its recall footer naming the turns, the compaction and those lost identifiers.
 */
function makeRecord(
  originals: readonly Message[],
  region: CompactionRegion,
  content: RegionContent,
  started: number,
  opts: SummariseOptions,
): CompactionRecord {
  const id = opts.ids.next('cmp');
  const what: ReplacementContent =
    content.kind === 'summary'
      ? { kind: 'summary', text: content.text, compactionId: id }
      : { kind: 'marker', text: content.text };
  const built = buildReplacement(originals, what, opts);
  const retention = checkRetention(originals, messagesText(built));
  const summary =
    content.kind === 'summary'
      ? `${content.text}\n\n${recallFooter(id, region.firstTurn, region.lastTurn, retention.lost)}`
      : content.text;
  const replacement = content.kind === 'summary' ? withSummaryText(built, summary) : built;
  const tokensBefore = originals.reduce((n, m) => n + opts.tokensOf(m), 0);
  return {
    id,
    at: started,
    trigger: opts.trigger,
    layer: content.kind === 'summary' ? 'summarise' : 'fallback-drop',
    strategy: opts.strategy,
    regions: [
      {
        firstTurn: region.firstTurn,
        lastTurn: region.lastTurn,
        messageIds: originals.map((m) => m.id),
        tokens: tokensBefore,
      },
    ],
    originals,
    replacement,
    summary,
    ...(opts.instructions?.trim() ? { instructions: opts.instructions.trim() } : {}),
    tokensBefore,
    tokensAfter: replacement.reduce((n, m) => n + opts.tokensOf(m), 0),
    ...((content.kind === 'summary' || content.costUsd > 0) && content.model ? { model: content.model } : {}),
    costUsd: content.costUsd,
    ...unknownCost(content.costUnknown),
    durationMs: Math.max(0, opts.clock.now() - started),
    fallbacks: content.notes,
    retention,
  };
}
