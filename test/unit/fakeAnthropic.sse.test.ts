import { strict as assert } from 'node:assert';
import type Anthropic from '@anthropic-ai/sdk';
import { startFakeAnthropic } from '../fake-anthropic';
import { clientFor, minimalRequest, rawPost } from '../fake-anthropic/testkit';
import { useFakeAnthropic } from './support/fakeServer';

describe('fake Anthropic: streaming and non-streaming answers with the real SDK', () => {
  const fake = useFakeAnthropic();

  it('streams a scripted text answer that finalMessage() reassembles, with usage and the request id', async () => {
    const text = 'Streaming works, one delta at a time — even with ünïcödé and emoji 🎉.';
    fake.server.script({ text, chunkChars: 5 });
    const stream = fake.client.messages.stream(minimalRequest());
    const deltas: string[] = [];
    stream.on('text', (d) => deltas.push(d));
    const msg = await stream.finalMessage();
    const requestId = stream.request_id;
    assert.deepEqual(msg.content, [{ type: 'text', text }]);
    assert.equal(deltas.join(''), text);
    assert.ok(deltas.length >= 10, `text came in several deltas (${deltas.length})`);
    assert.equal(msg.stop_reason, 'end_turn');
    assert.equal(msg.model, 'claude-sonnet-4-6');
    assert.ok(msg.usage.input_tokens > 0 && msg.usage.output_tokens > 1, JSON.stringify(msg.usage));
    assert.deepEqual(msg.usage, { ...msg.usage, ...fake.server.requests[0]?.usage });
    assert.match(String(requestId), /^req_011/);
    assert.equal(fake.server.requests[0]?.requestId, requestId);
    assert.equal(fake.server.requests[0]?.stream, true);
    assert.equal(fake.server.pendingSteps, 0);
  });

  it('streams several tool calls (input_json_delta) after a text block, stop_reason tool_use', async () => {
    const toolUses = [
      { name: 'read_file', input: { path: 'src/a.ts', range: [1, 40] }, id: 'toolu_01ReadA' },
      {
        name: 'grep',
        input: { pattern: 'TODO', paths: ['src', 'test'], options: { caseSensitive: false, context: 2 } },
      },
    ];
    fake.server.script({ text: 'Let me look.', toolUses, chunkChars: 7 });
    const tools: Anthropic.Tool[] = [
      { name: 'read_file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
      { name: 'grep', input_schema: { type: 'object' } },
    ];
    const msg = await fake.client.messages.stream(minimalRequest({ tools })).finalMessage();
    assert.equal(msg.stop_reason, 'tool_use');
    assert.equal(msg.content.length, 3);
    assert.deepEqual(msg.content[0], { type: 'text', text: 'Let me look.' });
    assert.deepEqual(msg.content[1], {
      type: 'tool_use',
      id: 'toolu_01ReadA',
      name: 'read_file',
      input: toolUses[0]?.input,
    });
    const second = msg.content[2];
    assert.equal(second?.type, 'tool_use');
    if (second?.type === 'tool_use') {
      assert.match(second.id, /^toolu_[A-Za-z0-9_-]+$/);
      assert.deepEqual(second.input, toolUses[1]?.input);
    }
  });

  it('sends the API event sequence: message_start, block start, ping, deltas, stop, message_delta, message_stop', async () => {
    fake.server.script({ thinking: 'Consider the question.', text: 'Hi', toolUses: [{ name: 'ls', input: {} }] });
    const types: string[] = [];
    const stream = fake.client.messages.stream(
      minimalRequest({ tools: [{ name: 'ls', input_schema: { type: 'object' } }] }),
    );
    for await (const e of stream) types.push(e.type === 'content_block_delta' ? `delta:${e.delta.type}` : e.type);
    const msg = await stream.finalMessage();
    assert.deepEqual(types, [
      'message_start',
      'content_block_start',
      'delta:thinking_delta',
      'delta:signature_delta',
      'content_block_stop',
      'content_block_start',
      'delta:text_delta',
      'content_block_stop',
      'content_block_start',
      'delta:input_json_delta',
      'delta:input_json_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const thinking = msg.content[0];
    assert.ok(
      thinking?.type === 'thinking' && thinking.thinking === 'Consider the question.' && thinking.signature.length > 20,
    );
  });

  it('writes raw SSE frames the API way: event names, JSON data, a ping after the first block start', async () => {
    fake.server.script({ text: 'Hi there' });
    const res = await rawPost(fake.server, '/v1/messages', { ...minimalRequest(), stream: true });
    assert.equal(res.status, 200);
    assert.match(String(res.headers.get('content-type')), /^text\/event-stream/);
    assert.match(String(res.headers.get('request-id')), /^req_011/);
    const frames = String(res.json).trim().split('\n\n');
    const names = frames.map((f) => /^event: (\S+)\ndata: \{/.exec(f)?.[1]);
    assert.deepEqual(names, [
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const f of frames) {
      const [, name, data] = /^event: (\S+)\ndata: (.*)$/s.exec(f) ?? [];
      assert.equal((JSON.parse(String(data)) as { type: string }).type, name, 'data.type repeats the event name');
    }
  });

  it('answers non-streaming create() with the same content and usage shape', async () => {
    fake.server.script({ text: 'Plain answer.' });
    const msg = await fake.client.messages.create(minimalRequest());
    assert.deepEqual(msg.content, [{ type: 'text', text: 'Plain answer.' }]);
    assert.equal(msg.type, 'message');
    assert.equal(msg.role, 'assistant');
    assert.match(msg.id, /^msg_01/);
    assert.equal(msg.stop_reason, 'end_turn');
    assert.equal(msg.usage.cache_read_input_tokens, 0);
    assert.equal(msg.usage.input_tokens, fake.server.requests[0]?.inputTokens);
    assert.equal(fake.server.requests[0]?.stream, false);
  });

  it('count_tokens returns the same input count a message request is billed for', async () => {
    const body = minimalRequest({
      system: 'You are terse.',
      messages: [{ role: 'user', content: 'Count these words, please: one two three.' }],
    });
    const counted = await fake.client.messages.countTokens({
      model: body.model,
      system: body.system,
      messages: body.messages,
    });
    const msg = await fake.client.messages.create(body);
    assert.ok(counted.input_tokens > 10);
    assert.equal(counted.input_tokens, msg.usage.input_tokens);
    assert.equal(fake.server.allRequests[0]?.path, '/v1/messages/count_tokens');
    assert.equal(fake.server.allRequests[0]?.outcome, 'counted');
  });

  it('without a script answers a labelled, deterministic echo of the last user text (fake-claude accepted)', async () => {
    const a = await fake.client.messages.create(
      minimalRequest({ model: 'fake-claude', messages: [{ role: 'user', content: 'What is   the plan?' }] }),
    );
    const b = await fake.client.messages.create(
      minimalRequest({ model: 'fake-claude', messages: [{ role: 'user', content: 'What is   the plan?' }] }),
    );
    assert.deepEqual(a.content, [
      { type: 'text', text: '[fake-claude scripted test model] you said: "What is the plan?".' },
    ]);
    assert.deepEqual(b.content, a.content);
    assert.equal(a.model, 'fake-claude');
  });

  it('honours scripted stop reasons, and cuts an answer longer than max_tokens like the API', async () => {
    fake.server.script(
      { text: 'I cannot help with that.', stopReason: 'refusal' },
      { text: 'one two three four five six seven eight nine ten' },
    );
    const refused = await fake.client.messages.create(minimalRequest());
    assert.equal(refused.stop_reason, 'refusal');
    const cut = await fake.client.messages.stream(minimalRequest({ max_tokens: 4 })).finalMessage();
    assert.equal(cut.stop_reason, 'max_tokens');
    assert.deepEqual(cut.content, [{ type: 'text', text: 'one two three four' }]);
    assert.equal(cut.usage.output_tokens, 4);
  });

  it('waits delayMs before the first byte and deltaDelayMs between events (the waits recorded, not timed)', async () => {
    const log: string[] = [];
    const paced = await startFakeAnthropic({ sleep: async (ms) => void log.push(`wait ${ms}`) });
    try {
      paced.script({ text: 'slow answer in pieces', chunkChars: 5, delayMs: 150, deltaDelayMs: 20 });
      const stream = clientFor(paced).messages.stream(minimalRequest());
      let events = 0;
      stream.on('streamEvent', () => {
        if (events++ === 0) log.push('first event');
      });
      await stream.finalMessage();
      assert.equal(log[0], 'wait 150', 'the delay comes before any byte of the response');
      assert.ok(log.indexOf('first event') > 0, 'the first event arrives after it');
      const pauses = log.slice(1).filter((l) => l !== 'first event');
      assert.ok(
        pauses.every((l) => l === 'wait 20'),
        JSON.stringify(log),
      );
      // One pause between every two events the server wrote (the SDK does not surface pings).
      assert.ok(events >= 9 && pauses.length >= events - 1, `${pauses.length} pauses for ${events} events`);
    } finally {
      await paced.close();
    }
  });

  it('only answers a step to a request its match fits', async () => {
    fake.server.script({ text: 'summary', match: { model: 'claude-haiku-4-5' } }, { text: 'main answer' });
    const main = await fake.client.messages.create(minimalRequest());
    const summary = await fake.client.messages.create(minimalRequest({ model: 'claude-haiku-4-5' }));
    assert.deepEqual(main.content, [{ type: 'text', text: 'main answer' }]);
    assert.deepEqual(summary.content, [{ type: 'text', text: 'summary' }]);
  });
});
