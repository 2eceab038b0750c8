/**
 * `npm run bench -- pipeline`: the per-turn cost of the pipeline (assemble + estimate +
 * cache anchors + serialize) at 10k, 100k and 1M tokens of history (and at 1M on a model that
 * checks the prefix of thinking, with thinking in every answer), next to the floor of
 * JSON.stringify of the same request. Estimation is incremental, so its cost must not grow
 * with history; the whole turn must stay within 3× of the floor at 1M tokens.
 */
import { performance } from 'node:perf_hooks';
import { applyUserMessage, assembleUserMessage } from '../src/core/conversation/assemble';
import { appendAssistantMessage } from '../src/core/conversation/assistant';
import { resolveConfig } from '../src/core/pipeline/config';
import type { ConversationState } from '../src/core/conversation/conversationModel';
import { prepareRequest } from '../src/core/pipeline/pipeline';
import { bindThinking, requestPrefixDigest } from '../src/core/pipeline/thinkingBinding';
import { counterIds } from '../src/core/platform/platformPorts';
import { makeRequestCounter } from '../src/core/tokens/requestTokens';
import { agentSystemPrompt } from '../src/core/projectContext/staticPrompt';
import { TokenEstimator } from '../src/core/tokens/estimator';
import { createTiktokenTokenizer } from '../src/core/tokens/tiktoken';
import { codeText, growTo, prng } from './syntheticHistory';

/** Figures for one history size, in milliseconds (medians). */
export interface CostRow {
  /** `plain`, or `thinking`: Claude Fable 5.1 with signed thinking in every answer, bound as the turn loop binds it. */
  readonly scenario: 'plain' | 'thinking';
  readonly historyTokens: number;
  readonly messages: number;
  readonly assembleMs: number;
  readonly estimateMs: number;
  readonly pipelineMs: number;
  readonly stringifyMs: number;
  readonly ratio: number;
  /** Characters handed to the tokenizer during the turn: only the new turn's, at any history size. */
  readonly charsTokenised: number;
}

