import { strict as assert } from 'node:assert';
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { useFakeAnthropic } from './support/fakeServer';

type Json = Record<string, unknown>;
type Msg = { role: string; content: unknown };

/** A valid conversation with two tools, a multi-tool round, thinking and a final user turn. */
function validBody(): Json & { messages: Msg[]; tools: Json[] } {
  return {
    model: 'claude-sonnet-4-6',
    max_tokens: 1024,
    system: [{ type: 'text', text: 'You are a coding agent.' }],
    tools: [
      {
        name: 'read_file',
        description: 'Read a file',
        input_schema: { type: 'object', properties: { path: { type: 'string' } } },
      },
      { name: 'grep', input_schema: { type: 'object' } },
    ],
    messages: [
      { role: 'user', content: 'Find the TODOs in a.ts' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_01A', name: 'read_file', input: { path: 'a.ts' } },
          { type: 'tool_use', id: 'call-2_b', name: 'grep', input: { pattern: 'TODO' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01A', content: 'line 1\n// TODO fix' },
          {
            type: 'tool_result',
            tool_use_id: 'call-2_b',
            content: [{ type: 'text', text: 'a.ts:2 TODO fix' }],
            is_error: false,
          },
          { type: 'text', text: '<system-reminder>the file is open</system-reminder>' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'One TODO.', signature: 'c2lnbmF0dXJl' },
          { type: 'text', text: 'One TODO, on line 2.' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Thanks', cache_control: { type: 'ephemeral' } }] },
    ],
  };
}

type Body = ReturnType<typeof validBody>;
const block = (b: Body, m: number, i: number): Json => (b.messages[m]?.content as Json[])[i] as Json;

interface Case {
  readonly name: string;
  readonly rule: string;
  readonly edit: (b: Body) => void;
  readonly message: RegExp;
  readonly status?: number;
}

const cases: readonly Case[] = [
  {
    name: 'model is required',
    rule: 'model_required',
    edit: (b) => delete b.model,
    message: /^model: Field required$/,
  },
  {
    name: 'max_tokens is required',
    rule: 'max_tokens',
    edit: (b) => delete b.max_tokens,
    message: /^max_tokens: Field required$/,
  },
  {
    name: 'max_tokens must be positive',
    rule: 'max_tokens',
    edit: (b) => (b.max_tokens = 0),
    message: /^max_tokens: Input should be greater than or equal to 1$/,
  },
  {
    name: 'max_tokens must be an integer',
    rule: 'max_tokens',
    edit: (b) => (b.max_tokens = 10.5),
    message: /^max_tokens: Input should be a valid integer$/,
  },
  {
    name: 'max_tokens within the model limit',
    rule: 'max_tokens_limit',
    edit: (b) => (b.max_tokens = 100_000),
    message: /^max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-6$/,
  },
  {
    name: 'messages must not be empty',
    rule: 'messages_nonempty',
    edit: (b) => (b.messages = []),
    message: /^messages: at least one message is required$/,
  },
  {
    name: 'the first message is from the user',
    rule: 'first_user',
    edit: (b) => b.messages.unshift({ role: 'assistant', content: 'Hi.' }),
    message: /^messages: first message must use the "user" role$/,
  },
  {
    name: 'roles alternate (no merging of same-role messages)',
    rule: 'roles_alternate',
    edit: (b) => b.messages.push({ role: 'user', content: 'again' }),
    message:
      /^messages\.5: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row$/,
  },
  {
    name: 'role is user or assistant',
    rule: 'role',
    edit: (b) => ((b.messages[4] as Msg).role = 'system'),
    message: /^messages\.4\.role: Input should be 'user' or 'assistant'$/,
  },
  {
    name: 'known block types only',
    rule: 'block_type',
    edit: (b) => (block(b, 4, 0).type = 'markdown'),
    message:
      /^messages\.4\.content\.0: Input tag 'markdown' found using 'type' does not match any of the expected tags: 'text', 'image', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'document', 'compaction', 'server_tool_use', 'tool_search_tool_result'$/,
  },
  {
    name: 'no extra fields on blocks (no pipeline metadata leaks)',
    rule: 'extra_field',
    edit: (b) => (block(b, 1, 0).meta = { id: 'b1' }),
    message: /^messages\.1\.content\.0\.text\.meta: Extra inputs are not permitted$/,
  },
  {
    name: 'no empty text blocks',
    rule: 'empty_text',
    edit: (b) => (block(b, 1, 0).text = ''),
    message: /^messages\.1\.content\.0: text content blocks must be non-empty$/,
  },
  {
    name: 'no whitespace-only text blocks',
    rule: 'empty_text',
    edit: (b) => (block(b, 2, 2).text = ' \n\t '),
    message: /^messages\.2\.content\.2: text content blocks must contain non-whitespace text$/,
  },
  {
    name: 'no empty string content',
    rule: 'empty_text',
    edit: (b) => ((b.messages[0] as Msg).content = ''),
    message: /^messages\.0: text content blocks must be non-empty$/,
  },
  {
    name: 'no empty content lists',
    rule: 'empty_content',
    edit: (b) => ((b.messages[0] as Msg).content = []),
    message: /^messages\.0: all messages must have non-empty content except for the optional final assistant message$/,
  },
  {
    name: 'tool_use ids match the pattern',
    rule: 'tool_use_id',
    edit: (b) => (block(b, 1, 1).id = 'toolu 01/A'),
    message: /^messages\.1\.content\.1\.tool_use\.id: String should match pattern '\^\[a-zA-Z0-9_-\]\+\$'$/,
  },
  {
    name: 'tool_use ids are unique',
    rule: 'tool_use_unique',
    edit: (b) => ((block(b, 1, 2).id = 'toolu_01A'), (block(b, 2, 1).tool_use_id = 'toolu_01A')),
    message: /^messages\.1\.content\.2: `tool_use` ids must be unique$/,
  },
  {
    name: 'tool_use input is an object',
    rule: 'tool_use_input',
    edit: (b) => (block(b, 1, 1).input = 'a.ts'),
    message: /^messages\.1\.content\.1\.tool_use\.input: Input should be a valid dictionary$/,
  },
  {
    name: 'tool_use only in assistant messages',
    rule: 'block_role',
    edit: (b) => ((b.messages[4] as Msg).content = [{ type: 'tool_use', id: 'toolu_x', name: 'grep', input: {} }]),
    message: /^messages\.4\.content\.0: `tool_use` blocks can only be in `assistant` messages$/,
  },
  {
    name: 'every tool_use is answered in the next message',
    rule: 'tool_use_unanswered',
    edit: (b) => (b.messages[2]?.content as Json[]).splice(1, 1),
    message:
      /^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: call-2_b\. Each `tool_use` block must have a corresponding `tool_result` block in the next message\.$/,
  },
  {
    name: 'tool_result blocks come first',
    rule: 'tool_result_first',
    edit: (b) => (b.messages[2]?.content as Json[]).reverse(),
    message:
      /^messages\.2\.content\.1: tool_result blocks must come first in the user message, before any other content$/,
  },
  {
    name: 'tool_result answers a tool_use of the previous message',
    rule: 'tool_result_orphan',
    edit: (b) => (block(b, 2, 1).tool_use_id = 'toolu_01Z'),
    message:
      /^messages\.2\.content\.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01Z\. Each `tool_result` block must have a corresponding `tool_use` block in the previous message\.$/,
  },
  {
    name: 'no tool_result after a message without tool_use',
    rule: 'tool_result_orphan',
    edit: (b) =>
      ((b.messages[4] as Msg).content = [{ type: 'tool_result', tool_use_id: 'toolu_01A', content: 'again' }]),
    message:
      /^messages\.4\.content\.0: tool_result block\(s\) provided when previous message does not contain any tool_use blocks$/,
  },
  {
    name: 'one tool_result per tool_use',
    rule: 'tool_result_duplicate',
    edit: (b) =>
      (b.messages[2]?.content as Json[]).splice(1, 0, {
        type: 'tool_result',
        tool_use_id: 'toolu_01A',
        content: 'dup',
      }),
    message: /^messages\.2\.content\.1: each tool_use must have a single result/,
  },
  {
    name: 'thinking blocks need a signature',
    rule: 'thinking_signature',
    edit: (b) => delete block(b, 3, 0).signature,
    message: /^messages\.3\.content\.0\.thinking\.signature: Field required$/,
  },
  {
    name: 'thinking blocks cannot carry cache_control',
    rule: 'extra_field',
    edit: (b) => (block(b, 3, 0).cache_control = { type: 'ephemeral' }),
    message: /^messages\.3\.content\.0\.thinking\.cache_control: Extra inputs are not permitted$/,
  },
  {
    name: 'cache_control type is ephemeral',
    rule: 'cache_control_type',
    edit: (b) => (block(b, 4, 0).cache_control = { type: 'persistent' }),
    message:
      /^messages\.4\.content\.0\.text\.cache_control: Input tag 'persistent' found using 'type' does not match any of the expected tags: 'ephemeral'$/,
  },
  {
    name: 'cache_control ttl is 5m or 1h',
    rule: 'cache_control_type',
    edit: (b) => (block(b, 4, 0).cache_control = { type: 'ephemeral', ttl: '10m' }),
    message: /^messages\.4\.content\.0\.text\.cache_control\.ephemeral\.ttl: Input should be '5m' or '1h'$/,
  },
  {
    name: 'at most 4 cache_control breakpoints',
    rule: 'cache_control_limit',
    edit: (b) => {
      for (const t of b.tools) t.cache_control = { type: 'ephemeral' };
      (b.system as Json[])[0]!.cache_control = { type: 'ephemeral' };
      block(b, 1, 0).cache_control = { type: 'ephemeral' };
    },
    message: /^A maximum of 4 blocks with cache_control may be provided\. Found 5\.$/,
  },
  {
    name: "no ttl='1h' breakpoint after a 5m one",
    rule: 'cache_control_ttl_order',
    edit: (b) => (
      (b.tools[0]!.cache_control = { type: 'ephemeral' }),
      ((b.system as Json[])[0]!.cache_control = { type: 'ephemeral', ttl: '1h' })
    ),
    message: /^a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block/,
  },
  {
    name: 'tools need an input_schema',
    rule: 'tools',
    edit: (b) => delete b.tools[1]!.input_schema,
    message: /^tools\.1\.custom\.input_schema: Field required$/,
  },
  {
    name: 'tool input_schema is of type object',
    rule: 'tools',
    edit: (b) => (b.tools[0]!.input_schema = { type: 'array' }),
    message: /^tools\.0\.custom\.input_schema\.type: Input should be 'object'$/,
  },
  {
    name: 'tools need a name',
    rule: 'tools',
    edit: (b) => delete b.tools[0]!.name,
    message: /^tools\.0\.custom\.name: Field required$/,
  },
  {
    name: 'tool names are unique',
    rule: 'tools_unique',
    edit: (b) => (b.tools[1]!.name = 'read_file'),
    message: /^tools: Tool names must be unique\.$/,
  },
  {
    name: 'system is a string or text blocks',
    rule: 'system',
    edit: (b) => (b.system = 42),
    message: /^system: Input should be a valid string or a valid list$/,
  },
  {
    name: 'system blocks are text blocks',
    rule: 'system',
    edit: (b) => (b.system = [{ type: 'image', source: {} }]),
    message: /^system\.0\.type: Input should be 'text'$/,
  },
  {
    name: 'system text blocks are non-empty',
    rule: 'empty_text',
    edit: (b) => (b.system = [{ type: 'text', text: '' }]),
    message: /^system\.0: text content blocks must be non-empty$/,
  },
  {
    name: 'no unknown top-level fields',
    rule: 'extra_field',
    edit: (b) => (b.messages_v2 = []),
    message: /^messages_v2: Extra inputs are not permitted$/,
  },
  {
    name: 'a final assistant prefill has no trailing whitespace (a model that takes prefill)',
    rule: 'final_assistant_whitespace',
    edit: (b) => ((b.model = 'fake-claude'), b.messages.push({ role: 'assistant', content: 'Sure, ' })),
    message: /^messages: final assistant content cannot end with trailing whitespace$/,
  },
  {
    name: 'the model exists (404)',
    rule: 'model_not_found',
    edit: (b) => (b.model = 'gpt-4o'),
    message: /^model: gpt-4o$/,
    status: 404,
  },
];

describe('fake Anthropic: request validation (real SDK, table-driven)', () => {
  const fake = useFakeAnthropic();

  const send = (body: unknown) => fake.client.messages.create(body as MessageCreateParamsNonStreaming);

  it('accepts the valid multi-tool conversation every case starts from', async () => {
    const msg = await send(validBody());
    assert.equal(msg.type, 'message');
    assert.equal(fake.server.requests.length, 1);
    assert.equal(fake.server.requests[0]?.valid, true);
    assert.deepEqual(fake.server.invalidRequests, []);
  });

  for (const c of cases) {
    it(`refuses: ${c.name}`, async () => {
      const body = validBody();
      c.edit(body);
      const status = c.status ?? 400;
      await assert.rejects(send(body), (e: unknown) => {
        assert.ok(e instanceof Anthropic.APIError, `an APIError, got ${String(e)}`);
        assert.equal(e.status, status);
        const err = (e.error as { error?: { type?: string; message?: string } } | undefined)?.error;
        assert.equal(err?.type, status === 404 ? 'not_found_error' : 'invalid_request_error');
        assert.match(String(err?.message), c.message);
        assert.match(String(e.requestID), /^req_011/);
        return true;
      });
      const rec = fake.server.requests.at(-1);
      assert.equal(rec?.valid, false);
      assert.equal(rec?.error?.rule, c.rule);
      assert.equal(fake.server.invalidRequests.length, 1);
    });
  }

  it('does not let an invalid request consume a scripted step', async () => {
    fake.server.script({ text: 'for the valid one' });
    const bad = validBody();
    bad.messages.push({ role: 'user', content: 'again' });
    await assert.rejects(send(bad), Anthropic.BadRequestError);
    const msg = await send(validBody());
    assert.deepEqual(msg.content, [{ type: 'text', text: 'for the valid one' }]);
  });
});
