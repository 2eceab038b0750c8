import { strict as assert } from 'node:assert';
import { requestCostUsd } from '../../src/core/llm/cost';
import { policy } from '../../bench/policies';
import { priceRequest } from '../../bench/pricing';
import { parseReplayArgs } from '../../bench/replay';
import { prepareTranscript, replay, type ReplayResult } from '../../bench/replayCore';
import { parseTranscript } from '../../bench/transcript';
import { messageRawTokens } from '../../src/core/tokens/blockTokens';
import { rowOf } from '../../bench/replayReport';
import { assistant, at, line, prepare, usage, user, words } from './support/benchTranscripts';
import { countingTokenizer } from './support/tokenFakes';

/** Two requests: a 3 000-word prompt, then a short follow-up `gapMinutes` later. */
function twoRequests(opts: {
  gapMinutes: number;
  secondRead?: number;
  model?: string;
  between?: string[];
  /** Whether the first request reports writing its prompt to the cache (default true). */
  firstWrites?: boolean;
}): string[] {
  const model = opts.model ?? 'claude-sonnet-4-5';
  return [
    user(words(3000)),
    usage({ prompt: 3600, read: 0, write: opts.firstWrites === false ? 0 : 3590, at: at(0), model }),
    assistant('first answer'),
    ...(opts.between ?? []),
    user('second question'),
    usage({ prompt: 3610, read: opts.secondRead ?? 3600, at: at(opts.gapMinutes), model }),
    assistant('second answer'),
  ];
}

const run = (
  lines: readonly string[],
  window = 200_000,
  name: Parameters<typeof policy>[0] = 'default',
): Promise<ReplayResult> => replay(prepare(lines), { window, policy: policy(name) });

