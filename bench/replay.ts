/**
 * `npm run bench -- replay <transcript.jsonl> --window 200000 [--baseline]`: replays a real
 * transcript through the whole pipeline — compaction layers, cache anchors, serialization —
 * with a scripted summariser, and prints when it compacted (layer, tokens before → after),
 * peak utilisation, tokens sent, simulated prompt-cache reads/writes and cost with real prices,
 * and whether any request would have exceeded the window. Token counts are the calibrated
 * estimate, with the calibration learned from the transcript's real usage (pass 1). The cache
 * is the fake API's simulation, fed those token counts. `--baseline`: no cheap layers; at 85 %
 * summarise everything but the last turns.
 */
import { appendFileSync } from 'node:fs';
import type { Usage } from '../src/core/agentPorts';
import { requestCostUsd } from '../src/core/agent/cost';
import { Compactor } from '../src/core/compaction/compactor';
import { DEFAULT_COMPACTION_SETTINGS, effectiveWindow } from '../src/core/compaction/policy';
import type { CompactionRecord } from '../src/core/compaction/types';
import { resolveConfig } from '../src/core/config';
import { buildLedger } from '../src/core/ledger';
import type { ConversationState, Message } from '../src/core/model';
import { prepareRequest } from '../src/core/pipeline';
import { counterIds } from '../src/core/ports';
import { messageRawTokens } from '../src/core/tokens/blockTokens';
import { applyCalibration } from '../src/core/tokens/calibration';
import { TokenEstimator } from '../src/core/tokens/estimator';
import { createTiktokenTokenizer } from '../src/core/tokens/tiktoken';
import { layoutPrompt } from '../test/fake-anthropic/promptLayout';
import { PromptCache } from '../test/fake-anthropic/promptCache';
import { validateRequest } from '../test/fake-anthropic/validateRequest';
import { ScriptedSummariser } from './scriptedSummariser';
import { readTranscript } from './transcript';

/** Seconds between two requests of the replay (keeps the 5-minute cache warm, as in an agent loop). */
const REQUEST_GAP_MS = 20_000;

/** Runs the replay; returns the exit code. */
export async function runReplay(args: readonly string[]): Promise<number> {
  const file = args.find((a) => !a.startsWith('--') && args[args.indexOf(a) - 1] !== '--window');
  const windowArg = args.indexOf('--window');
  const window = windowArg >= 0 ? Number(args[windowArg + 1]) : 200_000;
  const baseline = args.includes('--baseline');
  if (!file || !Number.isFinite(window)) {
    process.stderr.write('usage: npm run bench -- replay <transcript.jsonl> [--window N] [--baseline]\n');
    return 2;
  }
  const resolved = resolveConfig({ contextWindow: window });
  if (!resolved.ok) throw new Error(resolved.error);
  const config = resolved.config;
  const tokenizer = createTiktokenTokenizer();
  const events = readTranscript(file);

  // Pass 1: learn the calibration and the unseen overhead (system prompt + tools) from the real usage.
  const learner = new TokenEstimator(tokenizer);
  let seen: Message[] = [];
  let overhead = 0;
  for (const e of events) {
    if (e.kind === 'message') seen = appendMerged(seen, e.message);
    else if (e.kind === 'usage' && e.usage) overhead = overhead || learner.observe({ system: [], tools: [], messages: seen }, e.usage).overhead;
  }
  const cal = learner.calibration;
  const tokensOf = (m: Message) => applyCalibration(cal, messageRawTokens(m, tokenizer));
  const measure = (s: ConversationState) => overhead + s.messages.reduce((n, m) => n + tokensOf(m), 0);

  // Pass 2: the pipeline, request by request.
  let now = Date.parse('2026-11-21T09:00:00Z');
  const clock = { now: () => now };
  const ids = counterIds('r');
  const summariser = new ScriptedSummariser();
  const compactor = new Compactor({ summariser, clock, ids, tokensOf, measure, settings: () => DEFAULT_COMPACTION_SETTINGS, timeout: () => new Promise(() => undefined) });
  const cache = new PromptCache(clock.now);
  const eff = effectiveWindow(config);
  let state: ConversationState = { system: [], tools: [], messages: [], pending: [], config };
  let previous: ReturnType<typeof prepareRequest>['lastBreakpoint'];
  let lastRequestAt: number | undefined;
  const totals = { requests: 0, compactions: 0, overflows: 0, invalid: 0, input: 0, read: 0, write: 0, output: 0, cost: 0, summariserCost: 0, peak: 0 };
  const log: string[] = [];
  const signal = new AbortController().signal;
  for (const e of events) {
    if (e.kind === 'message') {
      state = { ...state, messages: appendMerged(state.messages, e.message) };
      continue;
    }
    if (e.kind !== 'usage' || !e.usage) continue;
    totals.requests++;
    let records: readonly CompactionRecord[] = [];
    if (baseline) {
      if (measure(state) / eff >= 0.85) {
        const run = await compactor.compact(state, { trigger: 'auto-hard', tokensToFree: 'all', signal });
        state = run.state;
        records = run.records;
      }
    } else {
      const run = await compactor.beforeRequest(state, { ...(lastRequestAt !== undefined ? { lastRequestAt } : {}), signal });
      state = run.state;
      records = run.records;
    }
    for (const r of records) {
      totals.compactions++;
      totals.summariserCost += r.costUsd;
      log.push(`  request ${String(totals.requests).padStart(3)}: ${r.layer.padEnd(14)} ${r.trigger.padEnd(9)} ${fmt(r.tokensBefore)} → ${fmt(r.tokensAfter)} tokens${r.fallbacks.length ? ` (${r.fallbacks.join('; ')})` : ''}`);
    }
    const tokens = measure(state);
    totals.peak = Math.max(totals.peak, tokens / eff);
    if (tokens + config.outputReserve > config.contextWindow) totals.overflows++;
    // count gets the normalized state: per-message tokens must index its messages, as the anchors do.
    const prepared = prepareRequest(state, { count: (sent) => ({ tools: 0, system: 0, messages: sent.messages.map(tokensOf), total: tokens, anchored: false }), clock, ...(previous ? { previous } : {}) });
    previous = prepared.lastBreakpoint;
    const usage = simulateUsage(prepared.params, prepared.sent, prepared.anchors, tokenizer, cal, overhead, cache, e.usage.output_tokens, () => totals.invalid++);
    totals.input += usage.input_tokens;
    totals.read += usage.cache_read_input_tokens;
    totals.write += usage.cache_creation_input_tokens;
    totals.output += usage.output_tokens;
    totals.cost += requestCostUsd(config.model, usage, config.cacheTtl);
    lastRequestAt = now;
    now += REQUEST_GAP_MS;
  }
  printReport(file, window, baseline, totals, log, summariser.calls);
  return 0;
}

