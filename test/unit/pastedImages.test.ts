import { strict as assert } from 'node:assert';
import { applyUserMessage, assembleUserMessage } from '../../src/core/conversation/assemble';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { userItem } from '../../src/host/chat/transcript';
import { MAX_IMAGE_BASE64, MAX_MESSAGE_IMAGES, parseChatToHost } from '../../src/protocol/chat';
import { imageTokensForSize } from '../../src/protocol/imageTokens';
import { base64Length, encodingPlan, fitWithin, toBase64 } from '../../src/webview/chat/imageAttach';
import { Build, emptyState, fakeClock } from './support/builders';
import { pngBase64 } from './support/images';
import { assertAccepted, pipeline } from './support/normalizeFixtures';

const dir = '/session/s1';
const shot = pngBase64(1568, 882);

describe('pasted images: the user message', () => {
  const clock = fakeClock();

  it('goes after the editor context and before the words, as the user’s compactable image blocks, and the API accepts it', () => {
    const b = new Build();
    const state = emptyState({ pending: [{ kind: 'ide_opened_file', path: 'src/a.ts' }] });
    const r = assembleUserMessage(
      state,
      {
        userText: 'Why is the header cut off here?',
        images: [
          { mediaType: 'image/png', data: shot },
          { mediaType: 'image/jpeg', data: shot },
        ],
        pasteDirectory: dir,
      },
      { clock, ids: b.ids },
    );
    assert.ok(r.ok);
    const blocks = r.value.message.blocks;
    assert.deepEqual(
      blocks.map((x) => `${x.type}:${x.meta.source}`),
      ['text:ide_opened_file', 'image:user', 'image:user', 'text:user'],
    );
    const image = blocks[1];
    assert.ok(image?.type === 'image');
    assert.equal(image.data, shot);
    assert.equal(image.meta.tier, 1);
    assert.equal(image.meta.compactable, true, 'a summary may name an image; only the words stay verbatim');
    assert.equal(r.value.message.turn, 1);
    const next = applyUserMessage(state, r.value);
    assert.deepEqual(checkInvariants(next), []);
    const sent = pipeline().prepare(next);
    assertAccepted(sent.params);
    const content = sent.params.messages[0]?.content;
    assert.ok(Array.isArray(content));
    assert.deepEqual(
      content.map((c) => (c.type === 'image' && c.source.type === 'base64' ? `image:${c.source.media_type}` : c.type)),
      // The second was labelled JPEG but holds a PNG: it goes with the type its bytes have.
      ['text', 'image:image/png', 'image:image/png', 'text'],
    );
  });

  it('refuses images without words, saying what to add, and changes nothing', () => {
    const b = new Build();
    const state = emptyState();
    const r = assembleUserMessage(
      state,
      { userText: '  ', images: [{ mediaType: 'image/png', data: shot }], pasteDirectory: dir },
      { clock, ids: b.ids },
    );
    assert.ok(!r.ok);
    assert.equal(r.error.code, 'empty_message');
    assert.match(r.error.message, /words to go with the image/);
    assert.equal(state.messages.length, 0);
  });

  it('shows in the chat as thumbnails with what each costs', () => {
    const b = new Build();
    const r = assembleUserMessage(
      emptyState(),
      { userText: 'look', images: [{ mediaType: 'image/png', data: shot }], pasteDirectory: dir },
      { clock, ids: b.ids },
    );
    assert.ok(r.ok);
    const item = userItem(r.value.message);
    assert.ok(item?.kind === 'user');
    assert.equal(item.text, 'look');
    assert.deepEqual(item.images, [
      { mediaType: 'image/png', data: shot, tokens: imageTokensForSize({ width: 1568, height: 882 }) },
    ]);
    assert.equal(item.images?.[0]?.tokens, 1600, '1568×882 costs the API’s maximum of about 1,600 tokens');
  });
});

describe('pasted images: the protocol', () => {
  const send = (images: unknown) => parseChatToHost({ type: 'send', text: 'see', images });

  it('takes base64 PNG, JPEG, GIF and WebP, and a send without images', () => {
    for (const mediaType of ['image/png', 'image/jpeg', 'image/gif', 'image/webp'])
      assert.ok(send([{ mediaType, data: shot }]).ok, mediaType);
    assert.ok(parseChatToHost({ type: 'send', text: 'no images' }).ok);
    assert.ok(
      parseChatToHost({ type: 'preview', requestId: 1, text: 'x', images: [{ mediaType: 'image/png', data: shot }] })
        .ok,
    );
  });

  it('refuses another type, data that is not base64, an image over 5 MB, too many images, or extra fields, with a reason', () => {
    const cases: Array<[unknown, RegExp]> = [
      [[{ mediaType: 'image/svg+xml', data: shot }], /PNG, JPEG, GIF or WebP/],
      [[{ mediaType: 'image/png', data: 'data:image/png;base64,AAAA' }], /not base64/],
      [[{ mediaType: 'image/png', data: 'A'.repeat(MAX_IMAGE_BASE64 + 4) }], /5 MB/],
      [
        Array.from({ length: MAX_MESSAGE_IMAGES + 1 }, () => ({ mediaType: 'image/png', data: shot })),
        /at most 20 images/,
      ],
      [[{ mediaType: 'image/png', data: shot, url: 'https://x' }], /url/],
    ];
    for (const [images, reason] of cases) {
      const r = send(images);
      assert.ok(!r.ok);
      assert.match(r.error, reason);
    }
  });
});

describe('pasted images: scaling in the composer', () => {
  it('fits the long edge within 1568 px, keeping the aspect, never scaling up', () => {
    assert.deepEqual(fitWithin(2560, 1440), { width: 1568, height: 882 });
    assert.deepEqual(fitWithin(1440, 2560), { width: 882, height: 1568 });
    assert.deepEqual(fitWithin(800, 600), { width: 800, height: 600 });
    assert.deepEqual(fitWithin(10_000, 1), { width: 1568, height: 1 });
  });

  it('sends a small image of an API type as it is; scales a large one; re-encodes a type the API does not take', () => {
    assert.deepEqual(encodingPlan({ type: 'image/png', bytes: 200_000 }, 1200, 800), { keep: true });
    assert.deepEqual(encodingPlan({ type: 'image/png', bytes: 200_000 }, 2560, 1440), {
      keep: false,
      width: 1568,
      height: 882,
      mediaType: 'image/png',
    });
    assert.deepEqual(encodingPlan({ type: 'image/jpeg', bytes: 3_000_000 }, 4032, 3024), {
      keep: false,
      width: 1568,
      height: 1176,
      mediaType: 'image/jpeg',
    });
    // Within the size but over 5 MB once in base64: re-encoded.
    assert.equal(encodingPlan({ type: 'image/png', bytes: 4_000_000 }, 1500, 1500).keep, false);
    assert.deepEqual(encodingPlan({ type: 'image/bmp', bytes: 1000 }, 10, 10), {
      keep: false,
      width: 10,
      height: 10,
      mediaType: 'image/png',
    });
  });

  it('encodes bytes as base64 in chunks, as Node does', () => {
    const bytes = new Uint8Array(100_003).map((_, i) => (i * 31) % 256);
    const b64 = toBase64(bytes);
    assert.equal(b64, Buffer.from(bytes).toString('base64'));
    assert.equal(b64.length, base64Length(bytes.length));
  });
});
