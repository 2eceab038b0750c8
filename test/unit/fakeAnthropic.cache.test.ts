import { strict as assert } from 'node:assert';
import type {
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import { filler } from '../fake-anthropic/testkit';
import { useFakeAnthropic } from './support/fakeServer';

const BP = { type: 'ephemeral' } as const;
const MIN = 60_000;

const tools: Tool[] = [
  {
    name: 'read_file',
    description: 'Read a file of the workspace',
    input_schema: { type: 'object', properties: { path: { type: 'string' } } },
  },
  {
    name: 'run',
    description: 'Run a shell command',
    input_schema: { type: 'object', properties: { command: { type: 'string' } } },
  },
];

/** tools + a 1200-token system prompt with a breakpoint on the system block. */
function request(userText: string, system = filler(1200), ttl?: '1h'): MessageCreateParamsNonStreaming {
  const sys: TextBlockParam[] = [{ type: 'text', text: system, cache_control: ttl ? { type: 'ephemeral', ttl } : BP }];
  return {
    model: 'claude-sonnet-4-6',
    max_tokens: 512,
    tools,
    system: sys,
    messages: [{ role: 'user', content: userText }],
  };
}

describe('fake Anthropic: prompt caching', () => {
  let now = Date.UTC(2025, 0, 1);
  const fake = useFakeAnthropic({ clock: () => now });
  beforeEach(() => {
    now = Date.UTC(2025, 0, 1);
  });

  const usage = async (body: MessageCreateParamsNonStreaming) => (await fake.client.messages.create(body)).usage;
  const total = async (body: MessageCreateParamsNonStreaming) =>
    (
      await fake.client.messages.countTokens({
        model: body.model,
        messages: body.messages,
        ...(body.system ? { system: body.system } : {}),
        ...(body.tools ? { tools: body.tools } : {}),
      })
    ).input_tokens;

  it('writes a stable tools + system prefix on the first request and reads it on the second', async () => {
    const first = await usage(request('first question'));
    assert.equal(first.cache_read_input_tokens, 0);
    assert.ok((first.cache_creation_input_tokens ?? 0) > 1024, `written ${first.cache_creation_input_tokens}`);
    assert.equal(first.cache_creation?.ephemeral_5m_input_tokens, first.cache_creation_input_tokens);
    assert.equal(first.cache_creation_input_tokens! + first.input_tokens, await total(request('first question')));

    const second = await usage(request('a different, longer second question'));
    assert.equal(second.cache_read_input_tokens, first.cache_creation_input_tokens);
    assert.equal(second.cache_creation_input_tokens, 0);
    assert.equal(
      second.input_tokens,
      (await total(request('a different, longer second question'))) - second.cache_read_input_tokens!,
    );
    assert.deepEqual(
      {
        hits: fake.server.cacheStats().hits,
        misses: fake.server.cacheStats().misses,
        entries: fake.server.cacheStats().entries,
      },
      { hits: 1, misses: 1, entries: 1 },
    );
  });

  it('misses when the system prompt changed', async () => {
    await usage(request('q'));
    const changed = await usage(request('q', filler(1200, 1)));
    assert.equal(changed.cache_read_input_tokens, 0);
    assert.ok((changed.cache_creation_input_tokens ?? 0) > 1024);
  });

  it('expires entries after the TTL on the injected clock, refreshing them on every read', async () => {
    await usage(request('q'));
    now += 4 * MIN;
    assert.ok((await usage(request('q'))).cache_read_input_tokens! > 0, 'read after 4 min');
    now += 4 * MIN;
    assert.ok(
      (await usage(request('q'))).cache_read_input_tokens! > 0,
      'read 8 min after the write: the read refreshed it',
    );
    now += 5 * MIN + 1;
    const expired = await usage(request('q'));
    assert.equal(expired.cache_read_input_tokens, 0, 'missed after 5 min without a read');
    assert.ok(expired.cache_creation_input_tokens! > 0);
    fake.server.advanceClock(5 * MIN + 1);
    assert.equal((await usage(request('q'))).cache_read_input_tokens, 0, 'advanceClock() moves the same clock');
  });

  it('honours ttl: "1h"', async () => {
    const written = await usage(request('q', filler(1200), '1h'));
    assert.equal(written.cache_creation?.ephemeral_1h_input_tokens, written.cache_creation_input_tokens);
    now += 50 * MIN;
    assert.equal(
      (await usage(request('q', filler(1200), '1h'))).cache_read_input_tokens,
      written.cache_creation_input_tokens,
    );
    now += 61 * MIN;
    assert.equal((await usage(request('q', filler(1200), '1h'))).cache_read_input_tokens, 0);
  });

  it('does not cache a prefix under the model minimum (1024 Sonnet, 4096 Haiku 4.5)', async () => {
    const short = () => usage(request('q', filler(400)));
    assert.equal((await short()).cache_creation_input_tokens, 0);
    assert.equal((await short()).cache_read_input_tokens, 0);
    const haiku = () => usage({ ...request('q', filler(2000)), model: 'claude-haiku-4-5' });
    assert.equal((await haiku()).cache_creation_input_tokens, 0);
    assert.equal((await haiku()).cache_read_input_tokens, 0);
    const sonnet = () => usage(request('q', filler(2000)));
    await sonnet();
    assert.ok((await sonnet()).cache_read_input_tokens! > 2000, 'the same prefix is cached for Sonnet');
  });

  describe('the 20-block lookback', () => {
    /** A 1200-token first user message (breakpoint on it unless `bpOnFirst` is false), then `extra` more blocks. */
    function conversation(
      extra: number,
      opts: { bpOnFirst?: boolean; bpAt?: number } = {},
    ): MessageCreateParamsNonStreaming {
      const blocks: TextBlockParam[] = Array.from({ length: extra }, (_, i) => ({ type: 'text', text: `note ${i}` }));
      if (opts.bpAt !== undefined) blocks[opts.bpAt] = { ...(blocks[opts.bpAt] as TextBlockParam), cache_control: BP };
      if (blocks.length > 0) blocks[blocks.length - 1] = { ...(blocks.at(-1) as TextBlockParam), cache_control: BP };
      const first: TextBlockParam = {
        type: 'text',
        text: filler(1200),
        ...(opts.bpOnFirst === false ? {} : { cache_control: BP }),
      };
      const messages: MessageParam[] = [{ role: 'user', content: [first] }];
      if (extra > 0) messages.push({ role: 'assistant', content: 'ok' }, { role: 'user', content: blocks.slice(1) });
      return { model: 'claude-sonnet-4-6', max_tokens: 256, messages };
    }

    it('finds the previous breakpoint up to 20 blocks back', async () => {
      const written = await usage(conversation(0));
      assert.ok(written.cache_creation_input_tokens! > 1024);
      const later = await usage(conversation(20, { bpOnFirst: false }));
      assert.equal(
        later.cache_read_input_tokens,
        written.cache_creation_input_tokens,
        '20 blocks later the lookback still finds it',
      );
    });

    it('a read through the lookback refreshes the entry it found', async () => {
      const written = await usage(conversation(0));
      now += 4 * MIN;
      assert.equal(
        (await usage(conversation(8, { bpOnFirst: false }))).cache_read_input_tokens,
        written.cache_creation_input_tokens,
      );
      now += 4 * MIN;
      assert.equal(
        (await usage(conversation(0))).cache_read_input_tokens,
        written.cache_creation_input_tokens,
        '8 min after its write, 4 after its last read',
      );
    });

    it('misses more than 20 blocks after it, unless a second breakpoint is placed within reach', async () => {
      const written = await usage(conversation(0));
      const far = await usage(conversation(21, { bpOnFirst: false }));
      assert.equal(far.cache_read_input_tokens, 0, '21 blocks later: out of the lookback');
      fake.server.reset();
      await usage(conversation(0));
      const bridged = await usage(conversation(21, { bpOnFirst: false, bpAt: 5 }));
      assert.equal(
        bridged.cache_read_input_tokens,
        written.cache_creation_input_tokens,
        'a breakpoint 6 blocks later finds it',
      );
      assert.ok(bridged.cache_creation_input_tokens! > 0, 'and the rest up to the last breakpoint is written');
    });

    it('reads the longest hit and counts input_tokens after the last breakpoint', async () => {
      const body = conversation(6, { bpAt: 3 });
      const first = await usage(body);
      const second = await usage(body);
      assert.equal(
        second.cache_read_input_tokens,
        first.cache_creation_input_tokens,
        'the whole prefix up to the last breakpoint is read',
      );
      assert.equal(second.input_tokens, first.input_tokens);
      assert.equal(second.cache_creation_input_tokens, 0);
      assert.ok(
        second.input_tokens < 20,
        `only the frame after the last breakpoint is uncached (${second.input_tokens})`,
      );
    });
  });
});
