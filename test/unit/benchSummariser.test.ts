import { strict as assert } from 'node:assert';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { requestCostUsd } from '../../src/core/llm/cost';
import { createTiktokenTokenizer } from '../../src/core/tokens/tiktoken';
import { ReplayApi } from '../../bench/replayApi';
import { ScriptedSummariser } from '../../bench/scriptedSummariser';
import { deriveSummaryLength, SUMMARY_LENGTH, summaryLengthTokens, summarySamples } from '../../bench/summaryLength';
import { readTranscript } from '../../bench/transcript';
import { fixtureTranscripts, words } from './support/benchTranscripts';

const quarter = (t: string) => Math.ceil(t.length / 4);
const signal = new AbortController().signal;

/**
 * The text of a summariser request over `lines` transcript lines (~18 tokens each at 4 characters
 * a token), each naming identifiers and saying something beside them.
 */
function transcriptText(lines: number, prose = true): string {
  const line = (i: number) =>
    `src/mod${i}.ts: renamed fooBar${i} to bazQux${i}${prose ? ` after review round ${i} of the module` : ''}`;
  return `<transcript>\n${Array.from({ length: lines }, (_, i) => line(i)).join('\n')}\n</transcript>`;
}

function request(text: string, maxTokens: number): MessageCreateParamsNonStreaming {
  return {
    model: 'claude-haiku-4-5',
    max_tokens: maxTokens,
    system: 'Summarise.',
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
  };
}

async function summarise(s: ScriptedSummariser, params: MessageCreateParamsNonStreaming) {
  const r = await s.stream(params, { signal, onEvent: () => undefined });
  assert.ok(r.ok, 'the summariser answers');
  const text = r.result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('');
  return { text, result: r.result };
}

describe('bench summariser: length calibrated on the real summaries', () => {
  it('SUMMARY_LENGTH is what the fixtures’ compaction records give', () => {
    const tokenizer = createTiktokenTokenizer();
    const samples = fixtureTranscripts().flatMap((f) => summarySamples(readTranscript(f), (t) => tokenizer.count(t)));
    assert.equal(samples.length, 3, 'pi and two Claude Code sessions each compacted once');
    assert.deepEqual(deriveSummaryLength(samples), SUMMARY_LENGTH);
    assert.deepEqual(deriveSummaryLength([]), SUMMARY_LENGTH, 'no records: the measured defaults');
  });

  it('writes about max(floor, ratio × region) tokens, never over max_tokens', async () => {
    const s = new ScriptedSummariser({ tokens: quarter });
    for (const [lines, maxTokens] of [
      [12_000, 8_000],
      [500, 8_000],
      [12_000, 300],
    ] as const) {
      const text = transcriptText(lines);
      const params = request(text, maxTokens);
      const region = quarter(text);
      const want = summaryLengthTokens(region, maxTokens);
      const { text: summary, result } = await summarise(s, params);
      const got = quarter(summary);
      assert.ok(
        Math.abs(got - want) <= 0.05 * want + 5,
        `${lines} lines (${region} tokens), max_tokens ${maxTokens}: ${got} tokens, want ~${want}`,
      );
      assert.ok(result.usage.output_tokens <= maxTokens);
      assert.equal(result.stopReason, want === maxTokens ? 'max_tokens' : 'end_turn');
    }
    const bare = await summarise(s, request(transcriptText(500, false), 8_000));
    assert.ok(
      quarter(bare.text) < summaryLengthTokens(quarter(transcriptText(500, false)), 8_000),
      'a stretch of identifiers alone: the summary is its kept identifiers, shorter than the target, never padded',
    );
    assert.equal(summaryLengthTokens(100_000, 8_000), 1_700, '1.7 % of a large region');
    assert.equal(summaryLengthTokens(10_000, 8_000), 500, 'the floor for a small one');
    assert.equal(summaryLengthTokens(100_000, 300), 300, 'the cap');
    const asked = { ratio: 0.2, floor: 200, ceiling: 8_000 };
    assert.equal(summaryLengthTokens(20_000, 32_000, asked), 4_000, 'a fifth, under the ceiling');
    assert.equal(summaryLengthTokens(160_000, 32_000, asked), 8_000, 'the ceiling, under max_tokens');
    assert.equal(summaryLengthTokens(160_000, 6_000, asked), 6_000, 'max_tokens, under the ceiling');
  });
});

describe('bench summariser: one prompt cache with the main requests', () => {
  const big = words(6000);
  const prefix: MessageCreateParamsNonStreaming['messages'] = [
    { role: 'user', content: [{ type: 'text', text: big }] },
    { role: 'assistant', content: [{ type: 'text', text: 'I read it.', cache_control: { type: 'ephemeral' } }] },
  ];
  const main: MessageCreateParamsNonStreaming = { model: 'claude-opus-4-5', max_tokens: 1000, messages: prefix };
  const summaryRequest = (model: string): MessageCreateParamsNonStreaming => ({
    model,
    max_tokens: 2000,
    messages: [
      ...prefix,
      {
        role: 'user',
        content: [{ type: 'text', text: 'Summarise the conversation so far.', cache_control: { type: 'ephemeral' } }],
      },
    ],
  });

  it('a summary request of the main model reads the main prompt’s prefix from cache, and is priced so', async () => {
    const api = new ReplayApi(() => 0, quarter);
    const sent = api.sendMain(main, [7000, 5], 0);
    assert.ok(sent.ok && sent.split.cache_creation_input_tokens === 7005);
    const s = new ScriptedSummariser({ tokens: quarter, api });
    await summarise(s, summaryRequest('claude-opus-4-5'));
    const call = s.requests[0]!;
    assert.equal(
      call.usage.cache_read_input_tokens,
      7005,
      'the identical prefix, counted as the main request counted it',
    );
    assert.ok(call.usage.input_tokens + call.usage.cache_creation_input_tokens < 50, 'only the instruction is new');
    const uncached = { ...call.usage, input_tokens: call.usage.input_tokens + 7005, cache_read_input_tokens: 0 };
    assert.ok((requestCostUsd(call.model, call.usage) ?? NaN) < (requestCostUsd(call.model, uncached) ?? NaN) / 3);

    await summarise(s, summaryRequest('claude-haiku-4-5'));
    assert.equal(s.requests[1]!.usage.cache_read_input_tokens, 0, 'another model never hits the main model’s cache');
  });

  it('a refused summary request fails as the API would fail it, and is counted', async () => {
    const api = new ReplayApi(() => 0, quarter);
    const s = new ScriptedSummariser({ tokens: quarter, api });
    const bad = { ...summaryRequest('claude-opus-4-5'), max_tokens: 0 };
    const r = await s.stream(bad, { signal, onEvent: () => undefined });
    assert.ok(!r.ok && r.error.kind === 'invalid_request');
    assert.equal(api.invalidCount(), 1);
    assert.ok(s.requests[0]?.invalid?.startsWith('max_tokens:'));
    assert.ok((s.requests[0]?.usage.input_tokens ?? 0) > 1000, 'priced as fully uncached');
  });
});
