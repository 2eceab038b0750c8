import { strict as assert } from 'node:assert';
import { chunkBudget, chunkFraction, maxSingleMessageTokens, planChunks } from '../../src/core/compaction/chunking';
import {
  buildSummaryRequest,
  headTail,
  renderTranscript,
  SUMMARY_SYSTEM_PROMPT,
  summaryMaxTokens,
  summaryOutputLimit,
  summaryTargetTokens,
} from '../../src/core/compaction/summaryPrompt';
import type { Message } from '../../src/core/conversation/conversationModel';
import { stripHeading, summaryText } from '../../src/core/compaction/summaryReplacement';
import { validateRequest } from '../fake-anthropic/validateRequest';
import { Convo, tokensOf } from './support/compactionFixtures';

function sample(): Message[] {
  return new Convo()
    .add({
      user: 'Fix the login bug in src/auth/login.ts',
      injected:
        '<ide_selection>The user selected the lines 3 to 4 from src/auth/login.ts:\nconst x = 1;</ide_selection>',
      tools: [
        { name: 'read_file', input: { path: 'src/auth/login.ts' }, result: `line\n${'y'.repeat(30_000)}\nEND_OF_FILE` },
      ],
      answer: 'The bug is in validateToken.',
    })
    .add({
      user: 'Run the tests',
      tools: [
        { name: 'run_command', input: { command: 'npm test' }, result: 'TypeError: x is undefined', isError: true },
      ],
    }).messages;
}

function userText(req: ReturnType<typeof buildSummaryRequest>): string {
  const c = req.messages[0]?.content;
  assert.ok(Array.isArray(c));
  return c.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

describe('summariser request (summarise)', () => {
  it('is a valid Messages API request with one non-empty user message', () => {
    const req = buildSummaryRequest({
      model: 'claude-haiku-4-5',
      messages: sample(),
      regionTurns: [1, 2],
      chunk: 1,
      chunks: 1,
      targetTokens: 500,
      maxTokens: 1012,
    });
    validateRequest(JSON.parse(JSON.stringify(req)), 'messages');
    assert.equal(req.model, 'claude-haiku-4-5');
    assert.equal(req.max_tokens, 1012);
    assert.equal(req.messages.length, 1);
    assert.equal(req.messages[0]?.role, 'user');
    assert.ok(userText(req).trim().length > 0);
    assert.equal(req.system, SUMMARY_SYSTEM_PROMPT);
    const empty = buildSummaryRequest({
      model: 'claude-haiku-4-5',
      messages: [],
      regionTurns: [1, 1],
      chunk: 1,
      chunks: 1,
      targetTokens: 200,
      maxTokens: 712,
    });
    validateRequest(JSON.parse(JSON.stringify(empty)), 'messages');
  });

  it('tells the summariser what to preserve and what to drop', () => {
    for (const item of [
      'file paths',
      'line numbers',
      'names of functions',
      'decisions',
      'facts learned',
      'errors',
      "the user's requirements",
    ]) {
      assert.ok(SUMMARY_SYSTEM_PROMPT.includes(item), `preserve list names ${item}`);
    }
    assert.match(SUMMARY_SYSTEM_PROMPT, /Drop:/);
    assert.match(SUMMARY_SYSTEM_PROMPT, /raw tool output/);
  });

  it('renders the transcript: roles, tool calls with input, results cut, injected context marked', () => {
    const text = renderTranscript(sample());
    assert.match(text, /User message \(turn 1\)/);
    assert.match(text, /User: Fix the login bug in src\/auth\/login\.ts/);
    assert.match(text, /\[Injected context\]\n<ide_selection>/);
    assert.match(text, /Assistant called tool read_file \(toolu_\w+\) with input: \{"path":"src\/auth\/login\.ts"\}/);
    assert.match(text, /Result of read_file \(toolu_\w+\):\nline/);
    assert.match(text, /characters cut/);
    assert.match(text, /END_OF_FILE/, 'the tail of a cut result is kept');
    assert.match(text, /Result of run_command \(toolu_\w+\) \[error\]:\nTypeError: x is undefined/);
    assert.match(text, /Assistant: The bug is in validateToken\./);
    assert.ok(text.length < 20_000, 'the 30 000-character result is cut');
  });

  it('carries the previous rolling summary, left-out messages, the instructions and the target', () => {
    const msgs = sample();
    const req = buildSummaryRequest({
      model: 'claude-haiku-4-5',
      messages: msgs.slice(4),
      regionTurns: [1, 2],
      chunk: 2,
      chunks: 2,
      previous: { text: 'Earlier: read login.ts', turns: [1, 1] },
      instructions: 'focus on the auth bug </user_instructions>',
      targetTokens: 700,
      maxTokens: 1212,
      leftOut: [{ message: msgs[2] as Message, tokens: 120_000 }],
    });
    const text = userText(req);
    assert.match(text, /part 2 of 2/);
    assert.match(text, /<previous_summary turns="1-1">\nEarlier: read login\.ts\n<\/previous_summary>/);
    assert.match(
      text,
      /<user_instructions>\nfocus on the auth bug &lt;\/user_instructions>\n<\/user_instructions>/,
      'instructions cannot close their tag',
    );
    assert.match(text, /about 700 tokens/);
    assert.match(text, /too large to include/);
    assert.match(text, new RegExp(`user message ${msgs[2]?.id} of turn 1 \\(tool result, about 120,000 tokens\\)`));
  });

  it('aims at 1/5 of the source, at least 200 tokens, at most 8,000 and the output limit', () => {
    const limit = summaryOutputLimit('claude-haiku-4-5');
    assert.equal(limit, 32_000);
    assert.equal(summaryTargetTokens(10_000, limit), 2000);
    assert.equal(summaryTargetTokens(300, limit), 200);
    assert.equal(summaryTargetTokens(40_000, limit), 8_000, 'a fifth of 40,000 is the most asked for');
    assert.equal(summaryTargetTokens(160_000, limit), 8_000, 'not 32,000 for a 160k-token region');
    assert.equal(summaryTargetTokens(1_000_000, 5_000), 5_000, 'a smaller output limit still caps it');
    assert.equal(summaryMaxTokens(2000, limit), 3000);
    assert.equal(summaryMaxTokens(200, limit), 712);
    assert.equal(summaryMaxTokens(limit, limit), limit);
  });

  it("replaces the model's own turn-range heading, keeping the rest of its first line", () => {
    assert.equal(stripHeading('## Summary of turns 1-4\n- a'), '- a');
    assert.equal(stripHeading('Summary of turns 1–4: user asked X\n- b'), 'user asked X\n- b');
    assert.equal(stripHeading('**Summary of turns 3-9:**\nbody'), 'body');
    assert.equal(stripHeading('Summary of the auth work'), 'Summary of the auth work');
    assert.equal(
      summaryText(3, 9, '**Summary of turns 3-9:**\nbody', ['x'], true),
      "Summary of turns 3–9:\n\nbody\n\nLeft out of this summary because they were too large to summarise:\n- x\n\n(The user's own messages from these turns follow, verbatim.)",
    );
  });

  it('replaces lone surrogates from the conversation, so the API does not refuse the summariser request', () => {
    const msgs = new Convo().add({
      user: 'broken \ud800 half and a kept pair 😀',
      tools: [{ name: 'read_file', input: { path: 'a\udc00.ts' }, result: 'tail \udbff' }],
      answer: 'ok \udfff',
    }).messages;
    const req = buildSummaryRequest({
      model: 'claude-haiku-4-5',
      messages: msgs,
      regionTurns: [1, 1],
      chunk: 1,
      chunks: 1,
      previous: { text: 'earlier \ud83d', turns: [1, 1] },
      instructions: 'keep \udc00 this',
      targetTokens: 200,
      maxTokens: 712,
    });
    validateRequest(JSON.parse(JSON.stringify(req)), 'messages');
    const text = userText(req);
    assert.match(text, /broken \ufffd half and a kept pair 😀/);
    assert.match(text, /earlier \ufffd/);
    assert.match(text, /keep \ufffd this/);
  });

  it('cuts text head and tail without splitting a surrogate pair', () => {
    const s = '😀'.repeat(100);
    const cut = headTail(s, 41);
    assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(cut));
    assert.equal(headTail('short', 10), 'short');
  });
});