/** Appends a message, merging it into the last one when both have the same role (the fixture has one such wart). */
function appendMerged(messages: readonly Message[], m: Message): Message[] {
  const last = messages.at(-1);
  if (last && last.role === m.role) return [...messages.slice(0, -1), { ...last, blocks: [...last.blocks, ...m.blocks] }];
  return [...messages, m];
}

/** Cache usage of one request: the fake API's prefix cache, fed the calibrated per-block tokens. */
function simulateUsage(params: ReturnType<typeof prepareRequest>['params'], state: ConversationState, anchors: Parameters<typeof buildLedger>[1], tokenizer: ReturnType<typeof createTiktokenTokenizer>, cal: TokenEstimator['calibration'], overhead: number, cache: PromptCache, output: number, invalid: () => void): Usage {
  let req;
  try {
    req = validateRequest(JSON.parse(JSON.stringify(params)), 'messages');
  } catch {
    invalid();
    return { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  }
  const layout = layoutPrompt(req);
  const ledger = buildLedger(state, anchors, tokenizer, cal);
  const blocks = layout.blocks.map((b, i) => ({ ...b, tokens: (ledger[i]?.tokens ?? b.tokens) + (i === 0 ? overhead : 0) }));
  const u = cache.process(params.model, { blocks, totalTokens: blocks.reduce((n, b) => n + b.tokens, 0) }, 1024);
  return { input_tokens: u.input_tokens, output_tokens: output, cache_read_input_tokens: u.cache_read_input_tokens, cache_creation_input_tokens: u.cache_creation_input_tokens };
}

function printReport(file: string, window: number, baseline: boolean, t: { requests: number; compactions: number; overflows: number; invalid: number; input: number; read: number; write: number; output: number; cost: number; summariserCost: number; peak: number }, log: string[], summariserCalls: number): void {
  console.log(`Replay of ${file} with a ${fmt(window)}-token window${baseline ? ' — BASELINE: summarise everything but the last turns at 85 %' : ' — the layered pipeline'}`);
  console.log(`Compactions (${t.compactions}):`);
  for (const l of log) console.log(l);
  const sent = t.input + t.read + t.write;
  console.log(`requests ${t.requests} · peak utilisation ${(t.peak * 100).toFixed(1)} % · overflows ${t.overflows} · invalid requests ${t.invalid}`);
  console.log(`prompt tokens sent ${fmt(sent)} (uncached input ${fmt(t.input)}, cache reads ${fmt(t.read)}, cache writes ${fmt(t.write)}; hit rate ${sent ? ((100 * t.read) / sent).toFixed(1) : 0} %) · output ${fmt(t.output)}`);
  console.log(`cost $${t.cost.toFixed(2)} for the model + $${t.summariserCost.toFixed(4)} for the summariser (${summariserCalls} calls)`);
  const json = { requests: t.requests, compactions: t.compactions, max_utilisation: round(t.peak), overflows: t.overflows, invalid_requests: t.invalid, input_tokens: t.input, cache_read_tokens: t.read, cache_write_tokens: t.write, output_tokens: t.output, cost_usd: round(t.cost + t.summariserCost), summariser_cost_usd: round(t.summariserCost) };
  if (process.env.REPLAY_JSON) appendFileSync(process.env.REPLAY_JSON, `${JSON.stringify(json)}\n`);
  console.log(JSON.stringify(json));
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
