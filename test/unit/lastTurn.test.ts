import { strict as assert } from 'node:assert';
import type { ChatItem } from '../../src/protocol/chatItems';
import { lastTurnActions } from '../../src/webview/chat/lastTurn';
import { layoutTurns } from '../../src/webview/chat/turnLayout';

const user = (id: string): ChatItem => ({ kind: 'user', id, text: 'hi', injected: [], turn: 1 });
const answer = (
  id: string,
  text = 'words',
  extra: Partial<Extract<ChatItem, { kind: 'assistant' }>> = {},
): ChatItem => ({
  kind: 'assistant',
  id,
  text,
  streaming: false,
  messageId: `m-${id}`,
  ...extra,
});
const call = (id: string, status: 'done' | 'running' | 'awaiting' = 'done'): ChatItem => ({
  kind: 'tool',
  id,
  name: 'edit_file',
  summary: 'Edit a.ts',
  input: '{}',
  status,
});

/** The actions as `index:action:messageId`. */
const actions = (items: readonly ChatItem[]) => {
  const layout = layoutTurns(items, new Set());
  return items.flatMap((_, i) => {
    const last = layout[i]?.last;
    return last ? [`${i}:${last.action}:${last.messageId}`] : [];
  });
};

describe('lastTurn (where Retry and Edit show)', () => {
  it('Edit on the last user message, Retry on the last shown answer of its turn', () => {
    const items = [user('u1'), answer('a1'), user('u2'), answer('a2', ''), call('t1'), answer('a3', 'done')];
    assert.deepEqual(actions(items), ['2:edit:u2', '5:retry:u2']);
  });

  it('a stand-in answer (a stop, a failure) carries Retry', () => {
    const items = [user('u1'), answer('a1', '[Stopped by the user before Claude answered.]', { standIn: true })];
    assert.deepEqual(actions(items), ['0:edit:u1', '1:retry:u1']);
  });

  it('an unanswered message offers Edit only; a wordless hidden answer is skipped', () => {
    assert.deepEqual(actions([user('u1')]), ['0:edit:u1']);
    // The turn's second answer had no words (its calls follow): hidden, so Retry goes on the first.
    const items = [user('u1'), answer('a1'), user('u2'), answer('a2'), answer('a3', ''), call('t1')];
    assert.deepEqual(actions(items), ['2:edit:u2', '3:retry:u2']);
  });

  it('offers nothing while an answer streams or a call runs or waits for approval', () => {
    assert.deepEqual(actions([user('u1'), answer('a1', 'par', { streaming: true })]), []);
    assert.deepEqual(actions([user('u1'), answer('a1', ''), call('t1', 'running')]), []);
    assert.deepEqual(actions([user('u1'), answer('a1', ''), call('t1', 'awaiting')]), []);
    assert.equal(lastTurnActions([], () => true).size, 0);
  });
});
