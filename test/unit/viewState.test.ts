import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { restoreViewState } from '../../src/webview/chat/viewState';

describe("the chat webview's saved state is validated like a message", () => {
  it('restores a valid state as it was', () => {
    const saved = { draft: 'half a thought', history: ['a', 'b'], reading: { id: 'm3', offset: 12 } };
    assert.deepEqual(restoreViewState(saved), saved);
    assert.deepEqual(restoreViewState({ draft: '', history: [] }), { draft: '', history: [] });
  });

  it('keeps the plan folded across a reload, and reads a damaged flag as open', () => {
    assert.deepEqual(restoreViewState({ draft: '', history: [], planFolded: true }), {
      draft: '',
      history: [],
      planFolded: true,
    });
    assert.deepEqual(restoreViewState({ draft: 'd', history: [], planFolded: 'yes' }), { draft: 'd', history: [] });
  });

  it('keeps each valid field of a damaged state and defaults the rest', () => {
    assert.deepEqual(restoreViewState(undefined), { draft: '', history: [] });
    assert.deepEqual(restoreViewState('junk'), { draft: '', history: [] });
    assert.deepEqual(restoreViewState({ draft: 42, history: ['kept'], reading: { id: 7 } }), {
      draft: '',
      history: ['kept'],
    });
    assert.deepEqual(restoreViewState({ draft: 'kept', history: 'no', reading: { id: 'm1', offset: 0 } }), {
      draft: 'kept',
      history: [],
      reading: { id: 'm1', offset: 0 },
    });
  });

  it('restores the images waiting in the tray, and drops a damaged tray rather than the draft', () => {
    const image = {
      name: 'shot.png',
      mediaType: 'image/png' as const,
      data: 'iVBORw0KGgo=',
      width: 1568,
      height: 882,
      scaledFrom: { width: 2560, height: 1440 },
      tokens: 1600,
    };
    const saved = { draft: 'why is it cut off?', history: [], images: [image] };
    assert.deepEqual(restoreViewState(saved), saved);
    assert.deepEqual(restoreViewState({ ...saved, images: [{ ...image, mediaType: 'image/svg+xml' }] }), {
      draft: 'why is it cut off?',
      history: [],
    });
    assert.deepEqual(restoreViewState({ ...saved, images: [] }), { draft: 'why is it cut off?', history: [] });
  });

  it('never throws and always gives a draft string and a history of strings (property)', () => {
    fc.assert(
      fc.property(fc.anything(), (x) => {
        const s = restoreViewState(x);
        assert.equal(typeof s.draft, 'string');
        assert.ok(Array.isArray(s.history) && s.history.every((h) => typeof h === 'string'));
      }),
    );
  });
});
