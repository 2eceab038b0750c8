/**
 * The text of a scripted summary: the identifiers the keep rule picks (summaryKeep.ts), one a
 * line in rank order, then the stretch's own lines with every identifier of the stretch left
 * out (the newest first, the conversation's words before material; no label or mark of the
 * rendered transcript, no error line), until the length `SUMMARY_LENGTH` gives
 * (summaryLength.ts). The length is the rule's whatever is kept: the identifiers take the room
 * of the other lines, and when they alone are longer than the target, the lowest ranked are
 * cut. So the summary carries the identifiers it keeps and, as far as the retention check's
 * matching goes, no other.
 */
import { safeCutIndex } from '../src/core/platform/text';
import { keptCount, lineIdentifiers, rankIdentifiers, SUMMARY_KEEP, type LineIdentifier } from './summaryKeep';
import { isStructure, type PassageLine } from './summaryPassages';

/** Whole lines are taken up to this multiple of the target before the summary is cut to it. */
const OVERSHOOT = 1.2;
/** Longest line a summary keeps of the stretch. */
const LINE_CHARS = 200;
/** Shortest line worth keeping, once its identifiers are left out (shorter ones are labels and punctuation). */
const MIN_LINE_CHARS = 20;
/** Labels of the rendered transcript, left off the lines a summary keeps. */
const LABEL = /^(?:User|Assistant|Assistant \(private reasoning\)): /;
/** A word that may be an identifier, or hold one (a symbol with a suffix, a path in punctuation). */
const WORDISH = /[\w$][\w$./@+-]*/g;
/** What stands in for an identifier left out. */
const GAP = '…';

/** What a scripted summary is written from: the stretch's identifiers best first, and its lines without them. */
export interface SummarySource {
  readonly ranked: readonly string[];
  readonly plain: readonly string[];
}

/** Reads a stretch once, for any number of summaries of it (a calibration tries many shares). */
export function summarySource(lines: readonly PassageLine[]): SummarySource {
  const found = lines.map((l) => lineIdentifiers(l.text));
  const ranked = rankIdentifiers(lines, found).map((r) => r.id);
  const all = new Set(ranked);
  const plain = (words: boolean) =>
    lines
      .flatMap((l, i) =>
        l.words === words && !isStructure(l.text) ? [withoutIdentifiers(l.text, found[i] ?? [], all)] : [],
      )
      .filter((t): t is string => t !== undefined && t.length >= MIN_LINE_CHARS)
      .reverse();
  return { ranked, plain: [...new Set([...plain(true), ...plain(false)])] };
}

/**
 * A line of the stretch with every identifier of the stretch (`all`) left out, cut to
 * LINE_CHARS; `undefined` for an error line (its text is the identifier) or when the retention
 * check would still find one in it.
 */
function withoutIdentifiers(
  text: string,
  found: readonly LineIdentifier[],
  all: ReadonlySet<string>,
): string | undefined {
  if (found.some((f) => f.kind === 'error')) return undefined;
  let out = text.replace(LABEL, '').trim();
  for (const { id } of [...found].sort((a, b) => b.id.length - a.id.length)) out = out.split(id).join(GAP);
  out = out.replace(WORDISH, (w) => {
    const bare = w.replace(/[.,;:!?]+$/, '');
    return all.has(bare) ? `${GAP}${w.slice(bare.length)}` : w;
  });
  out = out.slice(0, LINE_CHARS);
  return lineIdentifiers(out).length === 0 ? out : undefined;
}

/** A scripted summary: its text, its tokens, and how many identifiers it holds. */
export interface ScriptedSummaryText {
  readonly text: string;
  readonly tokens: number;
  readonly kept: number;
}

/**
 * The summary of `source` at `target` tokens (counted by `tokens`) keeping `share` of its
 * identifiers: their lines in rank order, then identifier-free lines, whole while the per-line
 * counts stay under a margin over the target, then the text is cut to the target (a model
 * stopping at its length), counted on the whole summary — so when the identifiers alone are
 * longer, the lowest ranked are cut. `kept` counts the identifier lines left whole.
 */
export function writeSummary(
  source: SummarySource,
  target: number,
  tokens: (text: string) => number,
  share: number = SUMMARY_KEEP,
): ScriptedSummaryText {
  const ids = source.ranked.slice(0, keptCount(source.ranked.length, share)).map((id) => `- \`${id}\``);
  const lines: string[] = [];
  let estimate = 0;
  for (const line of [...ids, ...source.plain.map((p) => `- ${p}`)]) {
    if (estimate >= target * OVERSHOOT) break;
    lines.push(line);
    estimate += tokens(line);
  }
  if (lines.length === 0) return { text: 'The earlier turns held nothing worth keeping.', tokens: 10, kept: 0 };
  let text = lines.join('\n');
  let count = tokens(text);
  for (let i = 0; i < 4 && count > target; i++) {
    text = text.slice(0, safeCutIndex(text, Math.floor((text.length * target) / count))).trimEnd();
    count = tokens(text);
  }
  const written = text.split('\n');
  const kept = ids.findIndex((line, i) => written[i] !== line);
  return { text, tokens: count, kept: kept === -1 ? ids.length : kept };
}
