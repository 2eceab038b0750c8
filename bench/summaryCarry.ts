/**
 * What a summary carries that nothing else could: at each real compaction of a transcript,
 * the identifiers (paths, symbols, URLs, error lines — as FRR counts them, frr.ts) that the
 * answers after it mention, that appeared in the region the compaction replaced, and that no
 * message after the compaction brought back before the answer mentioned them. Only the summary
 * could have carried those. Measured for the real summary the transcript holds, and for the
 * benches' scripted summariser (scriptedSummariser.ts, at `SUMMARY_LENGTH`) over the same
 * region, so the benches can say how much their simulated summaries keep against real ones.
 */
import { containsWord, extractIdentifiers, messagesText } from '../src/core/compaction/retention';
import type { Message } from '../src/core/conversation/conversationModel';
import { FRR_KINDS } from './frr';
import { ScriptedSummariser } from './scriptedSummariser';
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
}

/** No compaction measured. */
export const NO_CARRY: SummaryCarry = { compactions: 0, summaryOnly: 0, real: 0, scripted: 0 };

/** The carry of `events`' compactions (see the module comment); `tokens` counts text as the replay does. */
export async function summaryCarry(
  events: readonly TranscriptEvent[],
  tokens: (text: string) => number,
): Promise<SummaryCarry> {
  const summariser = new ScriptedSummariser({ tokens, length: SUMMARY_LENGTH });
  let total = NO_CARRY;
  let region: Message[] = [];
  const measured: { region: Message[]; only: string[] }[] = [];
  events.forEach((e, i) => {
    if (e.kind === 'message') region.push(e.message);
    if (e.kind !== 'compaction') return;
    const only = summaryOnlyIds(region, followingMessages(events, i));
    total = {
      ...total,
      compactions: total.compactions + 1,
      summaryOnly: total.summaryOnly + only.length,
      real: total.real + only.filter((id) => containsWord(e.summary, id)).length,
    };
    measured.push({ region: [...region], only });
    // The region of the next compaction starts with this summary (as the agent's history did).
    region = [e.message];
  });
  let scripted = 0;
  for (const p of measured) {
    const text = await scriptedSummary(summariser, messagesText(p.region));
    scripted += p.only.filter((id) => containsWord(text, id)).length;
  }
  return { ...total, scripted };
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

/** The scripted summariser's summary of `text` (one user message), with room for any length. */
async function scriptedSummary(summariser: ScriptedSummariser, text: string): Promise<string> {
  const r = await summariser.stream(
    {
      model: 'claude-haiku-4-5',
      max_tokens: 32_000,
      system: 'Summarise.',
      messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    },
    { signal: new AbortController().signal, onEvent: () => undefined },
  );
  return r.ok ? r.result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('') : '';
}

/** `a / b` as a percentage with one decimal, or `–` for none. */
export function carryShare(a: number, b: number): string {
  return b === 0 ? '–' : `${((100 * a) / b).toFixed(1)} %`;
}