describe('bench replay: the real clock and the real cache misses', () => {
  it('reads the prefix from cache within the TTL, and writes it again after a longer gap', async () => {
    const warm = await run(twoRequests({ gapMinutes: 1 }));
    const cold = await run(twoRequests({ gapMinutes: 6 }));
    assert.equal(warm.trace.length, 2);
    assert.ok(
      (warm.trace[1]?.usage.cache_read_input_tokens ?? 0) > 3000,
      'a gap of 1 minute reads the first prompt from cache',
    );
    assert.equal(cold.trace[1]?.usage.cache_read_input_tokens, 0, 'a gap over 5 minutes finds the cache expired');
    assert.ok((cold.trace[1]?.usage.cache_creation_input_tokens ?? 0) > 3000, '…and writes the prefix again');
    assert.equal(
      (cold.trace[1]?.at ?? NaN) - (cold.trace[0]?.at ?? NaN),
      6 * 60_000,
      'the clock follows the usage records',
    );
    assert.equal(cold.flushes, 0);
  });

  it('falls back to 20 s between requests when a usage record has no time', async () => {
    const lines = twoRequests({ gapMinutes: 1 }).map((l) => l.replace(/,"at":"[^"]+"/, ''));
    const r = await run(lines);
    assert.equal(r.trace[1]!.at - r.trace[0]!.at, 20_000);
    assert.ok(r.trace[1]!.usage.cache_read_input_tokens > 0);
  });

  it('flushes the cache where the real session had a full miss (not the first request, not after a compaction)', async () => {
    const miss = await run(twoRequests({ gapMinutes: 1, secondRead: 0 }));
    assert.deepEqual(
      miss.trace.map((t) => t.flushed),
      [false, true],
    );
    assert.equal(miss.flushes, 1);
    assert.equal(miss.trace[1]?.usage.cache_read_input_tokens, 0, 'the flushed prefix is written again');
    assert.ok(miss.trace[1]!.usage.cache_creation_input_tokens > 3000);

    const compacted = await run(
      twoRequests({
        gapMinutes: 1,
        secondRead: 0,
        between: [line({ kind: 'compaction', summary: 'the story so far', tokensBefore: 3600 })],
      }),
    );
    assert.deepEqual(
      compacted.trace.map((t) => t.flushed),
      [false, false],
      'a cold request after the original agent compacted is no miss of ours',
    );
    assert.ok(compacted.trace[1]!.usage.cache_read_input_tokens > 3000);
  });

  it('takes no request for a miss in a session that never used the cache (no breakpoints, or no cache fields)', async () => {
    const uncached = await run(twoRequests({ gapMinutes: 1, secondRead: 0, firstWrites: false }));
    assert.deepEqual(
      uncached.trace.map((t) => t.flushed),
      [false, false],
    );
    assert.equal(uncached.flushes, 0);
    assert.ok(uncached.trace[1]!.usage.cache_read_input_tokens > 3000, 'our requests read what the first one wrote');
    const noFields = twoRequests({ gapMinutes: 1, secondRead: 0, firstWrites: false }).map((l) =>
      l.replace(/"cache_read_input_tokens":0,"cache_creation_input_tokens":0,/, ''),
    );
    assert.ok(noFields.some((l) => l.includes('"usage":{"input_tokens"') && !l.includes('cache_')));
    assert.equal((await run(noFields)).flushes, 0);
  });
});

describe('bench replay: prices, unknown models and refused requests', () => {
  it('prices each request by the model of its usage record (Opus 4.6 at $5/$25, Sonnet at $3/$15)', async () => {
    const sonnet = await run(twoRequests({ gapMinutes: 1 }));
    const opus = await run(twoRequests({ gapMinutes: 1, model: 'claude-opus-4-6' }));
    for (const [r, model] of [
      [sonnet, 'claude-sonnet-4-5'],
      [opus, 'claude-opus-4-6'],
    ] as const) {
      const expected = r.trace.reduce((n, t) => n + (requestCostUsd(model, t.usage) ?? NaN), 0);
      assert.ok(Math.abs((r.cost.total() ?? -1) - expected) < 1e-12, `${model} priced at its own rates`);
      assert.ok(r.trace.every((t) => t.model === model));
    }
    const u = {
      input_tokens: 1_000_000,
      output_tokens: 1_000_000,
      cache_read_input_tokens: 1_000_000,
      cache_creation_input_tokens: 1_000_000,
    };
    assert.deepEqual(priceRequest('claude-opus-4-6', u, '5m'), { known: true, usd: 5 + 25 + 0.5 + 6.25 });
    assert.deepEqual(priceRequest('claude-sonnet-4-5-20250929', u, '5m'), { known: true, usd: 3 + 15 + 0.3 + 3.75 });
  });

  it('reports a model the price table does not know instead of pricing it as Sonnet', async () => {
    const r = await run(twoRequests({ gapMinutes: 1, model: 'claude-future-9' }));
    assert.equal(r.cost.total(), null);
    assert.equal(r.cost.usd, 0, 'nothing priced at another model’s rates');
    assert.deepEqual([...r.cost.unknown], [['claude-future-9', 2]]);
    assert.equal(rowOf(r, 1).cost_usd, null);
    assert.equal(rowOf(r, 1).cost_ratio, null);
  });

  it('sends a request the API would refuse (a dotted tool id) repaired by normalize, so nothing is refused', async () => {
    const lines = [
      user(words(3000)),
      usage({ prompt: 3600, read: 0, at: at(0) }),
      assistant([{ type: 'tool_use', id: 'toolu.1', name: 'read', input: { path: 'a.ts' } }]),
      user([{ type: 'tool_result', tool_use_id: 'toolu.1', content: 'x' }]),
      usage({ prompt: 3650, read: 3600, at: at(1), output: 7 }),
      assistant('done'),
    ];
    const r = await run(lines);
    assert.equal(r.invalidCount, 0, 'normalize rewrote the id in the call and its result');
    assert.equal(rowOf(r, 1).invalid, 0);
    assert.equal(r.trace[1]?.invalid, undefined);
  });
});

describe('bench replay: pass 1 learns from every real report', () => {
  it('calibrates on all the reports (not only the first) and takes the overhead as their median', () => {
    // The API counted exactly one token per word (the tokenizer's count × 1.0, framing included) plus 500 unseen.
    const lines: string[] = [user(words(1000))];
    const tokenizer = countingTokenizer();
    let messages = parseTranscript(lines.join('\n')).flatMap((e) => (e.kind === 'message' ? [e.message] : []));
    const reported = () => 500 + messages.reduce((n, m) => n + messageRawTokens(m, tokenizer).text, 0);
    for (let i = 0; i < 12; i++) {
      lines.push(
        usage({ prompt: reported(), read: 0, at: at(i) }),
        assistant(words(300, `a${i}_`)),
        user(words(300, `u${i}_`)),
      );
      messages = parseTranscript(lines.join('\n')).flatMap((e) => (e.kind === 'message' ? [e.message] : []));
    }
    const p = prepareTranscript('t', parseTranscript(lines.join('\n')), countingTokenizer());
    assert.ok(p.calibration.factor < 1.1, `the factor moved from the prior 1.2 towards 1.0 (${p.calibration.factor})`);
    assert.ok(Math.abs(p.overhead - 500) < 0.1 * 500 + 0.2 * 1000, `overhead ${p.overhead}`);
  });
});

describe('bench replay: arrival guard and arguments', () => {
  it('guards a huge tool result as it arrives: the model sees the preview, nothing is written', async () => {
    const huge = Array.from({ length: 4000 }, (_, i) => `line ${i} of the output`).join('\n');
    const lines = [
      user('run it'),
      usage({ prompt: 100, read: 0, at: at(0) }),
      assistant([{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'make' } }]),
      user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: huge }]),
      usage({ prompt: 30_000, read: 100, at: at(1) }),
      assistant('done'),
    ];
    const r = await run(lines);
    assert.equal(r.guarded, 1);
    assert.ok(
      r.trace[1]!.tokens < 2000,
      `the preview is sent, not the ${huge.length}-character result (${r.trace[1]!.tokens} tokens)`,
    );
  });

  it('parses replay arguments: --policy, --baseline as its alias, and refuses the rest', () => {
    assert.deepEqual(parseReplayArgs(['f.jsonl', '--window', '100000', '--policy', 'claude-code']), {
      ok: true,
      file: 'f.jsonl',
      window: 100_000,
      policy: 'claude-code',
    });
    assert.deepEqual(parseReplayArgs(['--baseline', 'f.jsonl']), {
      ok: true,
      file: 'f.jsonl',
      window: 200_000,
      policy: 'baseline',
    });
    assert.match(
      (parseReplayArgs(['f.jsonl', '--policy', 'greedy']) as { error: string }).error,
      /unknown policy "greedy"/,
    );
    assert.match((parseReplayArgs(['f.jsonl', '--window', 'x']) as { error: string }).error, /--window/);
    assert.match((parseReplayArgs([]) as { error: string }).error, /no transcript/);
  });
});
