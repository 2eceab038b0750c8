/**
 * Writing a handoff note: one summariser request (handoffPrompt.ts) under the compaction's
 * safety timeout, its answer taken apart into the note's parts (handoffContent.ts). A failed
 * request (an API error, a refusal, no text, the timeout) gives the note built from what the
 * session records instead, saying why; only the user's Stop gives no note (what it had cost
 * goes to `onStoppedSpend`, billed to the session it summarises). Never throws: the LlmClient
 * never does, and time comes from the injected timeout.
 */
import { requestCostUsd } from '../llm/cost';
import { CutAttempts } from '../llm/cutRequest';
import type { LlmClient } from '../llm/llmClient';
import { SUMMARISER_TIMEOUT_MS, shortReason } from '../compaction/summarise';
import { startGuard, summaryTextOf, unknownCost } from '../compaction/summariseChunks';
import { reportSpent, type OnStoppedSpend } from '../compaction/stoppedSpend';
import {
  contentFromSections,
  fallbackContent,
  touchedFiles,
  type HandoffContent,
  type HandoffSource,
} from './handoffContent';
import { buildHandoffRequest, parseHandoffAnswer } from './handoffPrompt';

/** What writing a handoff needs. */
export interface WriteHandoffOptions {
  readonly llm: LlmClient;
  /** The summariser model (the session's `summarizerModel`). */
  readonly model: string;
  /** What the user said with the handoff. */
  readonly instructions?: string;
  /** The user's Stop: no note is written. */
  readonly signal: AbortSignal;
  /**
   * What a note stopped before it was written had cost (stoppedSpend.ts): its attempts cut
   * mid-answer, and the request in flight once it settles. Without it that money is not reported.
   */
  readonly onStoppedSpend?: OnStoppedSpend;
  /** Resolves after `ms` (the host's timer); `signal` is aborted when the request ends first. */
  readonly timeout: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The request's safety timeout; default the summariser's (5 minutes). */
  readonly timeoutMs?: number;
  /** Characters of conversation the request may carry (tests use few); default from the model's window. */
  readonly maxTranscriptChars?: number;
}

/** The note's parts, or `stopped` when the user stopped it. */
export type HandoffWritten =
  { readonly ok: true; readonly content: HandoffContent } | { readonly ok: false; readonly stopped: true };

/** Writes the handoff note of `source` (see the file comment). */
export async function writeHandoff(source: HandoffSource, opts: WriteHandoffOptions): Promise<HandoffWritten> {
  const timeoutMs = opts.timeoutMs ?? SUMMARISER_TIMEOUT_MS;
  const guard = startGuard(opts.signal, opts.timeout, timeoutMs, opts.onStoppedSpend);
  const instructions = opts.instructions?.trim() ? { instructions: opts.instructions } : {};
  try {
    const params = buildHandoffRequest({
      model: opts.model,
      messages: source.messages,
      ...(source.plan ? { plan: source.plan } : {}),
      files: touchedFiles(source),
      ...instructions,
      ...(opts.maxTranscriptChars !== undefined ? { maxTranscriptChars: opts.maxTranscriptChars } : {}),
    });
    // Attempts cut mid-answer (retried, or the one that failed) are billed: the note counts them.
    const cuts = new CutAttempts();
    const res = await guard.race(() => opts.llm.stream(params, { signal: guard.signal, onEvent: cuts.onEvent }), {
      model: opts.model,
    });
    if (opts.signal.aborted) {
      if (!res.ok) cuts.failed(res.error);
      const spent = cuts.cost(opts.model);
      reportSpent(opts.onStoppedSpend, { costUsd: spent.usd, costUnknown: spent.unknown }, opts.model);
      return { ok: false, stopped: true };
    }
    if (!res.ok) {
      cuts.failed(res.error);
      const failed = cuts.cost(opts.model);
      const cutSpent = failed.usd > 0 || failed.unknown ? { costUsd: failed.usd, ...unknownCost(failed.unknown) } : {};
      return {
        ok: true,
        content: fallbackContent(source, shortReason(res.error, guard.timedOut(), timeoutMs), {
          ...instructions,
          ...cutSpent,
        }),
      };
    }
    const cut = cuts.cost(opts.model);
    const cost = requestCostUsd(opts.model, res.result.usage);
    const spent = { costUsd: (cost ?? 0) + cut.usd, ...unknownCost(cost === undefined || cut.unknown) };
    const answer = summaryTextOf(res.result, 'summariser');
    if (!answer.ok)
      return { ok: true, content: fallbackContent(source, answer.error.message, { ...instructions, ...spent }) };
    const sections = parseHandoffAnswer(answer.text);
    return {
      ok: true,
      content: contentFromSections(source, sections, { model: opts.model, ...spent, ...instructions }),
    };
  } finally {
    guard.dispose();
  }
}
