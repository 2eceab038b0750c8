/**
 * Which identifiers the scripted summariser keeps, and how many: the rule that makes its
 * summaries carry about what the real agents' summaries carried (summaryCarry.ts measures both).
 *
 * Which: the identifiers FRR counts (frr.ts: paths, symbols, URLs, error lines) of the stretch,
 * ranked as the real summaries of the fixtures choose — those the conversation itself named (the
 * user's and the assistant's words, the tool calls) before those only tool output or injected
 * context showed (the real summaries kept about 1 in 6 of the first, 1 in 100 of the second),
 * then the most recently mentioned first, then the most often mentioned.
 * How many: a fixed share of the stretch's distinct identifiers, `SUMMARY_KEEP`, calibrated once
 * on the fixtures' real compactions (summaryCarry.ts `deriveSummaryKeep`), never on the folder a
 * bench replays. The summary stays as long as `SUMMARY_LENGTH` says whatever it keeps
 * (scriptedSummary.ts): keeping more never makes it longer.
 */
import type { Message } from '../src/core/conversation/conversationModel';
import { extractIdentifiers } from '../src/core/compaction/retention';
import { FRR_KINDS, type FrrKind } from './frr';
import type { PassageLine } from './summaryPassages';

/**
 * Share of the stretch's distinct identifiers a scripted summary keeps. Derived by
 * `deriveSummaryKeep` (summaryCarry.ts) on the fixtures' 3 real compactions, whose summaries
 * carried 19 of the 32 identifiers only a summary could carry (59.4 %): the share, on a 0.5 %
 * grid, at which the scripted summaries of the same regions carry closest to that (ties: the
 * smaller share). test/unit/benchSummaryKeep.test.ts re-derives it from the fixtures.
 */
export const SUMMARY_KEEP = 0.08;

/** One identifier of a stretch, with what ranks it. */
export interface RankedIdentifier {
  readonly id: string;
  /** Whether the conversation's own words named it (not only tool output or injected context). */
  readonly words: boolean;
  /** Index of the line of its newest mention. */
  readonly newest: number;
  /** Lines mentioning it. */
  readonly mentions: number;
}

/**
 * The stretch's distinct identifiers (FRR's kinds), best first: named in words, newest, most
 * mentioned, first seen. `found` gives each line's identifiers when they were already extracted.
 */
export function rankIdentifiers(
  lines: readonly PassageLine[],
  found: readonly (readonly LineIdentifier[])[] = lines.map((l) => lineIdentifiers(l.text)),
): RankedIdentifier[] {
  const seen = new Map<string, { words: boolean; newest: number; mentions: number; first: number }>();
  lines.forEach((line, i) => {
    for (const { id } of found[i] ?? []) {
      const s = seen.get(id);
      if (s) seen.set(id, { words: s.words || line.words, newest: i, mentions: s.mentions + 1, first: s.first });
      else seen.set(id, { words: line.words, newest: i, mentions: 1, first: seen.size });
    }
  });
  return [...seen.entries()]
    .sort(
      ([, a], [, b]) =>
        Number(b.words) - Number(a.words) || b.newest - a.newest || b.mentions - a.mentions || a.first - b.first,
    )
    .map(([id, s]) => ({ id, words: s.words, newest: s.newest, mentions: s.mentions }));
}

/** How many of `distinct` identifiers a summary keeping `share` of them keeps: rounded up (one of a few), none at share 0. */
export function keptCount(distinct: number, share: number = SUMMARY_KEEP): number {
  return Math.min(distinct, Math.max(0, Math.ceil(share * distinct - 1e-9)));
}

/** An identifier of a line, with its kind. */
export interface LineIdentifier {
  readonly kind: FrrKind;
  readonly id: string;
}

/** The identifiers of one line of text (FRR's kinds), as the retention check extracts them. */
export function lineIdentifiers(text: string): LineIdentifier[] {
  if (text.trim() === '') return [];
  const ids = extractIdentifiers([textMessage(text)]);
  return FRR_KINDS.flatMap((kind) => [...ids[kind].keys()].map((id) => ({ kind, id })));
}

function textMessage(text: string): Message {
  const meta = { id: 'b', tier: 0, source: 'assistant', createdAt: 0, pinned: false, compactable: true } as const;
  return { id: 'm', role: 'assistant', turn: 1, blocks: [{ type: 'text', text, meta }] };
}
