import { strict as assert } from 'node:assert';
import { classifyFailure, DEFAULT_RETRY_POLICY, retryDelayMs } from '../../src/core/llm/llmErrors';

describe('classifyFailure', () => {
  it('an endpoint that refuses a 1-hour cache entry is told how to turn them off', () => {
    const e = classifyFailure({ status: 400, message: "cache_control.ttl: Input should be '5m'" });
    assert.equal(e.kind, 'invalid_request');
    assert.match(e.message, /set contextPipeline\.cacheTtl to 5m\.$/);
    const other = classifyFailure({ status: 400, message: 'messages: roles must alternate' });
    assert.doesNotMatch(other.message, /cacheTtl/);
  });

  it('recognises the overflow messages with thousands separators or no figures, and a 413 as too large', () => {
    const a = classifyFailure({ status: 400, message: 'Prompt is too long: 1,050,000 tokens > 1,000,000 maximum' });
    assert.equal(a.kind, 'prompt_too_long');
    assert.equal(a.promptTokens, 1_050_000);
    assert.equal(a.limitTokens, 1_000_000);
    const bare = classifyFailure({ status: 400, message: 'prompt is too long' });
    assert.equal(bare.kind, 'prompt_too_long');
    assert.equal(bare.promptTokens, undefined);
    const big = classifyFailure({
      status: 413,
      type: 'request_too_large',
      message: 'Request exceeds the maximum allowed number of bytes.',
    });
    assert.equal(big.kind, 'prompt_too_long');
    assert.match(big.message, /larger than the API takes/);
    const c = classifyFailure({
      status: 400,
      message: 'input length and `max_tokens` exceed context limit: 190,000 + 32,000 > 200,000',
    });
    assert.equal(c.kind, 'context_exceeded');
    assert.equal(c.promptTokens, 190_000);
  });

  it('recognises the two overflow messages with their figures, and nothing else', () => {
    const a = classifyFailure({
      status: 400,
      type: 'invalid_request_error',
      message: 'prompt is too long: 212345 tokens > 200000 maximum',
      requestId: 'req_1',
    });
    assert.equal(a.kind, 'prompt_too_long');
    assert.equal(a.promptTokens, 212_345);
    assert.equal(a.limitTokens, 200_000);
    assert.match(a.message, /req_1/);
    const b = classifyFailure({
      status: 400,
      message:
        'input length and `max_tokens` exceed context limit: 190000 + 32000 > 200000, decrease input length or `max_tokens` and try again',
    });
    assert.equal(b.kind, 'context_exceeded');
    assert.equal(b.promptTokens, 190_000);
    assert.equal(b.limitTokens, 200_000);
    for (const message of [
      'messages: text content blocks must be non-empty',
      'the prompt is long-winded',
      'max_tokens: too long',
    ]) {
      assert.equal(classifyFailure({ status: 400, message }).kind, 'invalid_request', message);
    }
  });

  it('classifies statuses and stream errors in words a person understands', () => {
    const cases: Array<[Parameters<typeof classifyFailure>[0], string, boolean]> = [
      [{ status: 401, message: 'invalid x-api-key' }, 'authentication', false],
      [{ status: 400, message: 'Your credit balance is too low to access the Anthropic API.' }, 'billing', false],
      [{ status: 429, message: 'rate' }, 'rate_limit', true],
      [{ status: 529, message: 'Overloaded' }, 'overloaded', true],
      [{ type: 'overloaded_error', message: 'Overloaded' }, 'overloaded', true],
      [{ status: 500, message: 'boom' }, 'server', true],
      [{ message: 'socket hang up', connection: true }, 'network', true],
      [{ message: 'timed out', timeout: true }, 'timeout', true],
      [{ message: 'aborted', aborted: true }, 'aborted', false],
      [{ status: 404, message: 'model: claude-x' }, 'not_found', false],
    ];
    for (const [facts, kind, retryable] of cases) {
      const e = classifyFailure(facts);
      assert.equal(e.kind, kind, JSON.stringify(facts));
      assert.equal(e.retryable, retryable, JSON.stringify(facts));
      assert.ok(e.message.length > 5);
    }
  });
});

describe('retryDelayMs', () => {
  it('honours retry-after in seconds and as a date, capped at 60 s', () => {
    assert.equal(
      retryDelayMs(1, DEFAULT_RETRY_POLICY, '3', 0, () => 0.5),
      3000,
    );
    assert.equal(
      retryDelayMs(1, DEFAULT_RETRY_POLICY, '600', 0, () => 0.5),
      60_000,
    );
    const now = Date.parse('2026-11-21T00:00:00Z');
    assert.equal(
      retryDelayMs(1, DEFAULT_RETRY_POLICY, 'Sat, 21 Nov 2026 00:00:05 GMT', now, () => 0.5),
      5000,
    );
  });

  it('backs off exponentially with jitter when the server says nothing', () => {
    const mid = (n: number) => retryDelayMs(n, DEFAULT_RETRY_POLICY, null, 0, () => 0.5);
    assert.deepEqual([1, 2, 3, 4, 10].map(mid), [1000, 2000, 4000, 8000, 30_000]);
    assert.equal(
      retryDelayMs(1, DEFAULT_RETRY_POLICY, null, 0, () => 0),
      750,
    );
    assert.equal(
      retryDelayMs(1, DEFAULT_RETRY_POLICY, 'garbage', 0, () => 0.999),
      1250,
    );
  });
});
