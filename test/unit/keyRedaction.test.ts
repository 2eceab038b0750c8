import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiKeyCharProblem, apiKeyProblem } from '../../src/core/security/apiKeyCheck';
import type { LlmEvent } from '../../src/core/llm/llmClient';
import { REDACTED, redactSecrets } from '../../src/core/security/redact';
import { AnthropicLlmClient } from '../../src/host/anthropic/anthropicClient';
import { redactingLog } from '../../src/host/redactingLog';

const KEY = 'sk-ant-api03-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const NUL_KEY = 'sk-ant-api03-SECRETSECRETSECRET\u0000tailpart9';
const params = { model: 'claude-sonnet-4-6', max_tokens: 16, messages: [{ role: 'user' as const, content: 'hi' }] };

/** A server that answers every request with a 400 quoting the key it was sent (a hostile or careless proxy). */
async function echoingServer(): Promise<{ url: string; server: Server; requests: () => number }> {
  let n = 0;
  const server = createServer((req, res) => {
    n++;
    req.resume();
    req.on('end', () => {
      const key = String(req.headers['x-api-key'] ?? req.headers.authorization ?? '').replace(/^Bearer /, '');
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          type: 'error',
          error: { type: 'invalid_request_error', message: `bad key ${key} (json: ${JSON.stringify(key)})` },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, requests: () => n };
}

describe('the API key never reaches an error or a log line', () => {
  it('redactSecrets removes the key raw, JSON-escaped, \\x-escaped and in its pieces around a NUL', () => {
    assert.equal(redactSecrets(`a ${KEY} b ${JSON.stringify(KEY)}`, [KEY]), `a ${REDACTED} b "${REDACTED}"`);
    for (const form of [
      NUL_KEY,
      JSON.stringify(NUL_KEY).slice(1, -1),
      'sk-ant-api03-SECRETSECRETSECRET\\x00tailpart9',
      'sk-ant-api03-SECRETSECRETSECRET',
      'sk-ant-api03-SECRETSECRETSECRETtailpart9',
    ]) {
      const out = redactSecrets(`Headers.append: "Bearer ${form}" is an invalid header value.`, [NUL_KEY]);
      assert.ok(!out.includes('SECRETSECRET'), out);
      assert.ok(!out.includes('tailpart9'), out);
    }
    assert.equal(redactSecrets('short abc', ['abc', undefined, '']), 'short abc');
  });

  it('redactSecrets removes a URL-encoded key and a long prefix of it echoed by a server (issue 34 #10)', () => {
    const key = 'sk-ant-api03-Ab+Cd/Ef=Gh_0123456789abcdefXYZ';
    const encoded = encodeURIComponent(key);
    assert.notEqual(encoded, key);
    const lower = encoded.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase());
    for (const text of [`GET /v1?key=${encoded}&x=1`, `key=${lower}`, `invalid key ${key.slice(0, 24)}… (truncated)`]) {
      const out = redactSecrets(text, [key]);
      assert.ok(out.includes(REDACTED), out);
      assert.ok(!out.includes(key.slice(0, 20)) && !out.includes(encoded.slice(0, 20)), out);
    }
    assert.equal(redactSecrets(`invalid key ${key.slice(0, 24)}…`, [key]), `invalid key ${REDACTED}…`);
    // The format's public prefix alone is ordinary text.
    assert.equal(redactSecrets('keys look like sk-ant-api03-…', [key]), 'keys look like sk-ant-api03-…');
    assert.equal(redactSecrets('x', ['abc\ud800defghijklmnopqrstuvwxyz']), 'x', 'a damaged key does not throw');
  });

  it('a key with a NUL, whitespace or non-ASCII fails the check, with no part of the key in the reason', () => {
    assert.match(
      apiKeyCharProblem(NUL_KEY) ?? '',
      /printable ASCII only; this one has a control character \(U\+0000\) at position 32/,
    );
    assert.match(apiKeyProblem(NUL_KEY) ?? '', /control character/);
    assert.match(apiKeyProblem('sk-ant-api03-abc\u00e9defghijkl') ?? '', /not plain ASCII \(U\+00E9\)/);
    assert.match(apiKeyProblem('sk-ant-api03 abcdefghijkl') ?? '', /no spaces/);
    assert.match(apiKeyProblem('sk-ant-api03-abc\u007fdefghijkl') ?? '', /control character \(U\+007F\)/);
    assert.equal(apiKeyProblem(`  ${KEY}\n`), undefined);
    assert.equal(apiKeyProblem(''), undefined);
    assert.equal(
      apiKeyCharProblem('proxy-token-without-prefix'),
      undefined,
      'a proxy key of another shape may still be sent',
    );
    for (const r of [apiKeyCharProblem(NUL_KEY), apiKeyProblem(NUL_KEY)]) assert.ok(!r?.includes('SECRET'));
  });

  it('the client refuses a NUL key before it reaches the SDK (whose error would quote the whole key)', async () => {
    const echo = await echoingServer();
    try {
      const events: LlmEvent[] = [];
      const client = new AnthropicLlmClient({
        apiKey: async () => NUL_KEY,
        baseUrl: echo.url,
        retry: { maxRetries: 0, baseDelayMs: 0, maxDelayMs: 0 },
      });
      const r = await client.stream(params, { signal: new AbortController().signal, onEvent: (e) => events.push(e) });
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.kind, 'authentication');
      assert.match(r.error.message, /^The API key cannot be used: An API key is printable ASCII only/);
      assert.ok(!r.error.message.includes('SECRET'));
      assert.equal(echo.requests(), 0, 'nothing was sent');
      assert.deepEqual(events, []);
    } finally {
      echo.server.close();
    }
  });

  it('an SDK error whose message holds the key reaches the chat and the log redacted', async () => {
    const echo = await echoingServer();
    const logged: string[] = [];
    const channel = {
      info: (m: string) => logged.push(m),
      error: (m: string | Error, ...rest: unknown[]) => logged.push([String(m), ...rest.map(String)].join(' ')),
    };
    const log = redactingLog(channel, () => [KEY]);
    try {
      const client = new AnthropicLlmClient({ apiKey: async () => KEY, baseUrl: echo.url });
      const r = await client.stream(params, { signal: new AbortController().signal, onEvent: () => undefined });
      assert.equal(echo.requests(), 1);
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.kind, 'invalid_request');
      assert.ok(!r.error.message.includes(KEY), r.error.message);
      assert.match(r.error.message, /bad key \[redacted\] \(json: "\[redacted\]"\)/);
      // The controller logs "Turn failed: …"; a key that slipped into any log line is redacted too.
      log.error(`Turn failed: ${r.error.kind}: ${r.error.message}`);
      log.error(new Error(`boom with ${KEY}`), { header: `Bearer ${KEY}` });
      log.info(`key ${KEY}`);
      assert.ok(logged.length === 3 && logged.every((l) => !l.includes(KEY)), logged.join('\n'));
      assert.match(logged[1] ?? '', /boom with \[redacted\].*"header":"Bearer \[redacted\]"/s);
    } finally {
      echo.server.close();
    }
  });

  it('the client refuses an unusable base URL without sending anything', async () => {
    let asked = 0;
    const client = new AnthropicLlmClient({ apiKey: async () => (asked++, KEY), baseUrl: 'ftp://127.0.0.1/' });
    const r = await client.stream(params, { signal: new AbortController().signal, onEvent: () => undefined });
    assert.equal(r.ok, false);
    if (!r.ok)
      assert.match(
        r.error.message,
        /^Nothing was sent: contextPipeline\.baseUrl is not usable \(only http and https are supported, not ftp\)/,
      );
    assert.equal(asked, 1);
  });
});
