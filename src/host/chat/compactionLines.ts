/**
 * The chat's live compaction lines: "Compacting… (summarising 38k tokens)" while a compaction
 * runs, and its outcome after ("Compacted 38k → 4k tokens (summary)"), in words from the
 * compaction labels (core/compaction/labels.ts). Pure.
 */
import { LAYER_LABEL } from '../../core/compaction/labels';
import type { CompactionRecord, CompactionTrigger } from '../../core/compaction/types';
import { shortTokens } from '../../core/platform/text';

/** The line while a compaction runs: what started it and, once known, the tokens its summary summarises. */
export function compactingText(trigger: CompactionTrigger, tokens?: number): string {
  const what = trigger === 'manual' ? 'Compacting…' : 'Compacting older history…';
  return tokens !== undefined && tokens > 0 ? `${what} (summarising ${shortTokens(tokens)} tokens)` : what;
}

/** Layers that change a result or two on their own, often: their outcome is the row's "result cleared", not a line. */
const QUIET_LAYERS: ReadonlySet<CompactionRecord['layer']> = new Set([
  'tool-result-guard',
  'budget-trim',
  'snip',
  'microcompact',
  'mask',
  'tail-guard',
  'overflow-cut',
]);

/** Whether a pass's records deserve an outcome line when no "Compacting…" line announced them (a summary, turns removed). */
export function worthALine(records: readonly CompactionRecord[]): boolean {
  return records.some((r) => !QUIET_LAYERS.has(r.layer));
}

/**
 * The outcome line of a compaction pass: the tokens its summaries or removals replaced and
 * what stands in their place (each record counts its own region), or, for results cleared
 * alone, the prompt before the first and after the last; `failed` when it ended with an error
 * (nothing applied).
 */
export function compactedText(records: readonly CompactionRecord[], failed: boolean): string {
  if (records.length === 0)
    return failed ? 'Compaction failed: nothing was compacted (see the error above).' : 'Nothing was compacted.';
  const loud = records.filter((r) => !QUIET_LAYERS.has(r.layer));
  const before = loud.length > 0 ? loud.reduce((n, r) => n + r.tokensBefore, 0) : (records[0]?.tokensBefore ?? 0);
  const after = loud.length > 0 ? loud.reduce((n, r) => n + r.tokensAfter, 0) : (records.at(-1)?.tokensAfter ?? 0);
  const kinds = [...new Set(records.map((r) => LAYER_LABEL[r.layer]))].join(', ');
  return `Compacted ${shortTokens(before)} → ${shortTokens(after)} tokens (${kinds}).`;
}
