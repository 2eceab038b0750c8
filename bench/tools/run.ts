/**
 * `npm run bench -- tools [--window N] [--k N] [--sets DIR] [dir…]`: what real MCP servers'
 * tool definitions (bench/tools/sets/, `npm run capture-mcp-tools`) cost, sent eagerly or
 * deferred behind the API's tool search, in the core's figures (toolLoad.ts: the tool loading
 * plan decides, toolBudget counts as the budget panel does).
 *
 * Per set: its tools; the tokens of its definitions per request, eager vs deferred; and the
 * real sessions (test/fixtures and ../shared/fixtures by default, identical files once) replayed
 * under the default policy with the set added to every request — the same replay and pricing
 * as replay-all (the transcript's clock, its real full cache misses, cache writes and reads,
 * compactions the added tokens bring forward), so writing the definitions to the cache again
 * after each cache miss is counted. Prints a table, the assumptions, one line per candidate
 * defer threshold (thresholds.ts: the sets deferred at it and what that saves), and as the last line
 * `{"sets":[{name,tools,eager_tokens,deferred_tokens,replay_cost_eager,replay_cost_deferred},…]}`
 * (costs in USD, summed over the sessions; `null` when a session's model has no price).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { initialCalibration } from '../../src/core/tokens/calibration';
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';
import type { Tokenizer } from '../../src/core/platform/platformPorts';
import { policy } from '../policies';
import { prepareTranscript, replay, type PreparedTranscript, type ReplayToolLoad } from '../replayCore';
import { totalCost } from '../replayReport';
import { SUMMARY_LENGTH, type SummaryLengthModel } from '../summaryLength';
import { nothingToReplay, readTranscript } from '../transcript';
import { toolSearchTool } from '../../src/core/pipeline/serialize';
import { thresholdLines } from './thresholds';
import { DEFAULT_LOADED, PROMPT_CACHING_DOC, TOOL_SEARCH_DOC, toolRequestModel } from './toolLoad';
import { ALL_SERVERS, readCapturedSets, SETS_DIR, toolSets, type ToolSet } from './toolSets';

/** Folders replayed by default: the repo's fixtures and the shared ones beside the worktree. */
export const DEFAULT_DIRS: readonly string[] = ['test/fixtures', '../shared/fixtures'];
/** The window the sessions are replayed at by default. */
export const DEFAULT_WINDOW = 200_000;
/** Deferred tokens as a share of eager that the 30+ tool set should stay within (issue 32). */
export const TARGET_SHARE = 0.25;

/** One set's figures: the JSON line's row. */
export interface ToolSetRow {
  readonly name: string;
  readonly tools: number;
  readonly eager_tokens: number;
  readonly deferred_tokens: number;
  readonly replay_cost_eager: number | null;
  readonly replay_cost_deferred: number | null;
}

/** What `tools` was asked for. */
export interface ToolsArgs {
  readonly window: number;
  readonly k: number;
  readonly setsDir: string;
  readonly dirs: readonly string[];
}

/** Parses the arguments; an error names what is wrong. */
export function parseToolsArgs(args: readonly string[]): ToolsArgs | { readonly error: string } {
  let window = DEFAULT_WINDOW;
  let k = DEFAULT_LOADED;
  let setsDir = SETS_DIR;
  const dirs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const value = args[i + 1];
    if (a === '--window' || a === '--k') {
      const n = Number((value ?? '').replace(/_/g, ''));
      if (!Number.isInteger(n) || n < (a === '--k' ? 0 : 16_000))
        return { error: `${a} takes a whole number${a === '--k' ? '' : ' of at least 16000'} (got "${value ?? ''}")` };
      if (a === '--k') k = n;
      else window = n;
      i++;
    } else if (a === '--sets') {
      if (!value) return { error: '--sets takes a folder' };
      setsDir = value;
      i++;
    } else if (a.startsWith('--')) return { error: `unknown option ${a}` };
    else dirs.push(a);
  }
  return { window, k, setsDir, dirs: dirs.length > 0 ? dirs : DEFAULT_DIRS };
}

/** The .jsonl transcripts of the folders (missing folders skipped), each distinct content once. */
export function transcriptFiles(dirs: readonly string[]): string[] {
  const seen = new Set<string>();
  const files: string[] = [];
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir)
      .filter((x) => x.endsWith('.jsonl'))
      .sort()) {
      const file = join(dir, f);
      const digest = createHash('sha256').update(readFileSync(file)).digest('hex');
      if (seen.has(digest)) continue;
      seen.add(digest);
      files.push(file);
    }
  }
  return files;
}

