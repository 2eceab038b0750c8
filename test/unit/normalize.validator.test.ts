import { strict as assert } from 'node:assert';
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic';
import { clientFor } from '../fake-anthropic/testkit';
import { refusal } from './support/normalizeFixtures';

type Json = Record<string, unknown>;

/** A small valid request with a tool round. */
function body(model = 'claude-sonnet-4-6'): Json & { messages: Json[]; system: Json[]; tools: Json[] } {
  return {
    model,
    max_tokens: 512,
    system: [{ type: 'text', text: 'You are a coding agent.' }],
    tools: [{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object' } }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Read a.ts 😀' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'const a = 1;' }] },
    ],
  };
}

const at = (b: ReturnType<typeof body>, m: number, i = 0): Json => (b.messages[m]?.content as Json[])[i] as Json;

describe('fake Anthropic validator: the rules normalize guards against', () => {
  it('accepts the base request, valid surrogate pairs (emoji) included', () => {
    assert.equal(refusal(body()), undefined);
  });

  it("refuses a lone high surrogate anywhere with the API's JSON error and its position in the compact body", () => {
    const b = body();
    at(b, 0).text = 'cut \uD83D';
    const message = refusal(b) ?? '';
    const match =
      /^The request body is not valid JSON: no low surrogate in string: line 1 column (\d+) \(char (\d+)\)$/.exec(
        message,
      );
    assert.ok(match, message);
    const char = Number(match[2]);
    assert.equal(Number(match[1]), char + 1);
    assert.equal(JSON.stringify(b).slice(char, char + 6), '\\ud83d');
  });

  it('refuses a lone low surrogate ("invalid high surrogate"), in keys, tool inputs, results, system and tools alike', () => {
    const edits: Array<(b: ReturnType<typeof body>) => void> = [
      (b) => (at(b, 1).input = { [`k\uDE00`]: 1 }),
      (b) => (at(b, 1).input = { deep: [{ v: 'x\uDE00' }] }),
      (b) => (at(b, 2).content = [{ type: 'text', text: 'r\uDE00' }]),
      (b) => ((b.system[0] as Json).text = 'sys\uDE00'),
      (b) => ((b.tools[0] as Json).description = 'd\uDE00'),
    ];
    for (const edit of edits) {
      const b = body();
      edit(b);
      assert.match(
        refusal(b) ?? '',
        /^The request body is not valid JSON: invalid high surrogate in string: line 1 column \d+/,
      );
    }
  });

  it('refuses a final assistant message on Claude 4.6 models (prefill removed), takes it on older ones', () => {
    const prefill = (model: string) => {
      const b = body(model);
      b.messages.push({ role: 'assistant', content: [{ type: 'text', text: 'The file' }] });
      return refusal(b);
    };
    assert.equal(
      prefill('claude-sonnet-4-6'),
      'This model does not support assistant message prefill. The conversation must end with a user message.',
    );
    assert.equal(
      prefill('claude-opus-4-6'),
      'This model does not support assistant message prefill. The conversation must end with a user message.',
    );
    assert.equal(prefill('claude-sonnet-4-5'), undefined);
    assert.equal(prefill('claude-sonnet-4-20250514'), undefined);
  });

  it('refuses a final assistant tool call (no result can follow), even where a prefill is allowed', () => {
    const b = body('claude-sonnet-4-5');
    b.messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_2', name: 'read_file', input: {} }],
    });
    b.messages.splice(2, 1);
    b.messages.splice(2, 0, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }] });
    assert.match(refusal(b) ?? '', /`tool_use` ids were found without `tool_result` blocks immediately after: toolu_2/);
  });

  describe('over HTTP, through the real SDK', () => {
    let server: FakeAnthropic;
    before(async () => {
      server = await startFakeAnthropic();
    });
    after(() => server.close());

    it('answers 400 invalid_request_error for a lone surrogate and records the request as invalid', async () => {
      const b = body();
      at(b, 0).text = 'cut \uD83D';
      await assert.rejects(
        clientFor(server).messages.create(b as unknown as MessageCreateParamsNonStreaming),
        (e: unknown) => {
          assert.ok(e instanceof Anthropic.APIError);
          assert.equal(e.status, 400);
          assert.match(
            String((e.error as { error?: { message?: string } }).error?.message),
            /no low surrogate in string/,
          );
          return true;
        },
      );
      assert.equal(server.invalidRequests.length, 1);
    });
  });
});
