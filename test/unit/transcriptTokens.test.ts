import { strict as assert } from 'node:assert';
import { renderTranscript, TRANSCRIPT_LIMITS } from '../../src/core/compaction/summaryPrompt';
import { transcriptTokens } from '../../src/core/compaction/transcriptTokens';
import type { Message } from '../../src/core/conversation/conversationModel';
import { Convo } from './support/compactionFixtures';

/** A count by length (a quarter of the content's characters), with the messages it was asked to count. */
function counter() {
  const calls: Message[] = [];
  const tokensOf = (m: Message) => {
    if (m.blocks.length > 0) calls.push(m); // the empty probe measures a message's framing, not a message
    const chars = m.blocks.reduce(
      (n, b) =>
        n +
        (b.type === 'text'
          ? b.text.length
          : b.type === 'tool_use'
            ? JSON.stringify(b.input).length
            : b.type === 'tool_result'
              ? JSON.stringify(b.content).length
              : 0),
      0,
    );
    return Math.ceil(chars / 4);
  };
  return { tokensOf, calls };
}

function sample(fileChars: number): Message[] {
  return new Convo()
    .add({
      user: 'Fix the login bug in src/auth/login.ts',
      tools: [{ name: 'read_file', input: { path: 'src/auth/login.ts' }, result: `line\n${'y'.repeat(fileChars)}` }],
      answer: 'The bug is in validateToken.',
    })
    .add({ user: 'Run the tests', tools: [{ name: 'run_command', input: { command: 'npm test' }, result: 'ok' }] })
    .messages;
}

describe('transcriptTokens: what the summariser model reads of a region', () => {
  it('is the count of the transcript, message by message, within a few tokens of the whole one', () => {
    const messages = sample(2_000);
    const { tokensOf } = counter();
    const whole = Math.ceil(renderTranscript(messages).length / 4);
    const each = transcriptTokens(messages, tokensOf);
    assert.ok(Math.abs(each - whole) <= 3 * messages.length, `${each} vs ${whole}`);
  });

  it('counts a long result for what the transcript keeps of it, not for its tokens in the conversation', () => {
    const messages = sample(20 * TRANSCRIPT_LIMITS.toolResult);
    const { tokensOf } = counter();
    const inConversation = messages.reduce((n, m) => n + tokensOf(m), 0);
    const read = transcriptTokens(messages, tokensOf);
    assert.ok(read < inConversation / 10, `${read} of ${inConversation}`);
    assert.ok(read > TRANSCRIPT_LIMITS.toolResult / 4, 'the kept head and tail of the result are counted');
  });

  it('renders and counts each message once per count, however often a plan asks', () => {
    const messages = sample(5_000);
    const a = counter();
    const first = transcriptTokens(messages, a.tokensOf);
    assert.equal(a.calls.length, messages.length);
    assert.equal(transcriptTokens(messages, a.tokensOf), first);
    assert.equal(transcriptTokens(messages.slice(1), a.tokensOf) <= first, true);
    assert.equal(a.calls.length, messages.length, 'memoised per message');
    const b = counter();
    transcriptTokens(messages, b.tokensOf);
    assert.equal(b.calls.length, messages.length, 'another count counts for itself');
  });
});
