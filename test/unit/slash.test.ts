import { strict as assert } from 'node:assert';
import { parseChatToHost } from '../../src/protocol/chat';
import { parseSlash, sendProblem } from '../../src/webview/chat/composer';
import { MAX_WEBVIEW_STRING } from '../../src/protocol/validate';

describe('slash commands in the chat input', () => {
  it('recognises /compact with instructions, /new, /pin and /handoff with words; everything else is a message', () => {
    assert.deepEqual(parseSlash('/compact focus on the auth bug'), { name: 'compact', arg: 'focus on the auth bug' });
    assert.deepEqual(parseSlash('  /compact  '), { name: 'compact', arg: '' });
    assert.deepEqual(parseSlash('/compact\nkeep file names\nand errors'), {
      name: 'compact',
      arg: 'keep file names\nand errors',
    });
    assert.deepEqual(parseSlash('/new'), { name: 'new', arg: '' });
    assert.deepEqual(parseSlash('/pin'), { name: 'pin', arg: '' });
    assert.deepEqual(parseSlash('/handoff'), { name: 'handoff', arg: '' });
    assert.deepEqual(parseSlash('/handoff focus on the tests'), { name: 'handoff', arg: 'focus on the tests' });
    for (const text of ['/compacting', '/handoffs', '/unknown', 'please /compact', 'compact', '/ new', ''])
      assert.equal(parseSlash(text), undefined, text);
  });

  it('validates the slash message at the host boundary', () => {
    assert.ok(parseChatToHost({ type: 'slash', name: 'compact', arg: 'x' }).ok);
    assert.ok(parseChatToHost({ type: 'slash', name: 'handoff', arg: 'focus on the tests' }).ok);
    assert.ok(!parseChatToHost({ type: 'slash', name: 'run', arg: 'rm -rf /' }).ok, 'only the four commands');
    assert.ok(!parseChatToHost({ type: 'slash', name: 'compact', arg: 'x'.repeat(4001) }).ok, 'bounded argument');
    assert.ok(!parseChatToHost({ type: 'slash', name: 'new' }).ok, 'arg is required (may be empty)');
  });

  it('refuses, before the box is cleared, exactly what the host would drop: an over-long message or /compact argument', () => {
    assert.equal(sendProblem('hello'), undefined);
    assert.equal(sendProblem(`/compact ${'k'.repeat(4000)}`), undefined);
    const longArg = `/compact ${'k'.repeat(4001)}`;
    assert.match(sendProblem(longArg) ?? '', /\/compact takes at most 4,000 characters/);
    assert.equal(parseChatToHost({ type: 'slash', name: 'compact', arg: 'k'.repeat(4001) }).ok, false);
    const huge = 'x'.repeat(MAX_WEBVIEW_STRING + 1);
    assert.match(sendProblem(huge) ?? '', /Save it to a file in the workspace/);
    assert.equal(parseChatToHost({ type: 'send', text: huge }).ok, false);
    assert.equal(sendProblem('x'.repeat(MAX_WEBVIEW_STRING)), undefined);
    assert.ok(parseChatToHost({ type: 'send', text: 'x'.repeat(MAX_WEBVIEW_STRING) }).ok);
  });
});