describe('chunking (summarise)', () => {
  const big = (tokens: number, c = new Convo('k')) => {
    c.add({ user: 'u', answer: 'a'.repeat(tokens * 4) });
    return c;
  };

  it('adapts the chunk size to the message size: 40 % for small messages down to 15 % for large ones', () => {
    assert.ok(Math.abs(chunkFraction(10, 200_000) - 0.399875) < 1e-9);
    assert.equal(chunkFraction(20_000, 200_000), 0.15);
    assert.equal(chunkFraction(100_000, 200_000), 0.15);
    assert.ok(chunkFraction(5_000, 200_000) < 0.4 && chunkFraction(5_000, 200_000) > 0.15);
    assert.equal(chunkBudget(0, { window: 200_000, outputReserve: 4000 }), Math.floor(80_000 / 1.2));
    assert.equal(
      chunkBudget(0, { window: 20_000, outputReserve: 8000 }),
      Math.floor(2000 / 1.2),
      'room is kept for the output and the rolling summary',
    );
  });

  it('packs messages in order into chunks within the budget', () => {
    const c = new Convo('k');
    for (let i = 0; i < 40; i++) c.add({ user: `u${i}`, answer: 'a'.repeat(8000) });
    const plan = planChunks(c.messages, { window: 50_000, tokensOf, outputReserve: 2000 });
    assert.ok(plan.chunks.length > 1);
    assert.deepEqual(plan.chunks.flat(), c.messages, 'every message once, in order');
    for (const chunk of plan.chunks) assert.ok(chunk.reduce((n, m) => n + tokensOf(m), 0) <= plan.budget);
    assert.deepEqual(plan.leftOut, []);
  });

  it('leaves out a single message over half the window, and gives a big one its own chunk', () => {
    const c = big(30_000);
    big(15_000, c);
    const plan = planChunks(c.messages, { window: 50_000, tokensOf, outputReserve: 2000 });
    assert.equal(maxSingleMessageTokens({ window: 50_000, outputReserve: 2000 }), 25_000);
    assert.deepEqual(
      plan.leftOut.map((l) => l.message.id),
      [c.messages[1]?.id],
    );
    assert.ok(
      plan.chunks.some((ch) => ch.length === 1 && ch[0] === c.messages[3]),
      'a message over the budget goes alone',
    );
    assert.ok(!plan.chunks.flat().includes(c.messages[1] as Message));
  });
});
