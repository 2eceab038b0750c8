/**
 * The search mode of recall: finds a text or identifier in the corpus (case-insensitive),
 * ranks exact identifier matches first and formats each hit with where it came from (turn,
 * compaction, ids) and a short snippet with a line of context either side. Pure.
 */
import { containsWord } from '../compaction/retention';
import { safeCutIndex } from '../platform/text';
import { formatCount, plural } from '../text/counts';
import type { PastLabel, RecallCorpus, RecallItem } from './corpus';

/** How well a line matches, best first. */
const SCORE = { exactWord: 4, word: 3, substring: 2, allTerms: 1 } as const;

/** Characters of a snippet line shown around the match. */
const SNIPPET_LINE_CHARS = 200;

/** One matching item: its best line (0-based) and score, and how many of its lines match. */
export interface RecallHit {
  readonly item: RecallItem;
  readonly score: number;
  readonly line: number;
  readonly matchingLines: number;
}

/** Every match of `query` in the corpus, best first (ties in conversation order), before any cap. */
export function findHits(corpus: RecallCorpus, query: string, compaction?: string): RecallHit[] {
  const q = query.trim();
  const ql = q.toLowerCase();
  const terms = [...new Set(ql.split(/\s+/).filter((t) => t.length > 0))];
  const hits: RecallHit[] = [];
  for (const item of corpus.items) {
    if (compaction !== undefined && item.compactionId !== compaction) continue;
    const lower = item.text.toLowerCase();
    const phrase = lower.includes(ql);
    if (!phrase && (terms.length < 2 || !terms.every((t) => lower.includes(t)))) continue;
    const lines = item.text.split('\n');
    let best = -1;
    let score = 0;
    let matching = 0;
    for (const [i, line] of lines.entries()) {
      const s = lineScore(line, q, ql, terms, phrase);
      if (s > 0) matching++;
      if (s > score) {
        score = s;
        best = i;
      }
    }
    // All terms occur in the item, but never on one line: show the line with the first term.
    if (best < 0) {
      best = Math.max(
        0,
        lines.findIndex((l) => l.toLowerCase().includes(terms[0] ?? ql)),
      );
      score = SCORE.allTerms;
      matching = 1;
    }
    hits.push({ item, score, line: best, matchingLines: matching });
  }
  return hits
    .map((h, i) => ({ h, i }))
    .sort((a, b) => b.h.score - a.h.score || a.i - b.i)
    .map((x) => x.h);
}

function lineScore(line: string, q: string, ql: string, terms: readonly string[], phrase: boolean): number {
  const lower = line.toLowerCase();
  if (phrase && lower.includes(ql)) {
    if (containsWord(line, q)) return SCORE.exactWord;
    if (containsWord(lower, ql)) return SCORE.word;
    return SCORE.substring;
  }
  return !phrase && terms.length > 1 && terms.every((t) => lower.includes(t)) ? SCORE.allTerms : 0;
}

/** What a hit is, in a few words: `tool result of read_file`, `user message`, `summary` … */
export function describeItem(item: RecallItem): string {
  switch (item.kind) {
    case 'text':
      return `${item.role ?? 'user'} message`;
    case 'thinking':
      return 'assistant thinking';
    case 'tool_use':
      return `tool call ${item.toolName ?? ''}`.trim();
    case 'tool_result':
      return item.toolName ? `tool result of ${item.toolName}` : 'tool result';
    case 'summary':
      return 'summary';
    case 'spill':
      return 'saved output';
  }
}

/** The id to read an item with: the tool call's, the message's, the summary block's, or the file. */
export function readIdOf(item: RecallItem): string {
  if (item.kind === 'spill') return item.path ?? '';
  if (item.kind === 'summary') return item.blockId ?? '';
  return item.toolUseId ?? item.messageId ?? item.blockId ?? '';
}

/** The heading line of a hit: what it is, where it stands and the id to read it with. */
function hitHeading(n: number, hit: RecallHit): string {
  const { item } = hit;
  const where = [
    describeItem(item),
    ...(item.turn !== undefined ? [`turn ${item.turn}`] : []),
    ...(item.compactionId && !item.past?.history ? [`compaction ${item.compactionId}`] : []),
    ...(item.past ? [pastWords(item.past)] : []),
  ];
  const more = hit.matchingLines > 1 ? ` (${formatCount(hit.matchingLines)} matching lines)` : '';
  return `[${n}] ${where.join(' · ')} · id=${readIdOf(item)}${more}`;
}

/** Where an item of a session this one continues comes from: `old session "Fix the parser" (id …)`. */
export function pastWords(past: PastLabel): string {
  return `old session "${past.title.replace(/["\n]/g, ' ')}" (${past.sessionId}${past.history ? ', as it was left' : ''})`;
}

/** The best line with one line of context either side; the matching line marked `>`. */
function snippet(hit: RecallHit, ql: string): string[] {
  const lines = hit.item.text.split('\n');
  const out: string[] = [];
  for (let i = Math.max(0, hit.line - 1); i <= Math.min(lines.length - 1, hit.line + 1); i++) {
    const line = lines[i] ?? '';
    if (i !== hit.line && line.trim() === '') continue;
    out.push(`${i === hit.line ? '  > ' : '    '}${window(line, i === hit.line ? ql : '')}`);
  }
  return out;
}

/** A line cut to a window of about {@link SNIPPET_LINE_CHARS} characters around `ql` (its start without one). */
function window(line: string, ql: string): string {
  const flat = line.replace(/\t/g, ' ');
  if (flat.length <= SNIPPET_LINE_CHARS) return flat;
  const at = ql ? Math.max(0, flat.toLowerCase().indexOf(ql)) : 0;
  const start = safeCutIndex(
    flat,
    Math.max(0, Math.min(at - Math.floor(SNIPPET_LINE_CHARS / 3), flat.length - SNIPPET_LINE_CHARS)),
  );
  const end = safeCutIndex(flat, start + SNIPPET_LINE_CHARS);
  return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
}

/** The result text of a search that found `hits` (at least one), showing the first `maxHits`. */
export function formatHits(query: string, hits: readonly RecallHit[], maxHits: number): string {
  const shown = hits.slice(0, maxHits);
  const ql = query.trim().toLowerCase();
  const head = `${plural(hits.length, 'match', 'matches')} for "${query.trim()}"${hits.length > shown.length ? ` (showing the best ${formatCount(shown.length)}; add words or \`compaction\` to narrow it)` : ''}:`;
  const blocks = shown.map((h, i) => [hitHeading(i + 1, h), ...snippet(h, ql)].join('\n'));
  const spill = shown.some((h) => h.item.kind === 'spill');
  const tail = `[Read one in full with recall id=<id> (add offset/limit to page)${spill ? '; a saved output can also be read with read_file path=<id>' : ''}.]`;
  return [head, '', blocks.join('\n\n'), '', tail].join('\n');
}
