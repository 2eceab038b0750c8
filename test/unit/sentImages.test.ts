import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { SentImages } from '../../src/host/chat/sentImages';
import { parseChatToWebview, type ChatToWebview } from '../../src/protocol/chat';
import type { ChatItem } from '../../src/protocol/chatItems';
import { ImageCache } from '../../src/webview/chat/imageCache';

type UserItem = Extract<ChatItem, { kind: 'user' }>;

/** A user item with the given images (ref → a data string standing for its base64). */
function user(id: string, refs: readonly string[]): UserItem {
  return {
    kind: 'user',
    id,
    text: `message ${id}`,
    injected: [],
    images: refs.map((ref) => ({ ref, mediaType: 'image/png', data: `DATA(${ref})`, tokens: 1600 })),
    turn: 1,
  };
}

/** Base64 characters a message carries in its images. */
function imageBytes(m: ChatToWebview): number {
  const items = m.type === 'transcript' ? m.items : m.type === 'upsert' ? [m.item] : [];
  return items.reduce(
    (n, i) => n + (i.kind === 'user' ? (i.images ?? []).reduce((k, img) => k + (img.data?.length ?? 0), 0) : 0),
    0,
  );
}

/** One chat: what the host posts goes through SentImages, then the protocol, then the webview's cache. */
class Wire {
  readonly host = new SentImages();
  readonly view = new ImageCache();
  posted = 0;

  send(m: ChatToWebview): ChatItem[] {
    const out = this.host.strip(m);
    this.posted += imageBytes(out);
    const parsed = parseChatToWebview(out);
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    const got = parsed.value;
    if (got.type === 'transcript') return this.view.transcript(got.items);
    if (got.type === 'upsert') return [this.view.upsert(got.item)];
    return [];
  }
}

/** The chat's pasted images: posted once per webview, named by ref after that. */
describe('chat images: sent once per webview', () => {
  it('a transcript rebuilt again and again carries each image’s data only the first time; the webview shows it whole', () => {
    const w = new Wire();
    const items = [user('u1', ['a', 'b']), user('u2', ['c'])];
    assert.deepEqual(w.send({ type: 'transcript', items }), items);
    const first = w.posted;
    assert.equal(first, 'DATA(a)DATA(b)DATA(c)'.length);
    for (let i = 0; i < 5; i++) assert.deepEqual(w.send({ type: 'transcript', items }), items);
    assert.equal(w.posted, first, 'five rebuilds posted no image again');
    const stripped = w.host.strip({ type: 'transcript', items });
    assert.ok(stripped.type === 'transcript');
    assert.equal(stripped.items[0]?.kind === 'user' && stripped.items[0].images?.[0]?.data, undefined);
  });

  it('an image a summary dropped is forgotten on both sides, and sent whole if a restore brings it back', () => {
    const w = new Wire();
    w.send({ type: 'transcript', items: [user('u1', ['a']), user('u2', ['b'])] });
    w.send({ type: 'transcript', items: [user('u2', ['b'])] });
    assert.equal(w.host.size, 1);
    assert.equal(w.view.size, 1);
    const before = w.posted;
    const restored = [user('u1', ['a']), user('u2', ['b'])];
    assert.deepEqual(w.send({ type: 'transcript', items: restored }), restored);
    assert.equal(w.posted - before, 'DATA(a)'.length, 'only the image the webview had let go');
  });

  it('a new message’s upsert sends its images; the next rebuild does not; a reloaded webview gets them all again', () => {
    const w = new Wire();
    w.send({ type: 'transcript', items: [] });
    const u = user('u1', ['a']);
    assert.deepEqual(w.send({ type: 'upsert', item: u }), [u]);
    assert.equal(w.posted, 'DATA(a)'.length);
    assert.deepEqual(w.send({ type: 'transcript', items: [u] }), [u]);
    assert.equal(w.posted, 'DATA(a)'.length);
    // The webview loaded again (a new view, `ready`): the host resets, the new page has nothing.
    w.host.reset();
    const fresh = new ImageCache();
    const out = w.host.strip({ type: 'transcript', items: [u] });
    assert.ok(out.type === 'transcript');
    assert.deepEqual(fresh.transcript(out.items), [u]);
  });

  it('an image the webview never received shows as not loaded (no data), never as another image', () => {
    const cache = new ImageCache();
    const [item] = cache.transcript([
      { ...user('u1', ['a']), images: [{ ref: 'a', mediaType: 'image/png', tokens: 1600 }] },
    ]);
    assert.ok(item?.kind === 'user');
    assert.equal(item.images?.[0]?.data, undefined);
  });

  it('leaves other messages and items alone', () => {
    const host = new SentImages();
    const status: ChatToWebview = { type: 'unsent' };
    assert.equal(host.strip(status), status);
    const notice: ChatToWebview = { type: 'upsert', item: { kind: 'notice', id: 'n', level: 'info', text: 'hi' } };
    assert.deepEqual(host.strip(notice), notice);
  });

  it('the protocol refuses an image without a ref', () => {
    const bad = {
      type: 'upsert',
      item: { ...user('u', []), images: [{ mediaType: 'image/png', data: 'x', tokens: 1 }] },
    };
    assert.equal(parseChatToWebview(bad).ok, false);
  });

  it('any sequence of rebuilds, new messages and reloads: the webview always shows every image whole, each posted once while it stays (property)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('transcript' as const), keep: fc.array(fc.boolean(), { maxLength: 8 }) }),
      fc.record({
        kind: fc.constant('upsert' as const),
        refs: fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }),
      }),
      fc.record({ kind: fc.constant('reload' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const host = new SentImages();
        let view = new ImageCache();
        let history: UserItem[] = [];
        let n = 0;
        // What the webview holds, as the test sees it: data for one of these is never posted again.
        let held = new Set<string>();
        const postedOnce = (m: ChatToWebview) => {
          const items = m.type === 'transcript' ? m.items : m.type === 'upsert' ? [m.item] : [];
          const now = new Set<string>();
          for (const i of items)
            for (const img of i.kind === 'user' ? (i.images ?? []) : [])
              if (img.data !== undefined) {
                assert.ok(!held.has(img.ref) && !now.has(img.ref), `${img.ref} posted again`);
                now.add(img.ref);
              }
        };
        const refsOf = (items: readonly UserItem[]) =>
          new Set(items.flatMap((i) => (i.images ?? []).map((x) => x.ref)));
        for (const o of ops) {
          if (o.kind === 'reload') {
            host.reset();
            view = new ImageCache();
            held = new Set();
            const out = host.strip({ type: 'transcript', items: history });
            assert.ok(out.type === 'transcript');
            postedOnce(out);
            held = refsOf(history);
            assert.deepEqual(view.transcript(out.items), history);
          } else if (o.kind === 'upsert') {
            const item = user(
              `u${++n}`,
              o.refs.map((r) => `r${r}`),
            );
            history = [...history, item];
            const out = host.strip({ type: 'upsert', item });
            assert.ok(out.type === 'upsert');
            postedOnce(out);
            for (const r of refsOf([item])) held.add(r);
            assert.deepEqual(view.upsert(out.item), item);
          } else {
            history = history.filter((_, i) => o.keep[i] ?? true);
            const out = host.strip({ type: 'transcript', items: history });
            assert.ok(out.type === 'transcript');
            postedOnce(out);
            held = refsOf(history);
            assert.deepEqual(view.transcript(out.items), history);
            const distinct = new Set(history.flatMap((i) => (i.images ?? []).map((x) => x.ref)));
            assert.equal(view.size, distinct.size);
            assert.equal(host.size, distinct.size);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});
