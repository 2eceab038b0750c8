/**
 * `npm run bench -- estimate <transcript.jsonl> [--encoding cl100k_base|o200k_base]`
 *
 * Replays a transcript and, for every request with reported usage, predicts the prompt
 * size before it is "sent", with several methods, then shows each method the report (as the
 * live extension would). Prints a table of the absolute error against the reported figure
 * (percent of the reported prompt), then, as its last line, one JSON object
 * {"chars4":{median,p95,max,n,under},"tiktoken":{…},"anchored":{…},…}.
 *
 * The transcript has no system prompt or tools (a constant the API reported but the file
 * does not hold), so every method learns it as an overhead; the very first request is a cold
 * estimate for all methods: included in `stats`, and reported on its own (`first`, with
 * `afterFirst` the statistics without it). Its error (90–99 % on the fixtures) measures the
 * missing system prompt and tools, not the estimator: live, the extension counts its own system
 * prompt and tools, and count_tokens gives the first request's exact size (issue 12 §2).
 * The estimator is told each request's model, so it starts from that model's tokenizer prior.
 */
import type { Message } from '../src/core/conversation/conversationModel';
import type { Tokenizer } from '../src/core/platform/platformPorts';
import { messageRawTokens } from '../src/core/tokens/blockTokens';
import { modelInfo } from '../src/core/models/modelFacts';
import { priorFactorFor } from '../src/core/tokens/calibration';
import { calibratedMessageTokens } from '../src/core/tokens/calibratedTokens';
import { chars4Tokenizer } from '../src/core/tokens/chars4';
import { type EstimatorOptions, type PromptRequest, TokenEstimator } from '../src/core/tokens/estimator';
import { reportedPromptTokens } from '../src/core/tokens/promptTokens';
import { createTiktokenTokenizer } from '../src/core/tokens/tiktoken';
import { parseTranscript } from './transcript';
import { readFileSync } from 'node:fs';

/** Error statistics of one method, in percent of the reported prompt size. */
export interface ErrorStats {
  readonly median: number;
  readonly p95: number;
  readonly max: number;
  /** Requests predicted. */
  readonly n: number;
  /** How many predictions were below the reported figure. */
  readonly under: number;
}

/** One method's result. */
export interface MethodResult {
  readonly key: string;
  readonly label: string;
  readonly description: string;
  readonly stats: ErrorStats;
  /** Signed % error of the first request (the cold one), on its own. */
  readonly first: number;
  /** `stats` without the first request. */
  readonly afterFirst: ErrorStats;
}

/** Something that predicts a prompt's size and learns from the report. */
interface Predictor {
  /** The model the next request goes to (optional: only the estimator uses it). */
  useModel?(model: string): void;
  predict(request: PromptRequest): number;
  observe(request: PromptRequest, reported: number): void;
}

/** Sum of raw counts of every message, plus an overhead learned once from the first report. */
function unanchored(tokenizer: Tokenizer): Predictor {
  let overhead: number | undefined;
  const count = (r: PromptRequest): number =>
    r.messages.reduce((s, m) => {
      const t = messageRawTokens(m, tokenizer);
      return s + t.text + t.fixed;
    }, 0);
  return {
    predict: (r) => (overhead ?? 0) + count(r),
    observe: (r, reported) => {
      overhead ??= reported - count(r);
    },
  };
}

/**
 * The estimator. `noMargin`: without its safety margin. `uncalibrated`: factor pinned at 1
 * (it never accepts a sample) and no margin, i.e. anchor + raw count of what was added.
 */
function anchoredPredictor(tokenizer: Tokenizer, mode: 'anchored' | 'noMargin' | 'uncalibrated'): Predictor {
  const options: EstimatorOptions =
    mode === 'anchored'
      ? {}
      : mode === 'noMargin'
        ? { safetyMargin: 0 }
        : { safetyMargin: 0, calibration: { priorFactor: 1, minSampleTokens: Infinity } };
  const est = new TokenEstimator(tokenizer, options);
  return {
    useModel: (model) => {
      if (mode !== 'uncalibrated') est.useModel(model, priorFactorFor(modelInfo(model).tokenizer));
    },
    predict: (r) => est.estimate(r).tokens,
    observe: (r, reported) => {
      est.observe(r, { input_tokens: reported });
    },
  };
}

