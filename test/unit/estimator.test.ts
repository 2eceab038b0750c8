import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '../../src/core/conversation/conversationModel';
import { calibrate, initialCalibration } from '../../src/core/tokens/calibration';
import { type PromptRequest, TokenEstimator, TOOL_USE_PREAMBLE_TOKENS } from '../../src/core/tokens/estimator';
import { estimateBench } from '../../bench/estimate';
import { countingTokenizer, fakeApi, mk, rng, words } from './support/tokenFakes';

const req = (messages: readonly Message[]): PromptRequest => ({ system: [], tools: [], messages: messages.slice() });

/** One assistant + user exchange of roughly `n` words. */
function exchange(n: number, seed: number): Message[] {
  return [
    mk.message('assistant', [mk.text(words(Math.ceil(n / 4), seed)), mk.toolUse('read', { path: `f${seed}.ts` })]),
    mk.message('user', [mk.toolResult(words(n, seed + 1))]),
  ];
}

describe('calibration', () => {
  it('starts at the prior and converges on a known factor', () => {
    let c = initialCalibration();
    assert.equal(c.factor, 1.2);
    for (let i = 0; i < 60; i++) c = calibrate(c, 500, 500 * 1.5);
    assert.ok(Math.abs(c.factor - 1.5) < 0.01, String(c.factor));
  });

  it('rejects outliers and ignores tiny samples', () => {
    let c = initialCalibration();
    c = calibrate(c, 5, 500);
    assert.equal(c.accepted + c.rejected, 0, 'too small to learn from');
    c = calibrate(c, 100, -800);
    assert.equal(c.rejected, 1);
    assert.equal(c.factor, 1.2);
    c = calibrate(c, -1000, -1300); // removal: same ratio, sign-normalised
    assert.equal(c.accepted, 1);
    assert.ok(c.factor > 1.2);
  });
});

