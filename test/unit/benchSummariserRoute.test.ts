import { strict as assert } from 'node:assert';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { policy } from '../../bench/policies';
import { replay } from '../../bench/replayCore';
import { ScriptedSummariser } from '../../bench/scriptedSummariser';
import { buildMainSummaryRequest, mainSummaryInstruction } from '../../src/core/compaction/mainSummary';
import { assistant, at, prepare, usage, user, words } from './support/benchTranscripts';

const signal = new AbortController().signal;

/**
 * Thirty turns of a short question and a 3,000-word answer a minute apart (Opus 4.6): a 100k
 * window reaches its thresholds. `output`: the output tokens billed per answer (over 3,000: thinking).
 */
function longSession(output = 3_000): string[] {
  const lines: string[] = [];
  let prompt = 0;
  for (let t = 0; t < 30; t++) {
    lines.push(user(`question ${t} about src/file${t}.ts`));
    prompt += 6;
    lines.push(usage({ prompt, read: Math.max(0, prompt - 3_010), at: at(t), model: 'claude-opus-4-6', output }));
    lines.push(assistant(`${words(3_000, `t${t}a`)} src/file${t}.ts`));
    prompt += 3_002;
  }
  return lines;
}

describe('bench: the summariser routes', () => {
  it('the scripted summariser summarises only the stretch a main-model request names', async () => {
    const s = new ScriptedSummariser({ tokens: (t) => t.split(/\s+/).filter(Boolean).length });
    const main: MessageCreateParamsNonStreaming = {
      model: 'claude-opus-4-6',
      max_tokens: 32_000,
      messages: [
        { role: 'user', content: [{ type: 'text', text: `inStretch.ts ${words(2_000, 'a')}` }] },
        { role: 'assistant', content: [{ type: 'text', text: 'alsoInStretch.ts' }] },
        { role: 'user', content: [{ type: 'text', text: `outsideStretch.ts ${words(50_000, 'b')}` }] },
      ],
    };
    const request = buildMainSummaryRequest(
      main,
      mainSummaryInstruction({ from: 0, to: 1, regionTurns: [1, 1], targetTokens: 400, maxTokens: 4_000 }),
    );
    const r = await s.stream(request, { signal, onEvent: () => undefined });
    assert.ok(r.ok);
    const text = r.result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    assert.match(text, /alsoInStretch\.ts/, 'the newest identifier of the stretch, the first the keep rule keeps');
    assert.doesNotMatch(text, /outsideStretch\.ts/);
    assert.ok(
      r.result.usage.output_tokens <= 600,
      `a summary of ~2,000 tokens, not of 52,000: ${r.result.usage.output_tokens}`,
    );
  });

  it("bills a main-model summary with the thinking the transcript's answers were billed for", async () => {
    const plain = await replay(prepare(longSession()), { window: 100_000, policy: policy('default-main') });
    const thinking = await replay(prepare(longSession(9_000)), { window: 100_000, policy: policy('default-main') });
    assert.ok(plain.summariserCalls > 0);
    assert.equal(thinking.summariserCalls, plain.summariserCalls, 'the same compactions');
    const extra = (thinking.summariserCost.total() ?? 0) - (plain.summariserCost.total() ?? 0);
    // About 6,000 tokens of thinking per summary request at Opus 4.6's $25 per million output tokens.
    const expected = (plain.summariserCalls * 6_000 * 25) / 1e6;
    assert.ok(Math.abs(extra - expected) < 0.05 * expected, `${extra} vs ${expected}`);
  });

  it('a replay with summarizer main sends valid main-model summary requests that read the prompt cache', async () => {
    const t = prepare(longSession());
    const main = await replay(t, { window: 100_000, policy: policy('default-main') });
    const small = await replay(t, { window: 100_000, policy: policy('default-small') });
    assert.equal(main.invalidCount, 0);
    assert.equal(small.invalidCount, 0);
    assert.ok((main.summariserModels.get('claude-opus-4-6') ?? 0) > 0, [...main.summariserModels].join());
    assert.equal(main.summariserModels.get('claude-haiku-4-5'), undefined);
    // Each reads a prompt of ~50k tokens: fresh at Opus's $5 that alone would be $0.25; from the cache, $0.025.
    const perCall = main.summariserCost.usd / (main.summariserModels.get('claude-opus-4-6') ?? 1);
    assert.ok(perCall < 0.1, `$${perCall} a call: the prefix was read from the cache`);
    assert.ok((small.summariserModels.get('claude-haiku-4-5') ?? 0) > 0);
    assert.equal(small.summariserModels.get('claude-opus-4-6'), undefined);
    const auto = await replay(t, { window: 100_000, policy: policy('default') });
    const cheaper = Math.min(main.summariserCost.usd, small.summariserCost.usd);
    assert.ok(
      auto.summariserCost.usd <= cheaper * 1.25,
      `auto ($${auto.summariserCost.usd}) is near the cheaper route ($${cheaper})`,
    );
  });
});
