import { strict as assert } from 'node:assert';
import { classifyFailure, messageWithoutRequestId, requestIdNote } from '../../src/core/llm/llmErrors';
import { TranscriptRenderer } from '../../src/host/chat/transcriptRenderer';
import { parseChatToWebview, type ChatToWebview } from '../../src/protocol/chat';

const limited = classifyFailure({ status: 429, type: 'rate_limit_error', message: 'rate', requestId: 'req_011ABC' });

describe('a failed request: its request id under Details, not in the words', () => {
  it('the log keeps the whole message; the chat gets it without the id', () => {
    assert.equal(limited.message, 'Rate limited by the Anthropic API (request req_011ABC). Your message is kept.');
    assert.equal(messageWithoutRequestId(limited), 'Rate limited by the Anthropic API. Your message is kept.');
    assert.equal(requestIdNote(undefined), '');
    const noId = classifyFailure({ status: 429, message: 'rate' });
    assert.equal(messageWithoutRequestId(noId), noId.message);
  });

  it('the retry banner and the error item carry the id apart from their text', () => {
    const posts: ChatToWebview[] = [];
    let now = 1_000;
    const r = new TranscriptRenderer({ post: (m) => void posts.push(m) }, undefined, () => now);
    r.render({ type: 'turn_started', turn: 1 });
    r.render({ type: 'retrying', attempt: 0, waitMs: 5_000, error: limited });
    const retrying = posts.find((p) => p.type === 'retrying');
    assert.deepEqual(retrying, {
      type: 'retrying',
      waitMs: 5_000,
      attempt: 0,
      reason: 'Rate limited by the Anthropic API. Your message is kept.',
      requestId: 'req_011ABC',
    });
    assert.ok(parseChatToWebview(retrying).ok);
    // A view that comes back during the wait gets the id too.
    posts.length = 0;
    now += 1_000;
    r.resync([]);
    const again = posts.find((p) => p.type === 'retrying');
    assert.ok(again?.type === 'retrying' && again.requestId === 'req_011ABC' && !again.reason.includes('req_'));
    posts.length = 0;
    r.render({ type: 'error', error: limited });
    const item = posts.flatMap((p) => (p.type === 'upsert' && p.item.kind === 'error' ? [p.item] : []))[0];
    assert.ok(item?.kind === 'error');
    assert.equal(item.text, 'Rate limited by the Anthropic API. Your message is kept.');
    assert.equal(item.requestId, 'req_011ABC');
    assert.ok(parseChatToWebview({ type: 'upsert', item }).ok);
    assert.ok(!parseChatToWebview({ type: 'upsert', item: { ...item, requestId: 'x'.repeat(201) } }).ok);
  });
});
