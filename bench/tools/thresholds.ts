/**
 * The defer threshold's candidates: at each, which sets the core's plan defers
 * (`contextPipeline.toolSearch.deferThreshold`, compared by `planToolLoading` with the raw
 * tokens of the MCP definitions) and what deferring them saves per request, in the bench's
 * figures (toolLoad.ts) and in the replay's cost. Printed, not in the JSON line.
 */
import type { Tokenizer } from '../../src/core/platform/platformPorts';
import { DEFAULT_DEFER_THRESHOLD_TOKENS } from '../../src/core/tools/toolLoading';
import { deferredAt } from './toolLoad';
import type { ToolSet } from './toolSets';

/** Thresholds (tokens) the bench reports, with the current default among them. */
export const THRESHOLD_CANDIDATES: readonly number[] = [
  ...new Set([0, 2_000, 5_000, 10_000, 20_000, DEFAULT_DEFER_THRESHOLD_TOKENS]),
].sort((a, b) => a - b);

/** A set's figures the threshold lines need (a row of the bench, and its search tool's tokens). */
export interface ThresholdRow {
  readonly name: string;
  readonly eager_tokens: number;
  readonly deferred_tokens: number;
  /** Tokens a deferred request carries before the first search (the search tool alone). */
  readonly searchToolTokens: number;
  readonly replay_cost_eager: number | null;
  readonly replay_cost_deferred: number | null;
}

const signed = (n: number) => (n >= 0 ? `${n}` : `−${-n}`);
const usd = (n: number) => (n >= 0 ? `$${n.toFixed(2)}` : `−$${(-n).toFixed(2)}`);

/** What deferring `row` saves: tokens per request before and after the first search, and over the replay. */
export function savingText(row: ThresholdRow): string {
  const before = row.eager_tokens - row.searchToolTokens;
  const after = row.eager_tokens - row.deferred_tokens;
  const replay =
    row.replay_cost_eager === null || row.replay_cost_deferred === null
      ? 'replay unpriced'
      : `replay ${usd(row.replay_cost_eager - row.replay_cost_deferred)}`;
  return `${row.name} (saves ${signed(before)} tok/request before its first search, ${signed(after)} after; ${replay})`;
}

/** One line per candidate threshold: the sets deferred at it and what that saves, the sets kept eager. */
export function thresholdLines(
  rows: readonly ThresholdRow[],
  sets: readonly ToolSet[],
  tokenizer: Tokenizer,
  candidates: readonly number[] = THRESHOLD_CANDIDATES,
): string[] {
  return candidates.map((threshold) => {
    const deferred = rows.filter((r) => {
      const set = sets.find((s) => s.name === r.name);
      return set !== undefined && deferredAt(set, threshold, tokenizer);
    });
    const eager = rows.filter((r) => !deferred.includes(r)).map((r) => r.name);
    const mark = threshold === DEFAULT_DEFER_THRESHOLD_TOKENS ? ' (default)' : '';
    const defers = deferred.length === 0 ? 'defers nothing' : `defers ${deferred.map(savingText).join(', ')}`;
    return `Threshold ${threshold}${mark}: ${defers}${eager.length > 0 ? `. Kept eager: ${eager.join(', ')}` : ''}.`;
  });
}
