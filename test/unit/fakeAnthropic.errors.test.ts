import { strict as assert } from 'node:assert';
import Anthropic from '@anthropic-ai/sdk';
import { startFakeAnthropic } from '../fake-anthropic';
import { clientFor, filler, minimalRequest, rawPost } from '../fake-anthropic/testkit';
import { Gate } from './support/gate';
import { useFakeAnthropic } from './support/fakeServer';

function apiError(e: unknown): {
  status: number | undefined;
  type?: string;
  message?: string;
  requestId?: string | null;
} {
  assert.ok(e instanceof Anthropic.APIError, `expected an APIError, got ${String(e)}`);
  const body = e.error as { error?: { type?: string; message?: string } } | undefined;
  return { status: e.status, type: body?.error?.type, message: body?.error?.message, requestId: e.requestID };
}

describe('fake Anthropic: errors, retries and faults with the real SDK', () => {
  const fake = useFakeAnthropic();

  it('429 with retry-after: the SDK waits at least that long, retries, and gets the answer', async () => {
    fake.server.script({ status: 429, retryAfter: 1 }, { text: 'after the rate limit' });
    const t0 = Date.now();
    const msg = await clientFor(fake.server, { maxRetries: 2 }).messages.create(minimalRequest());
    const waited = Date.now() - t0;
    assert.deepEqual(msg.content, [{ type: 'text', text: 'after the rate limit' }]);
    // Only a lower bound: a busy machine can make the wait longer, never shorter. The SDK's own
    // first backoff (0.5 s at most) would be shorter, so this shows retry-after was honoured.
    assert.ok(waited >= 950, `waited ${waited} ms for retry-after: 1`);
    assert.deepEqual(
      fake.server.requests.map((r) => r.outcome),
      ['scripted_error', 'answered'],
    );
    assert.equal(fake.server.requests[1]?.headers['x-stainless-retry-count'], '1');
  });

  it('429 without retries surfaces as RateLimitError with retry-after, request-id and the API body', async () => {
    fake.server.script({ status: 429, retryAfter: 1 });
    await assert.rejects(fake.client.messages.create(minimalRequest()), (e: unknown) => {
      assert.ok(e instanceof Anthropic.RateLimitError);
      assert.equal(e.headers?.get('retry-after'), '1');
      assert.equal(e.headers?.get('x-should-retry'), 'true');
      const err = apiError(e);
      assert.equal(err.type, 'rate_limit_error');
      assert.match(String(err.requestId), /^req_011/);
      assert.equal((e.error as { request_id?: string }).request_id, err.requestId);
      return true;
    });
  });

  it('529 overloaded_error as HTTP status, retried by the SDK', async () => {
    fake.server.script({ status: 529 });
    await assert.rejects(fake.client.messages.create(minimalRequest()), (e: unknown) => {
      const err = apiError(e);
      assert.deepEqual([err.status, err.type, err.message], [529, 'overloaded_error', 'Overloaded']);
      return true;
    });
    fake.server.script({ status: 529, retryAfter: 0.05 }, { text: 'recovered' });
    const msg = await clientFor(fake.server, { maxRetries: 2 }).messages.create(minimalRequest());
    assert.deepEqual(msg.content, [{ type: 'text', text: 'recovered' }]);
  });

  it('500 api_error; x-should-retry: false stops the SDK from retrying', async () => {
    fake.server.script({ status: 500, shouldRetry: false }, { text: 'never reached' });
    await assert.rejects(clientFor(fake.server, { maxRetries: 2 }).messages.create(minimalRequest()), (e: unknown) => {
      assert.ok(e instanceof Anthropic.InternalServerError);
      assert.equal(apiError(e).type, 'api_error');
      return true;
    });
    assert.equal(fake.server.requests.length, 1, 'not retried');
    assert.equal(fake.server.pendingSteps, 1);
  });

  it('overloaded_error as an SSE error event mid-stream surfaces as an APIError after partial text', async () => {
    fake.server.script({
      text: 'partial answer that will be cut off',
      chunkChars: 4,
      overloadedMidStream: { afterEvents: 5 },
    });
    const stream = fake.client.messages.stream(minimalRequest());
    let text = '';
    stream.on('text', (d) => (text += d));
    await assert.rejects(stream.finalMessage(), (e: unknown) => {
      const err = apiError(e);
      assert.equal(err.status, undefined, 'no HTTP status: the stream had started with 200');
      assert.equal(err.type, 'overloaded_error');
      return true;
    });
    assert.equal(text, 'partial ', 'the two deltas before the error arrived');
    await fake.server.idle();
    assert.equal(fake.server.requests[0]?.outcome, 'stream_error');
  });

  it('a mid-stream error on a non-streaming request is an HTTP error (529 for overloaded)', async () => {
    fake.server.script({ text: 'x', overloadedMidStream: { afterEvents: 2 } });
    await assert.rejects(fake.client.messages.create(minimalRequest()), (e: unknown) => apiError(e).status === 529);
  });

  it('a socket destroyed mid-stream surfaces as a connection error', async () => {
    fake.server.script({ text: 'this answer never finishes', chunkChars: 3, disconnectAfterEvents: 4 });
    const stream = fake.client.messages.stream(minimalRequest());
    let text = '';
    stream.on('text', (d) => (text += d));
    await assert.rejects(stream.finalMessage(), (e: unknown) => {
      // The SDK (v1.12) wraps undici's body error: AnthropicError('terminated', { cause: TypeError('terminated') }).
      assert.ok(e instanceof Anthropic.AnthropicError, `an AnthropicError, got ${String(e)}`);
      assert.ok(!(e instanceof Anthropic.APIError), 'not an HTTP API error: the response had started with 200');
      assert.match(`${e.message} ${String((e as { cause?: unknown }).cause)}`, /terminated/);
      return true;
    });
    assert.equal(text, 'thi', 'the first delta arrived before the drop');
    await fake.server.idle();
    assert.equal(fake.server.requests[0]?.outcome, 'disconnected');
  });

  it('a socket destroyed before the response of create() is an APIConnectionError', async () => {
    fake.server.script({ text: 'x', disconnectAfterEvents: 0 });
    await assert.rejects(fake.client.messages.create(minimalRequest()), Anthropic.APIConnectionError);
  });

  it('notices a client that gave up during the delay (the user pressed Stop), at once', async () => {
    // The delay never ends by itself: only the client leaving can end it. The test aborts once
    // the request is in and held, so no timing decides who comes first.
    const held = new Gate();
    let heldFor: AbortSignal | undefined;
    const holding = await startFakeAnthropic({
      sleep: (_ms, signal) => ((heldFor = signal), held.open(), new Promise<void>(() => undefined)),
    });
    try {
      holding.script({ text: 'too late', delayMs: 60_000 }, { text: 'next' });
      const ctrl = new AbortController();
      const call = assert.rejects(
        clientFor(holding).messages.create(minimalRequest(), { signal: ctrl.signal }),
        Anthropic.APIUserAbortError,
      );
      await held.wait();
      ctrl.abort();
      await call;
      await holding.idle();
      assert.equal(holding.requests[0]?.outcome, 'client_closed');
      assert.equal(heldFor?.aborted, true, 'the sleep was told the client left (the real one drops its timer)');
      assert.equal(holding.pendingSteps, 1, 'the step was consumed by the aborted request');
    } finally {
      await holding.close();
    }
  });

  it('prompt too long: 400 with the exact message, recorded invalid', async () => {
    fake.server.setWindow(1000);
    const body = minimalRequest({ messages: [{ role: 'user', content: filler(1500) }] });
    const total = (await fake.client.messages.countTokens({ model: body.model, messages: body.messages })).input_tokens;
    assert.ok(total > 1500);
    await assert.rejects(fake.client.messages.create(body), (e: unknown) => {
      const err = apiError(e);
      assert.equal(err.status, 400);
      assert.equal(err.type, 'invalid_request_error');
      assert.equal(err.message, `prompt is too long: ${total} tokens > 1000 maximum`);
      return true;
    });
    assert.equal(fake.server.invalidRequests[0]?.error?.rule, 'prompt_too_long');
  });

  it('input + max_tokens over the window: 400 "input length and `max_tokens` exceed context limit"', async () => {
    fake.server.setWindow(2000);
    const body = minimalRequest({ max_tokens: 1000, messages: [{ role: 'user', content: filler(1500) }] });
    const total = (await fake.client.messages.countTokens({ model: body.model, messages: body.messages })).input_tokens;
    await assert.rejects(fake.client.messages.create(body), (e: unknown) => {
      assert.equal(
        apiError(e).message,
        `input length and \`max_tokens\` exceed context limit: ${total} + 1000 > 2000, decrease input length or \`max_tokens\` and try again`,
      );
      return true;
    });
    const fits = await fake.client.messages.create({ ...body, max_tokens: 2000 - total });
    assert.equal(fits.type, 'message', 'exactly at the window is accepted');
  });

  it('a configured key: anything else is 401 authentication_error', async () => {
    const guarded = await startFakeAnthropic({ apiKey: 'local-test-key' });
    try {
      await assert.rejects(clientFor(guarded, { apiKey: 'wrong' }).messages.create(minimalRequest()), (e: unknown) => {
        assert.ok(e instanceof Anthropic.AuthenticationError);
        assert.equal(apiError(e).message, 'invalid x-api-key');
        return true;
      });
      const ok = await clientFor(guarded, { apiKey: 'local-test-key' }).messages.create(minimalRequest());
      assert.equal(ok.type, 'message');
      assert.equal(guarded.invalidRequests.length, 1);
    } finally {
      await guarded.close();
    }
  });

  it('refuses requests without x-api-key, without anthropic-version, or with a body that is not JSON', async () => {
    const noKey = await rawPost(fake.server, '/v1/messages', minimalRequest(), { 'x-api-key': null });
    assert.equal(noKey.status, 401);
    assert.deepEqual((noKey.json as { error: unknown }).error, {
      type: 'authentication_error',
      message: 'x-api-key header is required',
    });
    const noVersion = await rawPost(fake.server, '/v1/messages', minimalRequest(), { 'anthropic-version': null });
    assert.equal(noVersion.status, 400);
    assert.deepEqual((noVersion.json as { error: unknown }).error, {
      type: 'invalid_request_error',
      message: 'anthropic-version: header is required',
    });
    const badVersion = await rawPost(fake.server, '/v1/messages', minimalRequest(), { 'anthropic-version': 'latest' });
    assert.equal(badVersion.status, 400);
    const notJson = await rawPost(fake.server, '/v1/messages', '{"model": ');
    assert.equal(notJson.status, 400);
    assert.match(String((notJson.json as { error: { message: string } }).error.message), /error parsing the body/);
    const unknown = await rawPost(fake.server, '/v1/complete_everything', {});
    assert.equal(unknown.status, 404);
    assert.deepEqual(
      fake.server.invalidRequests.map((r) => r.error?.rule),
      ['authentication', 'anthropic_version', 'anthropic_version', 'body_json', 'route'],
    );
    assert.match(String(noKey.headers.get('request-id')), /^req_011/);
  });
});
