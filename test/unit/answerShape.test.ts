import { strict as assert } from 'node:assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnthropicLlmClient } from '../../src/host/anthropic/anthropicClient';
import { answerShapeProblem } from '../../src/host/anthropic/answerShape';

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** Streams `events` as one answer (any shape) and closes. */
async function answering(events: Array<[string, unknown]>): Promise<{ url: string; close: () => void }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_shape' });
      for (const [e, d] of events) res.write(sse(e, d));
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

const start = (usage: unknown) => [
  'message_start',
  {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [],
      stop_reason: null,
      usage,
    },
  },
];
const stop: Array<[string, unknown]> = [
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } }],
  ['message_stop', { type: 'message_stop' }],
];

async function streamFrom(events: Array<[string, unknown]>) {
  const server = await answering(events);
  try {
    const client = new AnthropicLlmClient({
      apiKey: async () => 'sk-ant-api03-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
      baseUrl: server.url,
      retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 },
      sleep: async () => undefined,
    });
    return await client.stream(
      { model: 'claude-x', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
      { signal: new AbortController().signal, onEvent: () => undefined },
    );
  } finally {
    server.close();
  }
}

describe("a server's answer is checked at the boundary (issue 34 #5)", () => {
  it('names the wrong field of a final message', () => {
    const ok = { model: 'm', content: [{ type: 'text', text: 'a' }], usage: { input_tokens: 1, output_tokens: 1 } };
    assert.equal(answerShapeProblem(ok), undefined);
    assert.match(
      answerShapeProblem({ ...ok, content: [{ type: 'text', text: 5 }] }) ?? '',
      /content\.0: a text block's text/,
    );
    assert.match(answerShapeProblem({ ...ok, usage: undefined }) ?? '', /^usage/);
    assert.match(
      answerShapeProblem({ ...ok, usage: { input_tokens: -1, output_tokens: 1 } }) ?? '',
      /usage\.input_tokens/,
    );
    assert.equal(
      answerShapeProblem({ ...ok, content: [{ type: 'future_block', x: 1 }] }),
      undefined,
      'unknown blocks pass',
    );
  });

  it('reports a tool call whose input is not an object as a protocol error, not a network one', async () => {
    const r = await streamFrom([
      start({ input_tokens: 5, output_tokens: 1 }) as [string, unknown],
      [
        'content_block_start',
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 't1', name: 'x', input: 'oops' },
        },
      ],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ...stop,
    ]);
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.error.kind, 'protocol');
    assert.match(r.error.message, /not a valid Messages API response.*tool_use block's input/);
  });

  it('reports an answer without usage as a protocol error', async () => {
    const r = await streamFrom([start(undefined) as [string, unknown], ...stop]);
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.error.kind, 'protocol', r.error.message);
  });
});