/** Sums costs, to a hundredth of a cent; `null` when any is unknown. */
function sum(costs: readonly (number | null)[]): number | null {
  if (costs.some((c) => c === null)) return null;
  return Math.round(costs.reduce<number>((n, c) => n + (c as number), 0) * 1e4) / 1e4;
}

/** The bench's last line: `{"sets":[…]}`, each row's fields in the documented order. */
export function jsonLine(rows: readonly ToolSetRow[]): string {
  return JSON.stringify({
    sets: rows.map((r) => ({
      name: r.name,
      tools: r.tools,
      eager_tokens: r.eager_tokens,
      deferred_tokens: r.deferred_tokens,
      replay_cost_eager: r.replay_cost_eager,
      replay_cost_deferred: r.replay_cost_deferred,
    })),
  });
}

/** One set's per-request figures with the estimator's prior calibration (no session learned yet). */
export function requestFigures(set: ToolSet, tokenizer: Tokenizer, k: number) {
  return toolRequestModel(set, tokenizer, initialCalibration(), k);
}

/** The replay's additions for a set on one transcript (its own calibration), eager and deferred. */
export function toolLoads(
  set: ToolSet,
  t: PreparedTranscript,
  k: number,
): { eager: ReplayToolLoad; deferred: ReplayToolLoad } {
  const m = toolRequestModel(set, t.tokenizer, t.calibration, k);
  return {
    eager: { prefixTokens: m.eagerTokens },
    deferred: { prefixTokens: m.searchToolTokens, loadedText: m.loadedText },
  };
}

/** Replays every transcript with each set eager and deferred; the rows and the baseline (no set added). */
export async function measureSets(
  sets: readonly ToolSet[],
  transcripts: readonly PreparedTranscript[],
  opts: { readonly window: number; readonly k: number; readonly summaryLength?: SummaryLengthModel },
  tokenizer: Tokenizer,
): Promise<{ rows: ToolSetRow[]; baseline: number | null }> {
  const run = async (t: PreparedTranscript, toolLoad?: ReplayToolLoad) =>
    totalCost(
      await replay(t, {
        window: opts.window,
        policy: policy('default'),
        ...(opts.summaryLength ? { summaryLength: opts.summaryLength } : {}),
        ...(toolLoad ? { toolLoad } : {}),
      }),
    );
  const baseline: (number | null)[] = [];
  for (const t of transcripts) baseline.push(await run(t));
  const rows: ToolSetRow[] = [];
  for (const set of sets) {
    const eager: (number | null)[] = [];
    const deferred: (number | null)[] = [];
    for (const t of transcripts) {
      const loads = toolLoads(set, t, opts.k);
      eager.push(await run(t, loads.eager));
      deferred.push(await run(t, loads.deferred));
    }
    const f = requestFigures(set, tokenizer, opts.k);
    rows.push({
      name: set.name,
      tools: set.tools.length,
      eager_tokens: f.eagerTokens,
      deferred_tokens: f.deferredTokens,
      replay_cost_eager: sum(eager),
      replay_cost_deferred: sum(deferred),
    });
  }
  return { rows, baseline: sum(baseline) };
}

const usd = (v: number | null) => (v === null ? 'unpriced' : `$${v.toFixed(2)}`);
const pct = (a: number, b: number) => (b === 0 ? '—' : `${((a / b) * 100).toFixed(1)} %`);