/**
 * All messages × the factor the estimator learned, + an overhead learned once from the first
 * report, no margin: what calibration alone achieves without anchoring. (The estimator's own
 * `estimateFull` re-learns its overhead at every report, which amounts to anchoring.)
 */
function calibratedUnanchored(tokenizer: Tokenizer): Predictor {
  const est = new TokenEstimator(tokenizer);
  let overhead: number | undefined;
  const count = (r: PromptRequest): number =>
    r.messages.reduce((s, m) => s + calibratedMessageTokens(m, tokenizer, est.calibration), 0);
  return {
    predict: (r) => Math.ceil((overhead ?? 0) + count(r)),
    observe: (r, reported) => {
      overhead ??= reported - count(r);
      est.observe(r, { input_tokens: reported });
    },
  };
}

/** Percentile (nearest rank) of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
}

function stats(signedErrors: readonly number[]): ErrorStats {
  const abs = signedErrors.map(Math.abs).sort((a, b) => a - b);
  const r = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    median: r(percentile(abs, 0.5)),
    p95: r(percentile(abs, 0.95)),
    max: r(percentile(abs, 1)),
    n: abs.length,
    under: signedErrors.filter((e) => e < 0).length,
  };
}

/** Replays `text` (a transcript) with each predictor over a fresh parse; returns signed % errors. */
function replay(text: string, source: string, predictors: readonly Predictor[]): number[][] {
  const errors = predictors.map((): number[] => []);
  let history: Message[] = [];
  for (const ev of parseTranscript(text, source)) {
    if (ev.kind === 'message') history.push(ev.message);
    else if (ev.kind === 'compaction') history = [ev.message];
    else if (ev.usage) {
      const reported = reportedPromptTokens(ev.usage);
      // A fresh array per request: the estimator keeps it as its anchor.
      const request: PromptRequest = { system: [], tools: [], messages: history.slice() };
      predictors.forEach((p, i) => {
        p.useModel?.(ev.model);
        errors[i]?.push(((p.predict(request) - reported) / reported) * 100);
        p.observe(request, reported);
      });
    }
  }
  return errors;
}

/** The replay's results and timings. */
export interface EstimateBenchResult {
  readonly encoding: string;
  readonly methods: readonly MethodResult[];
  readonly tokenizerLoadMs: number;
  readonly replayMs: number;
}

/**
 * Runs the estimate replay on transcript text with the tiktoken tokenizer `makeTokenizer`
 * makes (default cl100k_base; its construction is timed). Each tokenizer gets its own parse,
 * since counts are memoised on the blocks.
 */
export function estimateBench(
  text: string,
  source = 'transcript',
  makeTokenizer: () => Tokenizer = () => createTiktokenTokenizer(),
): EstimateBenchResult {
  const t0 = performance.now();
  const tk = makeTokenizer();
  const t1 = performance.now();
  const [chars4 = []] = replay(text, source, [unanchored(chars4Tokenizer)]);
  const [plain = [], anchored = [], noMargin = [], full = [], uncal = []] = replay(text, source, [
    unanchored(tk),
    anchoredPredictor(tk, 'anchored'),
    anchoredPredictor(tk, 'noMargin'),
    calibratedUnanchored(tk),
    anchoredPredictor(tk, 'uncalibrated'),
  ]);
  const t2 = performance.now();
  const method = (key: string, label: string, description: string, errors: readonly number[]): MethodResult => ({
    key,
    label,
    description,
    stats: stats(errors),
    first: Math.round((errors[0] ?? 0) * 1000) / 1000,
    afterFirst: stats(errors.slice(1)),
  });
  const methods: MethodResult[] = [
    method(
      'chars4',
      'chars/4',
      'ceil(chars/4) of every block + framing, all messages, + overhead from 1st report',
      chars4,
    ),
    method(
      'tiktoken',
      `tiktoken ${tk.name}`,
      'tiktoken of every block + framing, all messages, + overhead from 1st report',
      plain,
    ),
    method(
      'anchored',
      'anchored+calibrated',
      'last reported prompt + tiktoken of what was added since × learned factor, + margin (2× learned spread) on that part',
      anchored,
    ),
    method(
      'anchoredNoMargin',
      'anchored+calibrated, no margin',
      'the same without the safety margin (unbiased)',
      noMargin,
    ),
    method(
      'calibratedFull',
      'calibrated, unanchored',
      'tiktoken of all messages × learned factor + overhead from 1st report (no anchor, no margin)',
      full,
    ),
    method(
      'anchoredUncalibrated',
      'anchored, factor 1',
      'last reported prompt + raw tiktoken of what was added (no calibration, no margin)',
      uncal,
    ),
  ];
  return { encoding: tk.name, methods, tokenizerLoadMs: t1 - t0, replayMs: t2 - t1 };
}

