/**
 * What a summary carries that nothing else could: at each real compaction of a transcript,
 * the identifiers (paths, symbols, URLs, error lines — as FRR counts them, frr.ts) that the
 * answers after it mention, that appeared in the region the compaction replaced, and that no
 * message after the compaction brought back before the answer mentioned them. Only the summary
 * could have carried those. Measured for the real summary the transcript holds, and for the
 * benches' scripted summariser (scriptedSummariser.ts, at `SUMMARY_LENGTH` and `SUMMARY_KEEP`)
 * over the same region, sent as the pipeline sends a region to its summariser
 * (summaryPrompt.ts), so the benches can say how much their simulated summaries keep against
 * real ones — and `deriveSummaryKeep` calibrates `SUMMARY_KEEP` on it.
 */
import { buildSummaryRequest } from '../src/core/compaction/summaryPrompt';
import { containsWord, extractIdentifiers } from '../src/core/compaction/retention';
import type { Message } from '../src/core/conversation/conversationModel';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { FRR_KINDS } from './frr';
import { ScriptedSummariser } from './scriptedSummariser';
import { SUMMARY_KEEP } from './summaryKeep';
import { SUMMARY_LENGTH } from './summaryLength';
import type { TranscriptEvent } from './transcript';

/** The carry of one transcript's compactions, summed. */
export interface SummaryCarry {
  /** Real compactions with a summary. */
  readonly compactions: number;
  /** Identifiers only a summary could have carried (counted once per compaction). */
  readonly summaryOnly: number;
  /** Of them, in the real summary's text. */
  readonly real: number;
  /** Of them, in the scripted summariser's summary of the same region. */
  readonly scripted: number;
  /** Tokens of the real summaries, and of the scripted ones (as the caller counts them). */
  readonly realTokens: number;
  readonly scriptedTokens: number;
  /** Distinct identifiers of the compacted regions the real summaries hold, and the scripted ones. */
  readonly realHeld: number;
  readonly scriptedHeld: number;
}

/** No compaction measured. */
export const NO_CARRY: SummaryCarry = {
  compactions: 0,
  summaryOnly: 0,
  real: 0,
  scripted: 0,
  realTokens: 0,
  scriptedTokens: 0,
  realHeld: 0,
  scriptedHeld: 0,
};

/** One real compaction, ready to be summarised by the scripted summariser at any share. */
export interface CarryRegion {
  /** The summariser request of the compacted region, as the pipeline builds it. */
  readonly request: MessageCreateParamsNonStreaming;
  /** The identifiers only a summary could carry (see the module comment). */
  readonly only: readonly string[];
  /** The distinct identifiers of the region (FRR's kinds). */
  readonly held: readonly string[];
  /** The real summary's text. */
  readonly summary: string;
}

/** The real compactions of `events` with what each summary could carry. */
export function carryRegions(events: readonly TranscriptEvent[]): CarryRegion[] {
  const out: CarryRegion[] = [];
  let region: Message[] = [];
  events.forEach((e, i) => {
    if (e.kind === 'message') region.push(e.message);
    if (e.kind !== 'compaction') return;
    const ids = extractIdentifiers(region);
    out.push({
      request: regionRequest(region),
      only: summaryOnlyIds(region, followingMessages(events, i)),
      held: FRR_KINDS.flatMap((k) => [...ids[k].keys()]),
      summary: e.summary,
    });
    // The region of the next compaction starts with this summary (as the agent's history did).
    region = [e.message];
  });
  return out;
}

/**
 * The carry of `events`' compactions (see the module comment) with the scripted summariser
 * keeping `share` of each region's identifiers; `tokens` counts text as the replay does.
 */
export function summaryCarry(
  events: readonly TranscriptEvent[],
  tokens: (text: string) => number,
  share: number = SUMMARY_KEEP,
): SummaryCarry {
  const summariser = new ScriptedSummariser({ tokens, length: SUMMARY_LENGTH });
  return carryRegions(events).reduce<SummaryCarry>((total, r) => {
    const scripted = summariser.draft(r.request, share);
    return {
      compactions: total.compactions + 1,
      summaryOnly: total.summaryOnly + r.only.length,
      real: total.real + carried(r.only, r.summary),
      scripted: total.scripted + carried(r.only, scripted.text),
      realTokens: total.realTokens + tokens(r.summary),
      scriptedTokens: total.scriptedTokens + scripted.tokens,
      realHeld: total.realHeld + carried(r.held, r.summary),
      scriptedHeld: total.scriptedHeld + carried(r.held, scripted.text),
    };
  }, NO_CARRY);
}

/** Grid of shares `deriveSummaryKeep` tries: 0 to 50 % by 0.5 %. */
const SHARE_STEP = 0.005;
const SHARE_MAX = 0.5;

/**
 * The share of identifiers at which the scripted summaries of `regions` (pooled) carry closest
 * to what their real summaries carried, on a 0.5 % grid, the smaller share on a tie; 0 when no
 * region has an identifier only a summary could carry (nothing to calibrate on).
 */
export function deriveSummaryKeep(regions: readonly CarryRegion[], tokens: (text: string) => number): number {
  const summariser = new ScriptedSummariser({ tokens, length: SUMMARY_LENGTH });
  const real = regions.reduce((n, r) => n + carried(r.only, r.summary), 0);
  if (regions.every((r) => r.only.length === 0)) return 0;
  let best = { share: 0, gap: Infinity };
  for (let step = 0; step * SHARE_STEP <= SHARE_MAX + 1e-9; step++) {
    const share = Math.round(step * SHARE_STEP * 1000) / 1000;
    const scripted = regions.reduce((n, r) => n + carried(r.only, summariser.draft(r.request, share).text), 0);
    const gap = Math.abs(scripted - real);
    if (gap < best.gap) best = { share, gap };
    if (scripted > real) break;
  }
  return best.share;
}

/** How many of `ids` `text` holds (as whole words). */
function carried(ids: readonly string[], text: string): number {
  return ids.filter((id) => containsWord(text, id)).length;
}

/** The summariser request of a region, as the pipeline's summariser model gets it (one chunk). */
function regionRequest(region: readonly Message[]): MessageCreateParamsNonStreaming {
  const turns: [number, number] = [region[0]?.turn ?? 1, region.at(-1)?.turn ?? 1];
  return buildSummaryRequest({
    model: 'claude-haiku-4-5',
    messages: region,
    regionTurns: turns,
    chunk: 1,
    chunks: 1,
    targetTokens: 8_000,
    maxTokens: 32_000,
  });
}

/** The messages after event `i` up to the next compaction. */
function followingMessages(events: readonly TranscriptEvent[], i: number): Message[] {
  const out: Message[] = [];
  for (const e of events.slice(i + 1)) {
    if (e.kind === 'compaction') break;
    if (e.kind === 'message') out.push(e.message);
  }
  return out;
}

/** The identifiers later answers mention that were in `region` and not brought back before them. */
function summaryOnlyIds(region: readonly Message[], after: readonly Message[]): string[] {
  const before = extractIdentifiers(region);
  const seen = new Set<string>();
  const only = new Set<string>();
  for (const m of after) {
    const ids = extractIdentifiers([m]);
    for (const kind of FRR_KINDS)
      for (const id of ids[kind].keys()) {
        if (m.role === 'assistant' && before[kind].has(id) && !seen.has(id)) only.add(id);
        seen.add(id);
      }
  }
  return [...only];
}

/** `a / b` as a percentage with one decimal, or `–` for none. */
export function carryShare(a: number, b: number): string {
  return b === 0 ? '–' : `${((100 * a) / b).toFixed(1)} %`;
}
