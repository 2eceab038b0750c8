import { strict as assert } from 'node:assert';
import type { TextBlockParam, ToolResultBlockParam, ToolUseBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { Block, Message, ToolResultBlock } from '../../src/core/conversation/conversationModel';
import {
  describeRepairs,
  isValidSequence,
  normalizeState,
  NO_REPAIRS,
  type RepairKind,
} from '../../src/core/normalize/normalize';
import { CONTINUE_PLACEHOLDER, INTERRUPTED_CALL, START_PLACEHOLDER } from '../../src/core/normalize/standInAnswers';
import { serializeMessage } from '../../src/core/pipeline/serialize';
import { EMPTY_ERROR_TEXT } from '../../src/core/normalize/blocks';
import { assertAccepted, NBuild, pipeline, refusal, stateOf } from './support/normalizeFixtures';

type Content = ReadonlyArray<{ type: string } & Record<string, unknown>>;
const contentOf = (m: { content: unknown }): Content => m.content as Content;
const kinds = (repairs: readonly { kind: RepairKind }[]) => repairs.map((r) => r.kind);

/** Prepares `messages`, checks the fake API accepts the request, and returns it with the repair kinds. */
function prepared(messages: Message[], overrides = {}) {
  const state = stateOf(messages, overrides);
  const p = pipeline().prepare(state);
  assertAccepted(p.params);
  return { ...p, kinds: kinds(p.repairs), messages: p.params.messages };
}

describe('normalize: every repair makes the request valid', () => {
  it('passes a valid conversation through untouched: the same state, no repairs, the serializer memo hit', () => {
    const b = new NBuild('v');
    const use = b.toolUse('read_file', { path: 'a.ts' });
    const messages = [
      b.user(b.text('hi')),
      b.assistant(b.text('Reading.', 'assistant'), use),
      b.user(b.toolResult(use.id, 'file'), b.text('go on')),
      b.assistant(b.thinking('hm', 'sig'), b.text('Done.', 'assistant')),
      b.user(b.text('thanks')),
    ];
    const state = stateOf(messages);
    const n = normalizeState(state);
    assert.equal(n.state, state);
    assert.equal(n.repairs, NO_REPAIRS);
    assert.ok(isValidSequence(messages));
    const p = prepared(messages);
    assert.equal(p.sent.messages, messages);
    p.messages.forEach((m, i) => {
      const memo = serializeMessage(messages[i] as Message);
      // A breakpoint is applied on a shallow copy; every other message is the memoised param itself.
      if (m !== memo)
        assert.deepEqual(
          contentOf(m).map(({ cache_control: _c, ...rest }) => rest),
          memo.content,
        );
    });
    assert.ok(
      p.messages.filter((m, i) => m === serializeMessage(messages[i] as Message)).length >=
        messages.length - p.anchors.length,
    );
  });

  it('answers a tool_use left without result with an "interrupted" error result, first in the next user message', () => {
    const b = new NBuild('i');
    const use = b.toolUse('read_file', { path: 'a.ts' });
    const p = prepared([b.user(b.text('hi')), b.assistant(use), b.user(b.text('where were we?'))]);
    assert.deepEqual(p.kinds, ['tool_use_interrupted']);
    const [first, second] = contentOf(p.messages[2] as { content: unknown });
    assert.deepEqual(first, { type: 'tool_result', tool_use_id: use.id, content: INTERRUPTED_CALL, is_error: true });
    assert.equal(second?.text, 'where were we?');
  });

  it('appends a user message with the interrupted results when the request would end with the tool call', () => {
    const b = new NBuild('e');
    const u1 = b.toolUse('read_file', { path: 'a' });
    const u2 = b.toolUse('search', { q: 'b' });
    const p = prepared([b.user(b.text('hi')), b.assistant(b.text('Two calls.', 'assistant'), u1, u2)]);
    assert.deepEqual(p.kinds, ['tool_use_interrupted', 'tool_use_interrupted']);
    assert.equal(p.messages.length, 3);
    assert.equal(p.messages[2]?.role, 'user');
    assert.deepEqual(
      contentOf(p.messages[2] as { content: unknown }).map((c) => c.tool_use_id),
      [u1.id, u2.id],
    );
  });

  it('puts a user message with the interrupted results between a tool call and the assistant message after it', () => {
    const b = new NBuild('b');
    const use = b.toolUse('read_file', { path: 'a' });
    const p = prepared([
      b.user(b.text('hi')),
      b.assistant(use),
      b.assistant(b.text('Never mind.', 'assistant')),
      b.user(b.text('ok')),
    ]);
    assert.deepEqual(p.kinds, ['tool_use_interrupted']);
    assert.deepEqual(
      p.messages.map((m) => m.role),
      ['user', 'assistant', 'user', 'assistant', 'user'],
    );
    assert.equal(contentOf(p.messages[2] as { content: unknown })[0]?.tool_use_id, use.id);
  });

  it('appends "Continue." after a final assistant answer (Claude 4.6 refuses a prefill)', () => {
    const b = new NBuild('c');
    const messages = [b.user(b.text('hi')), b.assistant(b.text('Hello!', 'assistant'))];
    assert.match(refusal(stateToRawParams(messages)) ?? '', /does not support assistant message prefill/);
    const p = prepared(messages);
    assert.deepEqual(p.kinds, ['ends_with_assistant']);
    assert.equal(p.messages.at(-1)?.role, 'user');
    assert.equal(contentOf(p.messages.at(-1) as { content: unknown })[0]?.text, CONTINUE_PLACEHOLDER);
  });

  it('turns a tool_result whose call is not in the message before into text', () => {
    const b = new NBuild('o');
    const p = prepared([
      b.user(b.text('hi')),
      b.assistant(b.text('Hello.', 'assistant')),
      b.user(b.toolResult('toolu_gone', 'old output'), b.text('and now?')),
    ]);
    assert.deepEqual(p.kinds, ['tool_result_orphan']);
    const content = contentOf(p.messages[2] as { content: unknown });
    assert.equal(
      content[0]?.text,
      '[Result of an earlier tool call toolu_gone, whose call is no longer in the history]\nold output',
    );
    assert.equal(
      content.some((c) => c.type === 'tool_result'),
      false,
    );
  });

  it('turns a second result for one call into text, keeps the first', () => {
    const b = new NBuild('d');
    const use = b.toolUse('read_file', {});
    const p = prepared([
      b.user(b.text('hi')),
      b.assistant(use),
      b.user(b.toolResult(use.id, 'one'), b.toolResult(use.id, 'two')),
    ]);
    assert.deepEqual(p.kinds, ['tool_result_duplicate']);
    const content = contentOf(p.messages[2] as { content: unknown });
    assert.equal(content[0]?.content, 'one');
    assert.match(
      String(content[1]?.text),
      /^\[A second result of the tool call .*, which was already answered\]\ntwo$/,
    );
  });

  it('moves tool results before the other content of their message', () => {
    const b = new NBuild('m');
    const use = b.toolUse('read_file', {});
    const p = prepared([
      b.user(b.text('hi')),
      b.assistant(use),
      b.user(b.text('<system-reminder>x</system-reminder>', 'reminder'), b.toolResult(use.id, 'out')),
    ]);
    assert.deepEqual(p.kinds, ['tool_result_moved']);
    assert.deepEqual(
      contentOf(p.messages[2] as { content: unknown }).map((c) => c.type),
      ['tool_result', 'text'],
    );
  });

  it('renames a repeated tool_use id, and its result with it', () => {
    const b = new NBuild('r');
    const first = b.toolUse('read_file', { path: 'a' });
    const again = { ...b.toolUse('read_file', { path: 'b' }), id: first.id };
    const p = prepared([
      b.user(b.text('hi')),
      b.assistant(first),
      b.user(b.toolResult(first.id, 'A')),
      b.assistant(again),
      b.user(b.toolResult(first.id, 'B')),
    ]);
    assert.deepEqual(p.kinds, ['tool_use_id_duplicate']);
    const use = contentOf(p.messages[3] as { content: unknown })[0] as unknown as ToolUseBlockParam;
    const result = contentOf(p.messages[4] as { content: unknown })[0] as unknown as ToolResultBlockParam;
    assert.equal(use.id, `${first.id}_2`);
    assert.equal(result.tool_use_id, use.id);
    assert.equal(result.content, 'B');
  });

  it('merges consecutive user messages, tool results first', () => {
    const b = new NBuild('g');
    const use = b.toolUse('read_file', {});
    const p = prepared([
      b.user(b.text('hi')),
      b.assistant(use),
      b.user(b.text('also this')),
      b.user(b.toolResult(use.id, 'out')),
    ]);
    assert.deepEqual(p.kinds, ['messages_merged', 'tool_result_moved']);
    assert.equal(p.messages.length, 3);
    assert.deepEqual(
      contentOf(p.messages[2] as { content: unknown }).map((c) => c.type),
      ['tool_result', 'text'],
    );
  });

  it('puts a placeholder user message before a conversation that starts with the assistant (e.g. after a compaction)', () => {
    const b = new NBuild('f');
    const p = prepared([b.assistant(b.summary('Earlier we fixed the parser.')), b.user(b.text('next'))]);
    assert.deepEqual(p.kinds, ['first_not_user']);
    assert.deepEqual(p.messages[0], { role: 'user', content: [{ type: 'text', text: START_PLACEHOLDER }] });
  });

  it('replaces lone surrogates everywhere by U+FFFD, valid pairs kept (text, system, summary, tool input keys and values, results)', () => {
    const b = new NBuild('s');
    const half = '\uD83D';
    const use = b.toolUse('write_file', { path: `a${half}.ts`, nested: { [`k${half}`]: [`v\uDE00`, 1] } });
    const messages = [
      b.user(b.text(`emoji 😀 cut ${half}`), b.summary(`sum${half}`)),
      b.assistant(b.text(`ok ${half}`, 'assistant'), use),
      b.user(
        { ...b.toolResult(use.id, 'x'), content: [{ type: 'text', text: `r${half}` }] } as ToolResultBlock,
        b.toolResult('toolu_orphan', `o${half}`),
      ),
    ];
    const system = [{ ...b.text(`sys${half}`, 'system') }];
    assert.match(refusal(stateToRawParams(messages, system)) ?? '', /not valid JSON: no low surrogate in string/);
    const p = prepared(messages, { system });
    const json = JSON.stringify(p.params);
    assert.doesNotMatch(json, /\\ud[89a-f][0-9a-f]{2}/i, 'no lone surrogate escape left');
    assert.ok(json.includes('😀') && json.includes('\uFFFD'));
    assert.deepEqual((contentOf(p.messages[1] as { content: unknown })[1] as unknown as ToolUseBlockParam).input, {
      path: 'a\uFFFD.ts',
      nested: { 'k\uFFFD': ['v\uFFFD', 1] },
    });
    // system, user text, summary, assistant text, tool call, tool result parts, orphan result.
    assert.equal(p.kinds.filter((k) => k === 'lone_surrogate').length, 7);
  });

  it('leaves out empty text, and a message left empty (its neighbours then merge)', () => {
    const b = new NBuild('t');
    const p = prepared([
      b.user(b.text('hi'), b.text('  \n')),
      b.assistant(b.text('', 'assistant')),
      b.user(b.text('more')),
    ]);
    assert.deepEqual(p.kinds, ['empty_text_dropped', 'empty_text_dropped', 'empty_message', 'messages_merged']);
    assert.equal(p.messages.length, 1);
    assert.deepEqual(contentOf(p.messages[0] as { content: unknown }), [
      { type: 'text', text: 'hi' },
      { type: 'text', text: 'more' },
    ]);
  });

  it('leaves out thinking without a signature, keeps signed thinking', () => {
    const b = new NBuild('k');
    const p = prepared([
      b.user(b.text('hi')),
      b.assistant(b.thinking('unsigned'), b.thinking('signed', 'c2ln'), b.text('Answer.', 'assistant')),
      b.user(b.text('ok')),
    ]);
    assert.deepEqual(p.kinds, ['thinking_dropped']);
    assert.deepEqual(
      contentOf(p.messages[1] as { content: unknown }).map((c) => c.type),
      ['thinking', 'text'],
    );
  });

  it('turns an image of an unsupported media type into a note', () => {
    const b = new NBuild('p');
    // Bytes of no format the API takes (a BMP's "BM" header), labelled as a BMP.
    const p = prepared([b.user(b.text('look'), b.image('image/bmp', 'Qk0AAAAA'), b.image('image/png'))]);
    assert.deepEqual(p.kinds, ['image_invalid']);
    const content = contentOf(p.messages[0] as { content: unknown });
    assert.deepEqual(
      content.map((c) => c.type),
      ['text', 'text', 'image'],
    );
    assert.match(String((content[1] as unknown as TextBlockParam).text), /unsupported media type "image\/bmp"/);
  });

  it('sends an image with the media type of its bytes when its label says another format', () => {
    const b = new NBuild('p');
    const jpeg = '/9j/4AAQSkZJRg==';
    const use = b.toolUse('read_file', {});
    const p = prepared([
      b.user(b.text('look'), b.image('image/jpeg'), b.image('image/bmp'), b.image('image/png', jpeg)),
      b.assistant(use),
      b.user({ ...b.toolResult(use.id, 'x'), content: [{ type: 'image', mediaType: 'image/gif', data: jpeg }] }),
    ]);
    assert.deepEqual(p.kinds, ['image_type_fixed', 'image_type_fixed', 'image_type_fixed', 'image_type_fixed']);
    const types = contentOf(p.messages[0] as { content: unknown })
      .filter((c) => c.type === 'image')
      .map((c) => (c as unknown as { source: { media_type: string } }).source.media_type);
    assert.deepEqual(types, ['image/png', 'image/png', 'image/jpeg']);
    const result = contentOf(p.messages[2] as { content: unknown })[0] as unknown as ToolResultBlockParam;
    assert.equal((result.content as { source: { media_type: string } }[])[0]?.source.media_type, 'image/jpeg');
  });

  it('gives an empty error result a placeholder, and leaves out an empty server compaction block', () => {
    const b = new NBuild('e');
    const use = b.toolUse('run_command', {});
    const p = prepared([
      b.user(b.text('go')),
      b.assistant(use),
      b.user({ ...b.toolResult(use.id, ''), isError: true }, b.text('and?')),
    ]);
    assert.deepEqual(p.kinds, ['error_result_empty']);
    const result = contentOf(p.messages[2] as { content: unknown })[0] as unknown as ToolResultBlockParam;
    assert.equal(result.is_error, true);
    assert.equal(result.content, EMPTY_ERROR_TEXT);
  });

  it('rewrites a tool call id the API refuses, in the call and its result alike', () => {
    const b = new NBuild('x');
    const use = { ...b.toolUse('read_file', {}), id: 'call.7 x' };
    const p = prepared([b.user(b.text('hi')), b.assistant(use), b.user(b.toolResult('call.7 x', 'out'))]);
    assert.deepEqual(p.kinds, ['tool_id_invalid', 'tool_id_invalid']);
    const id = (contentOf(p.messages[1] as { content: unknown })[0] as unknown as ToolUseBlockParam).id;
    assert.match(id, /^call_7_x_[0-9a-z]+$/);
    assert.equal(
      (contentOf(p.messages[2] as { content: unknown })[0] as unknown as ToolResultBlockParam).tool_use_id,
      id,
    );
  });

  it('keeps two calls apart whose ids differ only in refused characters, each with its own result', () => {
    const b = new NBuild('c');
    const one = { ...b.toolUse('read_file', { path: 'ONE.ts' }), id: 'a.b' };
    const two = { ...b.toolUse('read_file', { path: 'TWO.ts' }), id: 'a_b' };
    const p = prepared([
      b.user(b.text('hi')),
      b.assistant(one, two),
      // The results come in the other order: each must stay with its own call.
      b.user(b.toolResult('a_b', 'contents of TWO.ts'), b.toolResult('a.b', 'contents of ONE.ts')),
    ]);
    const uses = contentOf(p.messages[1] as { content: unknown }) as unknown as ToolUseBlockParam[];
    const results = contentOf(p.messages[2] as { content: unknown }) as unknown as ToolResultBlockParam[];
    const callOf = new Map(uses.map((u) => [u.id, (u.input as { path: string }).path]));
    assert.equal(new Set(uses.map((u) => u.id)).size, 2);
    for (const r of results) {
      const path = callOf.get(r.tool_use_id);
      assert.ok(path !== undefined, `result ${r.tool_use_id} answers a call`);
      assert.equal(r.content, `contents of ${path}`);
    }
  });

  it('wraps a tool input that is not an object, and turns a block in the wrong role into text', () => {
    const b = new NBuild('w');
    const use = { ...b.toolUse('read_file'), input: '{"path": "a' };
    const stray = b.toolUse('search', { q: 'x' });
    const p = prepared([b.user(b.text('hi'), stray as Block), b.assistant(use), b.user(b.toolResult(use.id, 'out'))]);
    assert.deepEqual(p.kinds, ['block_wrong_role', 'tool_input_invalid']);
    assert.deepEqual((contentOf(p.messages[1] as { content: unknown })[0] as unknown as ToolUseBlockParam).input, {
      value: '{"path": "a',
    });
    assert.match(
      String(contentOf(p.messages[0] as { content: unknown })[1]?.text),
      /^\[A tool call search \(.*\) found in a user message\]\n\{"q":"x"\}$/,
    );
  });

  it('gives an empty conversation a placeholder user message', () => {
    const p = prepared([]);
    assert.deepEqual(p.kinds, ['first_not_user']);
    assert.equal(p.messages.length, 1);
  });

  it('checks incrementally: a longer conversation is checked from where the last valid one ended, against its tool ids', () => {
    const b = new NBuild('inc');
    const use = b.toolUse('read_file', {});
    const base = [b.user(b.text('hi')), b.assistant(use), b.user(b.toolResult(use.id, 'out'))];
    assert.ok(isValidSequence(base));
    const fresh = b.toolUse('read_file', {});
    assert.ok(isValidSequence([...base, b.assistant(fresh), b.user(b.toolResult(fresh.id, 'ok'))]));
    const repeated = { ...b.toolUse('read_file', {}), id: use.id };
    const bad = [...base, b.assistant(repeated), b.user(b.toolResult(use.id, 'again'))];
    assert.equal(isValidSequence(bad), false, 'an id of the remembered prefix repeats in the new messages');
    assert.ok(isValidSequence(base), 'after a failure the prefix is checked again from scratch');
    assert.equal(isValidSequence([...base, b.user(b.text('two users'))]), false);
    assert.deepEqual(kinds(normalizeState(stateOf(bad)).repairs), ['tool_use_id_duplicate']);
  });

  it('says what it repaired in one line', () => {
    const b = new NBuild('l');
    const p = prepared([b.user(b.text('hi')), b.assistant(b.toolUse('read_file', {}))]);
    assert.equal(describeRepairs(p.repairs), 'Repaired before sending: 1 interrupted tool call answered.');
    assert.equal(describeRepairs(NO_REPAIRS), undefined);
    const twice = prepared([b.user(b.text('x'), b.text(' ')), b.user(b.text('y'), b.text(''))]);
    assert.equal(
      describeRepairs(twice.repairs),
      'Repaired before sending: 2 empty text blocks left out, 1 run of same-role messages merged.',
    );
  });
});

/** The request the old pipeline sent for `messages`: serialised as they are, without normalize. */
function stateToRawParams(messages: readonly Message[], system: readonly { text: string }[] = []) {
  return {
    model: 'claude-sonnet-4-6',
    max_tokens: 1024,
    ...(system.length ? { system: system.map((s) => ({ type: 'text', text: s.text })) } : {}),
    messages: messages.map(serializeMessage),
  };
}
