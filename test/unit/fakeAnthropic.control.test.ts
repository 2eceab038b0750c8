import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import {
  countTokens,
  parseSteps,
  startFakeAnthropic,
  type FakeAnthropic,
  type RecordedRequest,
} from '../fake-anthropic';
import { clientFor, filler, minimalRequest } from '../fake-anthropic/testkit';

const root = join(__dirname, '..', '..');

async function control(
  server: { url: string },
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('fake Anthropic: HTTP control routes, log file, CLI, tokenizer', () => {
  let server: FakeAnthropic;
  let client: Anthropic;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fake-anthropic-'));
    server = await startFakeAnthropic({ logFile: join(dir, 'requests.jsonl') });
    client = clientFor(server);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => server.reset());

  it('scripts, lists, re-windows and resets over HTTP; control calls are not recorded as API requests', async () => {
    const queued = await control(server, 'POST', '/_fake/script', [{ text: 'from the HTTP script' }, { status: 529 }]);
    assert.deepEqual(queued, { status: 200, json: { queued: 2, pending: 2 } });
    const msg = await client.messages.create(minimalRequest());
    assert.deepEqual(msg.content, [{ type: 'text', text: 'from the HTTP script' }]);
    await client.messages.create(minimalRequest()).catch(() => undefined);

    const listed = await control(server, 'GET', '/_fake/requests');
    const requests = listed.json.requests as RecordedRequest[];
    assert.deepEqual(
      requests.map((r) => [r.path, r.outcome, r.valid]),
      [
        ['/v1/messages', 'answered', true],
        ['/v1/messages', 'scripted_error', true],
      ],
    );
    assert.ok((requests[0]?.usage?.input_tokens ?? 0) > 0);
    assert.equal((requests[0]?.body as { model?: string }).model, 'claude-sonnet-4-6');

    assert.deepEqual(await control(server, 'POST', '/_fake/window', { window: 50 }), {
      status: 200,
      json: { window: 50 },
    });
    await assert.rejects(client.messages.create(minimalRequest()), /exceed context limit/);
    assert.equal(((await control(server, 'GET', '/_fake/requests?invalid=1')).json.requests as unknown[]).length, 1);

    assert.deepEqual(await control(server, 'POST', '/_fake/reset'), { status: 200, json: { ok: true } });
    assert.equal(server.requests.length, 0);
    assert.equal(server.window, 200_000, 'reset restores the initial window');
    const health = await control(server, 'GET', '/_fake/health');
    assert.deepEqual(health.json, { ok: true, model: 'fake-claude', window: 200_000, pendingSteps: 0, requests: 0 });
  });

  it('advances the cache clock and reports cache statistics over HTTP', async () => {
    const body = minimalRequest({
      system: [{ type: 'text', text: filler(1500), cache_control: { type: 'ephemeral' } }],
    });
    await client.messages.create(body);
    assert.ok(((await client.messages.create(body)).usage.cache_read_input_tokens ?? 0) > 1500);
    const clock = await control(server, 'POST', '/_fake/clock', { advanceMs: 5 * 60_000 + 1 });
    assert.equal(clock.status, 200);
    assert.equal((await client.messages.create(body)).usage.cache_read_input_tokens, 0);
    const stats = (await control(server, 'GET', '/_fake/cache')).json;
    assert.deepEqual([stats.lookups, stats.hits, stats.misses, stats.entries], [3, 1, 2, 1]);
  });

  it('refuses a malformed script with a message naming the field, and unknown control routes with 404', async () => {
    const typo = await control(server, 'POST', '/_fake/script', [{ txt: 'oops' }]);
    assert.deepEqual(typo, { status: 400, json: { error: 'step 0: unknown field "txt"' } });
    const mixed = await control(server, 'POST', '/_fake/script', {
      steps: [{ text: 'a' }, { status: 429, text: 'b' }],
    });
    assert.equal(mixed.json.error, 'step 1: "text" cannot be combined with "status"');
    assert.equal(server.pendingSteps, 0, 'nothing of a bad script is queued');
    assert.throws(
      () => parseSteps([{ toolUses: [{ name: 'x', input: 'not an object' }] }]),
      /invalid value for "toolUses"/,
    );
    assert.equal((await control(server, 'GET', '/_fake/nope')).status, 404);
  });

  it('appends one JSON line per API request to the log file, with validity and error', async () => {
    const file = join(dir, 'requests.jsonl');
    const before = readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
    await client.messages.create(minimalRequest());
    await client.messages
      .create(minimalRequest({ messages: [{ role: 'assistant', content: 'Hi' }] }))
      .catch(() => undefined);
    await client.messages.countTokens({
      model: 'claude-sonnet-4-6',
      messages: [{ role: 'user', content: 'count me' }],
    });
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .slice(before)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(lines.length, 3);
    assert.deepEqual(
      lines.map((l) => [l.path, l.valid]),
      [
        ['/v1/messages', true],
        ['/v1/messages', false],
        ['/v1/messages/count_tokens', true],
      ],
    );
    assert.match(String(lines[0]?.at), /^\d{4}-\d\d-\d\dT/);
    assert.equal((lines[1]?.error as { rule?: string }).rule, 'first_user');
    assert.equal((lines[0]?.body as { messages: Array<{ content: string }> }).messages[0]?.content, 'Hello');
  });

  it('takes the log file from FAKE_ANTHROPIC_LOG', async () => {
    const file = join(dir, 'env.jsonl');
    const saved = process.env.FAKE_ANTHROPIC_LOG;
    process.env.FAKE_ANTHROPIC_LOG = file;
    const other = await startFakeAnthropic();
    try {
      await clientFor(other).messages.create(minimalRequest());
      assert.equal(readFileSync(file, 'utf8').split('\n').filter(Boolean).length, 1);
    } finally {
      await other.close();
      if (saved === undefined) delete process.env.FAKE_ANTHROPIC_LOG;
      else process.env.FAKE_ANTHROPIC_LOG = saved;
    }
  });

  it('starts from the CLI and prints where it listens', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/fake-anthropic/cli.ts', '--port', '0', '--window', '5000'],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /Fake Anthropic API \(scripted test model\) listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m) resolve(m[1] as string);
        });
        child.once('exit', (code) => reject(new Error(`cli exited with ${code}: ${out}`)));
      });
      const health = await control({ url: line }, 'GET', '/_fake/health');
      assert.equal(health.json.window, 5000);
      const msg = await clientFor({ url: line }).messages.create(
        minimalRequest({ model: 'fake-claude', messages: [{ role: 'user', content: 'ping' }] }),
      );
      assert.match(JSON.stringify(msg.content), /scripted test model/);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('counts tokens with its own word/punctuation tokenizer', () => {
    assert.equal(countTokens(''), 0);
    assert.equal(countTokens('The quick brown fox jumps over the lazy dog.'), 10);
    assert.equal(countTokens('getElementById(x) === 42'), 4 + 3 + 1 + 1, 'get|Element|By|Id ( x ) === 42');
    assert.equal(countTokens('internationalization'), 3);
    assert.equal(countTokens('日本語'), 3);
    assert.equal(countTokens('line one\n\n    indented'), 2 + 1 + 1 + 2, 'line one | \\n\\n | 4 spaces | indent-ed');
    assert.equal(countTokens(filler(777)), 777);
  });

  it('counts an image by its size, as the API documents (w × h / 750 after downscaling)', async () => {
    const png = (w: number, h: number): string => {
      const b = Buffer.alloc(24);
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b);
      b.write('IHDR', 12, 'latin1');
      b.writeUInt32BE(w, 16);
      b.writeUInt32BE(h, 20);
      return b.toString('base64');
    };
    const count = async (data?: string) =>
      (
        await client.messages.countTokens({
          model: 'claude-sonnet-4-6',
          messages: [
            {
              role: 'user',
              content: [
                ...(data
                  ? [
                      {
                        type: 'image' as const,
                        source: { type: 'base64' as const, media_type: 'image/png' as const, data },
                      },
                    ]
                  : []),
                { type: 'text', text: 'describe' },
              ],
            },
          ],
        })
      ).input_tokens;
    const without = await count();
    assert.equal((await count(png(1000, 1000))) - without, 1334 + 3, '1000×1000 → ceil(1e6 / 750) + block frame');
    assert.equal(
      (await count(png(4000, 1000))) - without,
      Math.ceil((1568 * 392) / 750) + 3,
      'long edge scaled to 1568',
    );
  });
});