function pad(s: string, n: number, right = false): string {
  return right ? s.padStart(n) : s.padEnd(n);
}

/** Formats the table and the final JSON line. */
export function formatEstimateBench(r: EstimateBenchResult): string {
  const rows = r.methods.map((m) => [
    m.label,
    m.description,
    m.stats.median.toFixed(3),
    m.stats.p95.toFixed(3),
    m.stats.max.toFixed(2),
    String(m.stats.under),
    String(m.stats.n),
    m.first.toFixed(2),
    m.afterFirst.median.toFixed(3),
    m.afterFirst.p95.toFixed(3),
    m.afterFirst.max.toFixed(2),
  ]);
  const head = [
    'method',
    'what it does',
    'median %',
    'p95 %',
    'max %',
    'under',
    'n',
    '1st req %',
    'rest median %',
    'rest p95 %',
    'rest max %',
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => pad(c, widths[i] ?? 0, i >= 2)).join('  ');
  const json: Record<string, ErrorStats> = {};
  for (const m of r.methods) json[m.key] = m.stats;
  const first: Record<string, { first: number; afterFirst: ErrorStats }> = {};
  for (const m of r.methods) first[m.key] = { first: m.first, afterFirst: m.afterFirst };
  return [
    `Prompt-size estimates vs reported usage (error = |estimate − reported| / reported; "under": estimates below the report).`,
    `Tokenizer ${r.encoding}, loaded in ${r.tokenizerLoadMs.toFixed(0)} ms; replay ${r.replayMs.toFixed(0)} ms. The first request of each method is a cold estimate (overhead unknown).`,
    `"1st req %" is the signed error of that first request alone: the transcript holds no system prompt or tools, so no method can see what the API counted for them (live, the extension counts its own and asks count_tokens for the exact size). "rest …" are the statistics without it.`,
    '',
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    JSON.stringify({ firstRequest: first }),
    JSON.stringify(json),
  ].join('\n');
}

/** CLI entry: `estimate <transcript.jsonl> [--encoding cl100k_base|o200k_base]`. Returns the exit code. */
export async function runEstimate(args: readonly string[]): Promise<number> {
  const files = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--encoding');
  const encIndex = args.indexOf('--encoding');
  const encoding = encIndex >= 0 ? args[encIndex + 1] : 'cl100k_base';
  if (files.length !== 1 || (encoding !== 'cl100k_base' && encoding !== 'o200k_base')) {
    process.stderr.write('usage: npm run bench -- estimate <transcript.jsonl> [--encoding cl100k_base|o200k_base]\n');
    return 2;
  }
  const file = files[0] ?? '';
  let makeTokenizer: (() => Tokenizer) | undefined;
  if (encoding === 'o200k_base') {
    const { default: ranks } = await import('js-tiktoken/ranks/o200k_base');
    makeTokenizer = () => createTiktokenTokenizer({ name: 'o200k_base', ranks });
  }
  const result = estimateBench(readFileSync(file, 'utf8'), file, makeTokenizer);
  process.stdout.write(formatEstimateBench(result) + '\n');
  return 0;
}
