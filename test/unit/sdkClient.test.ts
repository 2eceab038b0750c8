import { strict as assert } from 'node:assert';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ANTHROPIC_ORIGIN } from '../../src/core/security/endpoint';
import { AnthropicLlmClient } from '../../src/host/anthropic/anthropicClient';
import { newSdkClient } from '../../src/host/anthropic/sdkClient';

const KEY = 'sk-ant-api03-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const ENV_NAMES = ['ANTHROPIC_BASE_URL', 'ANTHROPIC_CUSTOM_HEADERS', 'ANTHROPIC_LOG'] as const;

/** A server that records the headers of each request and answers with a 400 (nothing is retried). */
async function recordingServer(): Promise<{ url: string; server: Server; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    req.on('end', () => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'recorded' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, seen };
}

describe('the SDK client takes where requests go from the user alone, not the environment', () => {
  const saved = new Map<string, string | undefined>();
  beforeEach(() => ENV_NAMES.forEach((n) => saved.set(n, process.env[n])));
  afterEach(() =>
    ENV_NAMES.forEach((n) => {
      const v = saved.get(n);
      if (v === undefined) delete process.env[n];
      else process.env[n] = v;
    }),
  );

  it("with no base URL set, goes to Anthropic's API even when ANTHROPIC_BASE_URL names another host", () => {
    process.env.ANTHROPIC_BASE_URL = 'https://attacker.example';
    assert.equal(newSdkClient({ apiKey: KEY, timeoutMs: 1000 }).baseURL, ANTHROPIC_ORIGIN);
    assert.equal(newSdkClient({ apiKey: KEY, baseUrl: '', timeoutMs: 1000 }).baseURL, ANTHROPIC_ORIGIN);
    assert.equal(
      newSdkClient({ apiKey: KEY, baseUrl: 'https://proxy.example.com', timeoutMs: 1000 }).baseURL,
      'https://proxy.example.com',
    );
  });

  it('leaves ANTHROPIC_CUSTOM_HEADERS in the environment as it was', () => {
    process.env.ANTHROPIC_CUSTOM_HEADERS = 'X-Leak: 1';
    newSdkClient({ apiKey: KEY, timeoutMs: 1000 });
    assert.equal(process.env.ANTHROPIC_CUSTOM_HEADERS, 'X-Leak: 1');
  });

  it('keeps its own Authorization and anthropic-version when ANTHROPIC_CUSTOM_HEADERS names them (issue 34 #8)', async () => {
    const user = await recordingServer();
    try {
      process.env.ANTHROPIC_CUSTOM_HEADERS =
        'Authorization: Bearer stolen\nanthropic-version: 1999-01-01\nX-Api-Key: other';
      const client = new AnthropicLlmClient({ apiKey: async () => KEY, baseUrl: user.url });
      await client.stream(
        { model: 'claude-sonnet-4-6', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
        { signal: new AbortController().signal, onEvent: () => undefined },
      );
      const h = user.seen[0] ?? {};
      const sent = String(h['x-api-key'] ?? h.authorization ?? '');
      assert.ok(sent.endsWith(KEY), `the key is sent: ${sent.slice(0, 12)}…`);
      assert.ok(!String(h.authorization ?? '').includes('stolen'));
      assert.notEqual(h['x-api-key'], 'other');
      assert.match(String(h['anthropic-version']), /^20\d\d-\d\d-\d\d$/);
      assert.notEqual(h['anthropic-version'], '1999-01-01');
    } finally {
      user.server.close();
    }
  });

  it("sends the key only to the user's base URL, without the headers the environment adds", async () => {
    const user = await recordingServer();
    const attacker = await recordingServer();
    try {
      process.env.ANTHROPIC_BASE_URL = attacker.url;
      process.env.ANTHROPIC_CUSTOM_HEADERS = 'X-Leak: exfil\nX-Other: 2';
      const client = new AnthropicLlmClient({ apiKey: async () => KEY, baseUrl: user.url });
      const r = await client.stream(
        { model: 'claude-sonnet-4-6', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
        { signal: new AbortController().signal, onEvent: () => undefined },
      );
      assert.equal(r.ok, false);
      assert.equal(attacker.seen.length, 0);
      assert.equal(user.seen.length, 1);
      const sent = String(user.seen[0]?.['x-api-key'] ?? user.seen[0]?.authorization ?? '');
      assert.ok(sent.endsWith(KEY), "the key goes to the user's base URL");
      assert.equal(user.seen[0]?.['x-leak'], undefined);
      assert.equal(user.seen[0]?.['x-other'], undefined);
    } finally {
      user.server.close();
      attacker.server.close();
    }
  });

  it('calls a stream that ends before message_stop a cut answer (not an unreachable API), and sends it again', async () => {
    const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          sse('message_start', {
            type: 'message_start',
            message: {
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              model: 'claude-sonnet-4-6',
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: 10, output_tokens: 1 },
            },
          }),
        );
        res.end(); // a proxy closing the response cleanly, mid-answer
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = new AnthropicLlmClient({
        apiKey: async () => KEY,
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 },
        sleep: async () => undefined,
      });
      const r = await client.stream(
        { model: 'claude-sonnet-4-6', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
        { signal: new AbortController().signal, onEvent: () => undefined },
      );
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.kind, 'network');
      assert.match(r.error.message, /^The connection closed before the answer was complete/);
      assert.equal(requests, 2, 'sent again once');
    } finally {
      server.close();
    }
  });
});
