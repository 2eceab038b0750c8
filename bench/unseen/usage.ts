/**
 * Usage records consistent with the history they follow. A derived transcript keeps the real
 * calibration noise: a fixture's request reports its original prompt plus (estimate of the
 * changed history − estimate of the original one); a request the generator added reports the
 * estimate plus the last known offset (the unseen system prompt and the noise). The cache
 * split follows the original's shape (cold: all written; warm: mostly read), an added request
 * reads what the previous one wrote unless a compaction came between.
 */
import type { MessageEstimate } from './estimate';
import type { TranscriptRecord, UsageFields, UsageRecord } from './records';

/** Prompt tokens a usage reports (uncached input + cache reads + cache writes); 0 for none. */
export function promptOf(u: UsageFields | null | undefined): number {
  return u ? (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) : 0;
}

/** Calls `f` for each usage record with the estimated tokens of the history before it (reset by a compaction). */
function walk(
  records: readonly TranscriptRecord[],
  estimate: MessageEstimate,
  f: (r: UsageRecord, est: number) => void,
): void {
  let est = 0;
  for (const r of records) {
    if (r.kind === 'message') est += estimate.message(r.message);
    else if (r.kind === 'compaction') est = estimate.summary(String(r.summary ?? ''));
    else f(r, est);
  }
}

/** Marks each reported usage of a fixture with its original prompt and the estimate it had (`plan.origPrompt/origEst`). */
export function annotateFixture(records: readonly TranscriptRecord[], estimate: MessageEstimate): void {
  walk(records, estimate, (r, est) => {
    if (r.usage) r.plan = { ...r.plan, origPrompt: promptOf(r.usage), origEst: est };
  });
}

/** Options of {@link fillUsage}. */
export interface FillOptions {
  /** The unseen overhead (system prompt, tools) of added requests before any fixture offset is known (default 5000). */
  readonly sys?: number;
  /** Tokens added to every recomputed prompt (a heavier system prompt). */
  readonly extraOffset?: number;
}

/**
 * Fills every usage record planned `fresh` (or derived from a fixture, with `origPrompt`) with
 * a prompt consistent with the history before it, in place; records planned `keep`, and
 * others without a plan, stay as they are. Returns `records`.
 */
export function fillUsage(
  records: TranscriptRecord[],
  estimate: MessageEstimate,
  opts: FillOptions = {},
): TranscriptRecord[] {
  let offset = opts.sys ?? 5000;
  let prev: number | undefined;
  let afterCompaction = true;
  let est = 0;
  for (const r of records) {
    if (r.kind === 'message') {
      est += estimate.message(r.message);
      continue;
    }
    if (r.kind === 'compaction') {
      est = estimate.summary(String(r.summary ?? ''));
      afterCompaction = true;
      continue;
    }
    const plan = r.plan ?? {};
    if (plan.keep) continue;
    if (plan.origPrompt !== undefined) offset = plan.origPrompt - (plan.origEst ?? 0);
    else if (!plan.fresh) continue;
    const prompt = Math.max(10, Math.round(est + offset + (opts.extraOffset ?? 0)));
    const u: UsageFields = r.usage ?? {};
    let input: number;
    let read: number;
    let creation: number;
    if (plan.fresh) {
      input = 3;
      read = afterCompaction || prev === undefined || prev > prompt - 3 ? 0 : prev;
      creation = prompt - input - read;
    } else if ((u.cache_read_input_tokens ?? 0) === 0) {
      input = Math.min(u.input_tokens ?? 3, prompt - 1);
      read = 0;
      creation = prompt - input;
    } else {
      input = Math.min(u.input_tokens ?? 3, Math.floor(prompt / 3));
      creation = Math.min(u.cache_creation_input_tokens ?? 0, Math.floor(prompt / 3));
      read = prompt - input - creation;
    }
    r.usage = {
      input_tokens: input,
      cache_read_input_tokens: read,
      cache_creation_input_tokens: creation,
      output_tokens: u.output_tokens ?? plan.output ?? 100,
    };
    prev = prompt;
    afterCompaction = false;
  }
  return records;
}