/** The plain scenario at every size, then the thinking one at the largest (its thinking-prefix check walks the history). */
const RUNS: readonly { readonly size: number; readonly scenario: CostRow['scenario'] }[] = [
  { size: 10_000, scenario: 'plain' },
  { size: 100_000, scenario: 'plain' },
  { size: 1_000_000, scenario: 'plain' },
  { size: 1_000_000, scenario: 'thinking' },
];
const TURNS = 101;
/** A model that checks the prefix of the thinking sent back (preservedThinking.ts). */
const THINKING_MODEL = 'claude-fable-5-1';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/** Measures the per-turn cost at each size; prints a table and, last, one JSON line. */
export function runPipelineCost(): CostRow[] {
  const plain = resolveConfig({ contextWindow: 2_000_000 });
  const thinking = resolveConfig({ contextWindow: 2_000_000, model: THINKING_MODEL });
  if (!plain.ok) throw new Error(plain.error);
  if (!thinking.ok) throw new Error(thinking.error);
  const inner = createTiktokenTokenizer();
  let charsCounted = 0;
  const tokenizer = { name: inner.name, count: (text: string) => ((charsCounted += text.length), inner.count(text)) };
  const rows: CostRow[] = [];
  for (const { size, scenario } of RUNS) {
    const config = scenario === 'plain' ? plain : thinking;
    let t = 1_700_000_000_000;
    const clock = { now: () => (t += 1000) };
    const ids = counterIds(`b${size}`);
    const rand = prng(size);
    const system = agentSystemPrompt({ clock, ids });
    let state: ConversationState = {
      system: [system],
      tools: [],
      messages: [],
      pending: [],
      config: { ...config.config, contextWindow: 4_000_000 },
    };
    state = growTo(state, size, tokenizer, rand, { clock, ids });
    const estimator = new TokenEstimator(tokenizer);
    const count = makeRequestCounter(estimator, tokenizer);
    // Warm up: count the history once and anchor on a "reported" figure, as after a real request.
    estimator.observe(state, { input_tokens: estimator.estimate(state).tokens });
    const a: number[] = [];
    const e: number[] = [];
    const p: number[] = [];
    const j: number[] = [];
    const c: number[] = [];
    let previous: ReturnType<typeof prepareRequest>['lastBreakpoint'];
    for (let i = 0; i < TURNS; i++) {
      const text = `Follow-up ${i}: ${codeText(rand, 3)}`;
      const withContext = { ...state, pending: [{ kind: 'ide_opened_file' as const, path: `src/file${i}.ts` }] };
      charsCounted = 0;
      const t0 = performance.now();
      const assembled = assembleUserMessage(withContext, { userText: text, pasteDirectory: '/bench' }, { clock, ids });
      if (!assembled.ok) throw new Error(assembled.error.message);
      const next = applyUserMessage(withContext, assembled.value);
      const t1 = performance.now();
      const estimate = estimator.estimate(next);
      const t2 = performance.now();
      const prepared = prepareRequest(next, { count, clock, ...(previous ? { previous } : {}) });
      const t3 = performance.now();
      JSON.stringify(prepared.params);
      const t4 = performance.now();
      a.push(t1 - t0);
      e.push(t2 - t1);
      // The whole turn: assemble + (estimate + anchors + serialize inside prepareRequest).
      p.push(t1 - t0 + (t3 - t2));
      j.push(t4 - t3);
      c.push(charsCounted);
      previous = prepared.lastBreakpoint;
      estimator.observe(next, { input_tokens: estimate.tokens });
      const answer = { type: 'text' as const, text: `Answer ${i}.` };
      // Drawn only in the thinking scenario, so the plain one's text (and figures) stay as they were.
      const content =
        scenario === 'plain'
          ? [answer]
          : [
              { type: 'thinking' as const, thinking: `Reasoning ${i}: ${codeText(rand, 2)}`, signature: `sig${i}` },
              answer,
            ];
      const answered = appendAssistantMessage(next, content, { clock, ids });
      if (!answered.ok) throw new Error(answered.error);
      state = answered.state;
      if (scenario === 'thinking') {
        const bound = bindThinking(answered.message, requestPrefixDigest(prepared.sent));
        state = { ...state, messages: [...state.messages.slice(0, -1), bound] };
      }
    }
    const row: CostRow = {
      scenario,
      historyTokens: size,
      messages: state.messages.length,
      assembleMs: median(a),
      estimateMs: median(e),
      pipelineMs: median(p),
      stringifyMs: median(j),
      ratio: median(p) / median(j),
      charsTokenised: median(c),
    };
    rows.push(row);
  }
  const f = (x: number) => x.toFixed(3).padStart(9);
  console.log('Per-turn pipeline cost (median of 101 turns; the new turn is tokenised, history is memoised)');
  console.log(
    `${'history tokens'.padStart(19)} | messages | chars tokenised | assemble ms | estimate ms | whole turn ms | JSON.stringify ms | turn / stringify`,
  );
  for (const r of rows) {
    const label = `${r.scenario === 'thinking' ? '+thinking ' : ''}${r.historyTokens.toLocaleString('en-US')}`;
    console.log(
      `${label.padStart(19)} | ${String(r.messages).padStart(8)} | ${String(r.charsTokenised).padStart(15)} | ${f(r.assembleMs)}   | ${f(r.estimateMs)}   | ${f(r.pipelineMs)}     | ${f(r.stringifyMs)}         | ${r.ratio.toFixed(2)}×`,
    );
  }
  const plainRows = rows.filter((r) => r.scenario === 'plain');
  const small = plainRows[0];
  const large = plainRows.at(-1);
  const thought = rows.find((r) => r.scenario === 'thinking');
  if (small && large) {
    console.log(
      `Tokenised per turn: ${small.charsTokenised} characters at ${small.historyTokens.toLocaleString('en-US')} tokens of history, ${large.charsTokenised} at ${large.historyTokens.toLocaleString('en-US')}: only the new turn is counted.`,
    );
    console.log(
      `Estimate at ${large.historyTokens.toLocaleString('en-US')} vs ${small.historyTokens.toLocaleString('en-US')} tokens: ${(large.estimateMs / small.estimateMs).toFixed(2)}× the time; what grows is one pointer comparison per message (≈10 ns each) to confirm the anchored prefix is unchanged.`,
    );
    console.log(
      `Whole turn at ${large.historyTokens.toLocaleString('en-US')} tokens: ${large.ratio.toFixed(2)}× the JSON.stringify floor (target ≤ 3×).`,
    );
  }
  if (thought)
    console.log(
      `+thinking: ${THINKING_MODEL} with signed thinking in every answer, each request checking the prefix of every thinking block (thinkingBinding.ts): ${thought.pipelineMs.toFixed(3)} ms a turn at ${thought.historyTokens.toLocaleString('en-US')} tokens, ${thought.ratio.toFixed(2)}× the floor.`,
    );
  console.log(
    JSON.stringify(
      Object.fromEntries(
        rows.map((r) => [
          r.scenario === 'plain' ? String(r.historyTokens) : `${r.historyTokens}-thinking`,
          {
            messages: r.messages,
            assemble_ms: round(r.assembleMs),
            estimate_ms: round(r.estimateMs),
            turn_ms: round(r.pipelineMs),
            stringify_ms: round(r.stringifyMs),
            ratio: round(r.ratio),
            chars_tokenised: r.charsTokenised,
          },
        ]),
      ),
    ),
  );
  return rows;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