describe('TokenEstimator', () => {
  it('calibration converges on a synthetic tokenizer with a known factor', () => {
    const tk = countingTokenizer();
    const api = fakeApi(1.37, 1500);
    const est = new TokenEstimator(tk);
    const history: Message[] = [mk.message('user', [mk.text(words(30))])];
    for (let k = 0; k < 80; k++) {
      est.observe(req(history), { input_tokens: api(history) });
      history.push(...exchange(200 + ((k * 37) % 300), k));
    }
    assert.ok(Math.abs(est.calibration.factor - 1.37) < 0.01, String(est.calibration.factor));
    const e = est.estimate(req(history));
    const truth = api(history);
    assert.equal(e.mode, 'anchored');
    assert.ok(e.tokens >= truth && e.tokens - truth <= 0.05 * truth, `${e.tokens} vs ${truth}`);
  });

  it('is cold before any report, then learns the overhead (system + tools it cannot see)', () => {
    const tk = countingTokenizer();
    const api = fakeApi(1.2, 1600);
    const est = new TokenEstimator(tk);
    const h: Message[] = [mk.message('user', [mk.text(words(50))])];
    const cold = est.estimate(req(h));
    assert.equal(cold.mode, 'cold');
    assert.equal(cold.anchored, false);
    assert.ok(cold.tokens < api(h), 'honest: the unseen overhead is unknowable before the first report');
    const withTools = est.estimate({
      system: [],
      tools: [{ name: 't', description: 'd', inputSchema: { type: 'object' } }],
      messages: h,
    });
    assert.ok(withTools.breakdown.overheadTokens === TOOL_USE_PREAMBLE_TOKENS);
    const o = est.observe(req(h), {
      input_tokens: 10,
      cache_read_input_tokens: api(h) - 10,
      cache_creation_input_tokens: 0,
    });
    assert.equal(o.reported, api(h));
    assert.ok(Math.abs(o.overhead - 1600) < 30, String(o.overhead));
    assert.equal(est.estimate(req(h)).tokens, api(h), 'nothing added since the report: exactly the report');
  });

  it('counts only what was added: the cost per turn does not grow with history', () => {
    const tk = countingTokenizer();
    const api = fakeApi(1.2, 1000);
    const est = new TokenEstimator(tk);
    const h: Message[] = [mk.message('user', [mk.text('start')])];
    const callsPerTurn: number[] = [];
    for (let k = 0; k < 400; k++) {
      const before = tk.calls;
      est.estimate(req(h));
      est.observe(req(h), { input_tokens: api(h) });
      callsPerTurn.push(tk.calls - before);
      h.push(...exchange(50, k));
    }
    assert.ok(
      callsPerTurn.slice(1).every((c) => c === 3),
      `each turn tokenises exactly its 3 new blocks: ${[...new Set(callsPerTurn)]}`,
    );
    const blocks = h.reduce((s, m) => s + m.blocks.length, 0);
    est.estimate(req(h));
    assert.equal(tk.calls, blocks, 'every block tokenised exactly once over the whole session');
  });

  it('re-anchors after a prefix change (compaction) and anchors again on the next report', () => {
    const tk = countingTokenizer();
    const api = fakeApi(1.3, 1200);
    const est = new TokenEstimator(tk);
    let h: Message[] = [mk.message('user', [mk.text(words(40))])];
    for (let k = 0; k < 40; k++) {
      est.observe(req(h), { input_tokens: api(h) });
      h.push(...exchange(300, k));
    }
    est.observe(req(h), { input_tokens: api(h) });
    // Compaction: the oldest 60 messages become one summary; the rest are kept.
    const summary = mk.message('user', [
      { type: 'summary', text: words(400), compactionId: 'c1', turnRange: [1, 30], meta: mk.text('').meta },
    ]);
    h = [summary, ...h.slice(61)];
    const e = est.estimate(req(h));
    const truth = api(h);
    assert.ok(e.mode === 'rebased' || e.mode === 'full', e.mode);
    assert.ok(e.tokens >= truth, `over rather than under: ${e.tokens} vs ${truth}`);
    assert.ok((e.tokens - truth) / truth < 0.08, `${e.tokens} vs ${truth}`);
    est.observe(req(h), { input_tokens: truth });
    h.push(...exchange(300, 99));
    const next = est.estimate(req(h));
    assert.equal(next.mode, 'anchored');
    assert.equal(next.breakdown.anchorTokens, truth);
    assert.ok(next.tokens >= api(h) && (next.tokens - api(h)) / api(h) < 0.01);
  });

  it('a small edit of a recent message rebases; replacing almost everything recounts', () => {
    const tk = countingTokenizer();
    const api = fakeApi(1.2, 500);
    const est = new TokenEstimator(tk);
    const h: Message[] = [mk.message('user', [mk.text(words(40))])];
    for (let k = 0; k < 20; k++) h.push(...exchange(300, k));
    est.observe(req(h), { input_tokens: api(h) });
    const edited = [...h.slice(0, -1), mk.message('user', [mk.toolResult(words(10))])];
    assert.equal(est.estimate(req(edited)).mode, 'rebased');
    const replaced = [mk.message('user', [mk.text(words(20))])];
    const full = est.estimate(req(replaced));
    assert.equal(full.mode, 'full');
    assert.ok(full.tokens >= api(replaced));
  });

  it('is biased to over-estimate under noisy deltas', () => {
    const tk = countingTokenizer();
    const r = rng(42);
    const api = fakeApi(1.25, 1500, () => (r() - 0.5) * 0.3); // ±15 % per message
    const est = new TokenEstimator(tk);
    const h: Message[] = [mk.message('user', [mk.text(words(30))])];
    let over = 0;
    const errors: number[] = [];
    for (let k = 0; k < 200; k++) {
      if (k > 0) {
        const e = est.estimate(req(h)).tokens;
        const truth = api(h);
        if (e >= truth) over++;
        errors.push(Math.abs(e - truth) / truth);
      }
      est.observe(req(h), { input_tokens: api(h) });
      h.push(...exchange(100 + Math.floor(r() * 400), k));
    }
    const n = errors.length;
    assert.ok(over / n >= 0.8, `over-estimated ${over}/${n}`);
    errors.sort((a, b) => a - b);
    assert.ok((errors[Math.floor(n * 0.95)] ?? 1) < 0.03, 'but stays accurate');
    const unbiased = new TokenEstimator(countingTokenizer(), { safetyMargin: 0 });
    assert.ok(unbiased.margin === 0 && est.margin >= 0.03);
  });
});

describe('estimate bench on the real fixture', () => {
  it('the anchored estimator reaches median ≤ 0.5 % and p95 ≤ 2 %, far better than chars/4 and plain tiktoken', function () {
    this.timeout(60_000);
    const file = join(__dirname, '..', 'fixtures', 'real-session-sonnet45.transcript.jsonl');
    const r = estimateBench(readFileSync(file, 'utf8'), file);
    const by = Object.fromEntries(r.methods.map((m) => [m.key, m.stats]));
    const anchored = by.anchored;
    assert.ok(anchored && by.chars4 && by.tiktoken);
    assert.equal(anchored.n, 431, 'every usage record, the cold first one included');
    assert.ok(anchored.median <= 0.5, `median ${anchored.median}`);
    assert.ok(anchored.p95 <= 2, `p95 ${anchored.p95}`);
    assert.ok(anchored.under <= anchored.n * 0.15, `under-estimates: ${anchored.under}`);
    assert.ok(by.chars4.median > 5 * anchored.median && by.tiktoken.median > 5 * anchored.median);
  });
});
