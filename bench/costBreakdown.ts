/**
 * Where a replay's money goes: cache reads, cache writes by cause, uncached input, output and
 * the summariser, in dollars at each request's own model's rate card (the prices of
 * src/core/models/modelTable.ts, as src/core/llm/cost.ts prices a whole request).
 *
 * A request's cache write is put down to one cause, the first that applies:
 * - `miss`: the real session had a full cache miss here (the replay flushed its cache);
 * - `ttl`: the gap since the previous request was longer than the cache's lifetime;
 * - `compaction`: a compaction changed the history just before this request;
 * - `server`: the API's context editing (`clear_tool_uses`) cleared results in this request,
 *   so what follows the first cleared result is written again;
 * - `growth`: otherwise — what the conversation added since the previous request.
 * The whole write of a request goes to its cause (a compaction request's write includes that
 * request's growth), so the causes add up to the writes exactly.
 */
import { requestCostUsd } from '../src/core/llm/cost';
import type { Usage } from '../src/core/llm/llmClient';
import type { CacheTtl } from '../src/core/conversation/conversationModel';
import { modelInfo, rateCardFor } from '../src/core/models/modelFacts';
import { reportedPromptTokens } from '../src/core/tokens/promptTokens';

/** Why a request wrote to the cache (see the module comment). */
export type WriteCause = 'growth' | 'compaction' | 'server' | 'ttl' | 'miss';

/** Dollars by part; `unpriced` counts requests of models without prices (left out of the dollars). */
export interface CostParts {
  readonly read: number;
  readonly write: Readonly<Record<WriteCause, number>>;
  readonly input: number;
  readonly output: number;
  readonly summariser: number;
  readonly unpriced: number;
}

/** The cause of a request's cache write. */
export function writeCause(o: {
  readonly flushed: boolean;
  readonly gapMs: number | undefined;
  readonly ttlMs: number;
  readonly compacted: boolean;
  readonly serverEdited?: boolean;
}): WriteCause {
  if (o.flushed) return 'miss';
  if (o.gapMs !== undefined && o.gapMs > o.ttlMs) return 'ttl';
  if (o.compacted) return 'compaction';
  return o.serverEdited ? 'server' : 'growth';
}

/** A running breakdown of one replay's cost. */
export class CostBreakdown {
  private read = 0;
  private readonly write: Record<WriteCause, number> = { growth: 0, compaction: 0, server: 0, ttl: 0, miss: 0 };
  private input = 0;
  private output = 0;
  private summariser = 0;
  private unpriced = 0;

  /** Adds a main request whose cache write is put down to `cause`. */
  request(model: string, usage: Usage, ttl: CacheTtl, cause: WriteCause): void {
    const p = partsOf(model, usage, ttl);
    if (!p) {
      this.unpriced++;
      return;
    }
    this.read += p.read;
    this.write[cause] += p.write;
    this.input += p.input;
    this.output += p.output;
  }

  /** Adds a summariser request, whole. */
  summary(model: string, usage: Usage, ttl: CacheTtl): void {
    const p = partsOf(model, usage, ttl);
    if (!p) this.unpriced++;
    else this.summariser += p.read + p.write + p.input + p.output;
  }

  /** The figures so far. */
  parts(): CostParts {
    return {
      read: this.read,
      write: { ...this.write },
      input: this.input,
      output: this.output,
      summariser: this.summariser,
      unpriced: this.unpriced,
    };
  }
}

/** The total of `p` in dollars. */
export function partsTotal(p: CostParts): number {
  return p.read + p.input + p.output + p.summariser + Object.values(p.write).reduce((a, b) => a + b, 0);
}

/** One request's dollars by part at its rate card, undefined for a model without prices. */
function partsOf(
  model: string,
  usage: Usage,
  ttl: CacheTtl,
): { read: number; write: number; input: number; output: number } | undefined {
  const prices = model.trim() ? modelInfo(model).prices : undefined;
  if (!prices) return undefined;
  const card = rateCardFor(prices, reportedPromptTokens(usage));
  const m = 1_000_000;
  const read = (usage.cache_read_input_tokens * card.cacheRead) / m;
  const input = (usage.input_tokens * card.input) / m;
  const output = (usage.output_tokens * card.output) / m;
  // Writes are what is left of the request's price (cost.ts prices each lifetime the usage splits).
  const write = Math.max(0, (requestCostUsd(model, usage, ttl) ?? 0) - read - input - output);
  return { read, write, input, output };
}

/** One replay's breakdown as the JSON line carries it (dollars, 4 decimals). */
export interface BreakdownRow {
  readonly transcript: string;
  readonly window: number;
  readonly policy: string;
  readonly read: number;
  readonly write_growth: number;
  readonly write_compaction: number;
  readonly write_server: number;
  readonly write_ttl: number;
  readonly write_miss: number;
  readonly input: number;
  readonly output: number;
  readonly summariser: number;
}

/** The breakdown rows of `results`, in their order. */
export function breakdownRows(
  results: readonly {
    readonly result: { transcript: string; window: number; policy: string; breakdown: CostParts };
  }[],
): BreakdownRow[] {
  const r4 = (x: number) => Math.round(x * 10_000) / 10_000;
  return results.map(({ result: r }) => ({
    transcript: r.transcript,
    window: r.window,
    policy: r.policy,
    read: r4(r.breakdown.read),
    write_growth: r4(r.breakdown.write.growth),
    write_compaction: r4(r.breakdown.write.compaction),
    write_server: r4(r.breakdown.write.server),
    write_ttl: r4(r.breakdown.write.ttl),
    write_miss: r4(r.breakdown.write.miss),
    input: r4(r.breakdown.input),
    output: r4(r.breakdown.output),
    summariser: r4(r.breakdown.summariser),
  }));
}

/**
 * Prints where each replay's money went, in dollars: cache reads, cache writes by cause
 * (growth, compaction rewrite, TTL expiry, real miss), uncached input, output, summariser.
 */
export function printBreakdown(rows: readonly BreakdownRow[], name: (file: string) => string): void {
  console.log(
    "Where the money goes ($): cache reads · cache writes by cause (growth, after a compaction, after the API's clear_tool_uses, after a gap past the TTL, a real full miss) · uncached input · output · summariser",
  );
  const head = [
    'transcript',
    'window',
    'policy',
    'read',
    'w:growth',
    'w:compact',
    'w:server',
    'w:ttl',
    'w:miss',
    'input',
    'output',
    'summ.',
  ];
  const cells = rows.map((r) => [
    name(r.transcript),
    `${Math.round(r.window / 1000)}k`,
    r.policy,
    ...[
      r.read,
      r.write_growth,
      r.write_compaction,
      r.write_server,
      r.write_ttl,
      r.write_miss,
      r.input,
      r.output,
      r.summariser,
    ].map((x) => x.toFixed(2)),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (xs: readonly string[]) =>
    xs.map((x, i) => (i < 3 ? x.padEnd(widths[i] as number) : x.padStart(widths[i] as number))).join('  ');
  console.log(line(head));
  for (const c of cells) console.log(line(c));
}
