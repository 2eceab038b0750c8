import { strict as assert } from 'node:assert';
import { PendingContext } from '../../src/app/pendingContext';
import type { Injection } from '../../src/core/conversation/conversationModel';
import type { ChatToWebview } from '../../src/protocol/chat';
import { FakeSettings } from './support/chatServiceFakes';

function setup(editor = { selection: true, openedFile: false }) {
  const posts: ChatToWebview[] = [];
  const pinned: Injection[] = [];
  const toasts: string[] = [];
  const counted: number[] = [];
  const settings = new FakeSettings();
  settings.editorContext = () => editor;
  const pending = new PendingContext({
    view: { post: (m) => void posts.push(m) },
    nextTurn: {
      take: () => ({ injections: [], settle: () => undefined }),
      pin: (i) => void pinned.push(i),
      dismiss: () => undefined,
      chips: (_session, count) => {
        counted.push(count('12345678'));
        return [];
      },
    },
    settings,
    notifier: { info: (t) => void toasts.push(t), warn: () => undefined, error: () => undefined },
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    session: () => 's1',
    tokensOf: () => undefined,
  });
  return { pending, posts, pinned, toasts, counted };
}

describe('PendingContext (pins and context chips)', () => {
  it('pins a selection as a pinned, well-formed block, posts the chips and says so', () => {
    const t = setup();
    t.pending.pin({ path: 'a.ts', startLine: 3, endLine: 4, text: 'x\uD800y' });
    assert.deepEqual(t.pinned, [
      { kind: 'ide_selection', path: 'a.ts', startLine: 3, endLine: 4, text: 'x\uFFFDy', pinned: true },
    ]);
    assert.deepEqual(t.posts, [{ type: 'pendingContext', chips: [], disabled: ['ide_opened_file'] }]);
    assert.deepEqual(t.toasts, ['Pinned 2 lines of a.ts; they go with your next message and are never compacted.']);
  });

  it('counts chars/4 before a session has a tokenizer, and marks the kinds the settings turned off', () => {
    const t = setup({ selection: false, openedFile: false });
    t.pending.post();
    assert.deepEqual(t.counted, [2]);
    assert.deepEqual(t.posts, [{ type: 'pendingContext', chips: [], disabled: ['ide_selection', 'ide_opened_file'] }]);
  });
});
