/**
 * The request preview's first line (core/pipeline/requestOutlook.ts, host/requestPreviewText.ts):
 * tokens, the input's price and the prompt cache hit expected, from the pipeline's own figures
 * (the estimator's tokens, the cache anchors, the previous breakpoint, cost.ts).
 */
import { strict as assert } from 'node:assert';
import { requestCostUsd } from '../../src/core/llm/cost';
import type { CacheAnchor } from '../../src/core/cache/cacheAnchors';
import type { TimedAnchor } from '../../src/core/cache/ttlChoice';
import { outlookLine, requestOutlook, type OutlookInput } from '../../src/core/pipeline/requestOutlook';
import { previewDocumentText, type PreviewOk } from '../../src/host/requestPreviewText';
import { testConfig } from './support/builders';

const anchor = (target: CacheAnchor['target'], prefixTokens: number, hitProbability: number): TimedAnchor => ({
  target,
  prefixTokens,
  hitProbability,
  score: prefixTokens * hitProbability,
  reason: 'r',
  ttl: '5m',
  ttlReason: 'r',
});

describe('request preview: the one-line summary', () => {
  const model = testConfig().model;
  const input: OutlookInput = {
    model,
    tokens: { tools: 1000, system: 2000, messages: [3000, 500], total: 6500, anchored: false },
    anchors: [
      anchor({ at: 'tools' }, 1000, 0.98),
      anchor({ at: 'system' }, 3000, 0.95),
      anchor({ at: 'message', messageIndex: 1 }, 6500, 0.8),
    ],
    messageIds: ['m1', 'm2'],
    now: 1_000_000,
  };

  it('expects the stable prefix from the cache, and the last message written, not read', () => {
    const o = requestOutlook(input);
    assert.deepEqual(
      { ...o, inputCostUsd: undefined },
      {
        tokens: 6500,
        cachedTokens: 3000,
        cacheWriteTokens: 3500,
        inputCostUsd: undefined,
      },
    );
    const priced = requestCostUsd(model, {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_input_tokens: 3000,
      cache_creation_input_tokens: 3500,
    });
    assert.ok(priced !== undefined && priced > 0);
    assert.equal(o.inputCostUsd, priced);
  });

  it('expects the prefix through the previous breakpoint while its cache entry lives', () => {
    const warm = requestOutlook({
      ...input,
      previous: { messageId: 'm1', sentAt: input.now - 60_000, ttl: '5m', prefixTokens: 6000 },
    });
    assert.equal(warm.cachedTokens, 6000);
    assert.equal(warm.cacheWriteTokens, 500);
    const cold = requestOutlook({
      ...input,
      previous: { messageId: 'm1', sentAt: input.now - 400_000, ttl: '5m', prefixTokens: 6000 },
    });
    assert.equal(cold.cachedTokens, 3000);
    const gone = requestOutlook({
      ...input,
      previous: { messageId: 'compacted', sentAt: input.now, ttl: '5m', prefixTokens: 6000 },
    });
    assert.equal(gone.cachedTokens, 3000);
  });

  it('says tokens, cost and the cache in one line; an unknown price as unknown, no hit as none', () => {
    assert.equal(
      outlookLine({ tokens: 12_345, cachedTokens: 11_800, cacheWriteTokens: 0, inputCostUsd: 0.0041 }),
      '≈ 12,345 tokens · ≈ $0.0041 to send · 11,800 expected from the prompt cache',
    );
    const unknown = requestOutlook({ ...input, model: 'no-such-model', anchors: [] });
    assert.equal(unknown.inputCostUsd, undefined);
    assert.equal(
      outlookLine(unknown),
      '≈ 6,500 tokens · cost unknown (no prices for this model) · no prompt cache hit expected',
    );
  });

  it('leads the preview document with that line, then the ledger', () => {
    const p: PreviewOk = {
      type: 'previewResult',
      requestId: 1,
      ok: true,
      estimatedTokens: 6500,
      contextWindow: 200_000,
      summary: outlookLine(requestOutlook(input)),
      rows: [
        {
          position: 1,
          role: 'user',
          kind: 'text',
          source: 'user',
          tokens: 12,
          preview: 'a | b\nc',
          breakpoint: true,
          breakpointTtl: '1h',
        },
      ],
      breakpoints: [
        {
          label: 'system',
          prefixTokens: 3000,
          hitProbability: 0.95,
          reason: 'stable',
          ttl: '1h',
          ttlReason: 'pauses pay it back',
        },
      ],
      notes: ['Estimated with cl100k_base × 1.00.'],
    };
    const lines = previewDocumentText(p).split('\n');
    assert.match(lines[0] ?? '', /^≈ 6,500 tokens · ≈ \$0\.\d{4} to send · 3,000 expected from the prompt cache$/);
    assert.ok(lines.includes('3.3% of the 200,000-token window. Nothing was sent; Preview again to refresh.'));
    // The ledger: aligned columns, the block on one line, a rule where the cache breakpoint is.
    const at = lines.indexOf('    #  Tokens  Source  Block');
    assert.ok(at > 0, lines.join('\n'));
    assert.deepEqual(lines.slice(at + 1, at + 3), [
      '    1      12  user    user · text: a | b c',
      '               ── cache breakpoint · kept 1 hour ──',
    ]);
    assert.ok(
      lines.some((l) => l.includes('system (3,000 tokens, p≈0.95: stable; kept 1 hour: pauses pay it back)')),
      'each breakpoint says its lifetime and why',
    );
  });
});