/** The table, the assumptions and the target, as printed before the JSON line. */
export function report(
  rows: readonly ToolSetRow[],
  sets: readonly ToolSet[],
  baseline: number | null,
  ctx: {
    readonly tokenizer: Tokenizer;
    readonly k: number;
    readonly window: number;
    readonly files: readonly string[];
  },
): string[] {
  const out: string[] = [];
  const head = [
    'set',
    'tools',
    'plan tok',
    'eager tok',
    'search tok',
    'loaded tok',
    'deferred tok',
    'def/eager',
    'replay eager',
    'replay deferred',
    'Δ eager',
    'Δ deferred',
  ];
  const figures = rows.map((r) => requestFigures(sets.find((s) => s.name === r.name) as ToolSet, ctx.tokenizer, ctx.k));
  const lines = rows.map((r, i) => {
    const f = figures[i] as ReturnType<typeof requestFigures>;
    const delta = (c: number | null) =>
      c === null || baseline === null ? 'unpriced' : `+$${(c - baseline).toFixed(2)}`;
    return [
      r.name,
      String(r.tools),
      String(f.eagerPlan.eagerTokens),
      String(r.eager_tokens),
      String(f.searchToolTokens),
      String(f.loadedTokens),
      String(r.deferred_tokens),
      pct(r.deferred_tokens, r.eager_tokens),
      usd(r.replay_cost_eager),
      usd(r.replay_cost_deferred),
      delta(r.replay_cost_eager),
      delta(r.replay_cost_deferred),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)));
  const fmt = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  out.push(fmt(head), ...lines.map(fmt));
  out.push(
    '',
    `Sets: ${sets.map((s) => `${s.name} (${s.origin})`).join('; ')}.`,
    `Tokens: the core's figures — planToolLoading (src/core/tools/toolLoading.ts) decides what is deferred, toolBudget (src/core/pipeline/toolBudget.ts) counts the planned tools as the budget panel shows them: each definition, named mcp__<server>__<tool>, by toolSchemaRawTokens, calibrated and rounded per tool (${ctx.tokenizer.name}, prior calibration ×${initialCalibration().factor}); replays use each session's learned calibration. "plan tok" = the raw tokens the plan compares with contextPipeline.toolSearch.deferThreshold.`,
    `Deferred: a deferred tool is not in the prompt (SDK ToolSearchToolRegex20251119.defer_loading; ${PROMPT_CACHING_DOC}); counted on every request: the tool search tool ${JSON.stringify(toolSearchTool('regex'))} as the core counts it (toolSearchRawTokens, a short schema) — the server-side definition and instructions it expands into are NOT published, so deferred is understated by that amount.`,
    `Loaded: K = ${ctx.k} tools per search (the docs' "3–5 tools", ${TOOL_SEARCH_DOC}), the set's ${ctx.k} largest since the sessions call none of them; loaded at the session's first tool call, kept in the history (${PROMPT_CACHING_DOC}: definitions appended inline, prefix untouched), loaded again at the next call after a compaction took them. "deferred tok" = search tool + loaded (a request after the first search).`,
    `Replay: ${ctx.files.length} sessions (${ctx.files.join(', ')}) at ${ctx.window} tokens, default policy, priced as replay-all prices them; without any set: ${usd(baseline)}. Δ = cost over that.`,
  );
  const all = rows.find((r) => r.name === ALL_SERVERS);
  if (all) {
    const share = all.eager_tokens === 0 ? 0 : all.deferred_tokens / all.eager_tokens;
    out.push(
      `Target (issue 32): deferred ≤ ${TARGET_SHARE * 100} % of eager for the ${all.tools}-tool set: ${(share * 100).toFixed(1)} % — ${share <= TARGET_SHARE ? 'met' : 'NOT met'} (per-request tokens; the unpublished search-tool definition not counted).`,
    );
  }
  out.push(
    '',
    'Defer threshold candidates (each set alone as the session\'s MCP tools; "saves" = eager − deferred tokens per request, and the replay cost eager − deferred summed over the sessions; negative: deferring costs more):',
    ...thresholdLines(
      rows.map((r, i) => ({
        ...r,
        searchToolTokens: (figures[i] as ReturnType<typeof requestFigures>).searchToolTokens,
      })),
      sets,
      ctx.tokenizer,
    ),
  );
  return out;
}

/** Runs the bench; returns the exit code. */
export async function runTools(args: readonly string[]): Promise<number> {
  const parsed = parseToolsArgs(args);
  if ('error' in parsed) {
    process.stderr.write(`${parsed.error}\nusage: npm run bench -- tools [--window N] [--k N] [--sets DIR] [dir…]\n`);
    return 2;
  }
  const sets = toolSets(readCapturedSets(parsed.setsDir));
  if (sets.length === 0) {
    process.stderr.write(`no tool sets in ${parsed.setsDir} (npm run capture-mcp-tools)\n`);
    return 1;
  }
  const files = transcriptFiles(parsed.dirs);
  const tokenizer = createTiktokenTokenizer();
  const read = files.flatMap((file) => {
    const events = readTranscript(file, new Map(), new Map());
    const empty = nothingToReplay(events, file);
    if (empty) process.stderr.write(`SKIPPED ${file}: ${empty}\n`);
    return empty ? [] : [{ file, events }];
  });
  if (read.length === 0) {
    process.stderr.write(`no transcript to replay in ${parsed.dirs.join(', ')}\n`);
    return 1;
  }
  // The one summary length rule of every bench (summaryLength.ts), not one fitted to the folder.
  const summaryLength = SUMMARY_LENGTH;
  const transcripts = read.map((t) => prepareTranscript(t.file, t.events, tokenizer));
  const started = performance.now();
  const { rows, baseline } = await measureSets(sets, transcripts, { ...parsed, summaryLength }, tokenizer);
  process.stderr.write(
    `${(sets.length * 2 + 1) * transcripts.length} replays in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
  );
  for (const line of report(rows, sets, baseline, {
    tokenizer,
    k: parsed.k,
    window: parsed.window,
    files: read.map((t) => t.file),
  }))
    console.log(line);
  console.log(jsonLine(rows));
  return read.length === files.length ? 0 : 1;
}
