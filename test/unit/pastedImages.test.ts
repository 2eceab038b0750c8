import { strict as assert } from 'node:assert';
import { applyUserMessage, assembleUserMessage } from '../../src/core/conversation/assemble';
import { checkInvariants } from '../../src/core/conversation/invariants';
import { imageRef, inputText, PREVIEW_CHARS, resultText, userItem } from '../../src/host/chat/transcript';
import { MAX_IMAGE_BASE64, MAX_MESSAGE_IMAGES, parseChatToHost } from '../../src/protocol/chat';
import { imageTokensForSize } from '../../src/protocol/imageTokens';
import { base64Length, encodingPlan, fitWithin, toBase64 } from '../../src/webview/chat/imageAttach';
import { markRegions, pickRegions } from '../../src/core/compaction/regions';
import { summariseRegions } from '../../src/core/compaction/summarise';
import { attachedUserImages, MAX_SUMMARY_IMAGES, renderTranscript } from '../../src/core/compaction/summaryPrompt';
import type { Message } from '../../src/core/conversation/conversationModel';
import { Build, emptyState, fakeClock } from './support/builders';
import { answer, Convo, summariseOpts, tokensOf } from './support/compactionFixtures';
import { ScriptedLlm } from './support/scriptedLlm';
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
    // The second says JPEG but holds a PNG (a dropped file's type comes from its name): stored as its bytes say.
    assert.deepEqual(
      blocks.flatMap((x) => (x.type === 'image' ? [x.mediaType] : [])),
      ['image/png', 'image/png'],
    );
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
    const block = r.value.message.blocks.find((x) => x.type === 'image');
    assert.ok(block);
    assert.deepEqual(item.images, [
      {
        ref: imageRef(block.meta.id, shot),
        mediaType: 'image/png',
        data: shot,
        tokens: imageTokensForSize({ width: 1568, height: 882 }),
      },
    ]);
    assert.equal(item.images?.[0]?.tokens, 1600, '1568×882 costs the API’s maximum of about 1,600 tokens');
  });
});

describe('pasted images: compaction', () => {
  it('a summary of the turn keeps the words verbatim, shows the summariser the image, and the request stays valid', async () => {
    const c = new Convo('img');
    c.add({
      user: 'Make the page look like this screenshot',
      tools: Array.from({ length: 20 }, (_, i) => ({
        name: 'Read',
        input: { file_path: `src/page${i}.css` },
        result: `${i}: ${'x'.repeat(2_000)}`,
      })),
    });
    c.add({ user: 'Now run the tests', tools: [{ name: 'bash', input: { command: 'npm test' }, result: 'ok' }] });
    const first = c.messages[0] as Message;
    const withImage: Message = {
      ...first,
      blocks: [
        {
          type: 'image',
          mediaType: 'image/png',
          data: shot,
          meta: { id: 'img-1', tier: 1, source: 'user', createdAt: 0, pinned: false, compactable: true },
        },
        ...first.blocks,
      ],
    };
    const state = c.state({ messages: [withImage, ...c.messages.slice(1, -1)] });
    const regions = pickRegions(
      markRegions(state, { keepRecentTurns: 0, keepRecentTokens: 4_000, tokensOf }),
      Infinity,
    );
    assert.equal(regions[0]?.firstTurn, 1);
    const llm = new ScriptedLlm([answer('Read the CSS of 16 pages.')]);
    const out = await summariseRegions(state, summariseOpts(regions, llm));
    const head = out.state.messages[0] as Message;
    assert.ok(head.blocks[0]?.type === 'text' && head.blocks[0].text === 'Make the page look like this screenshot');
    assert.ok(
      out.state.messages.every((m) => m.blocks.every((b) => b.type !== 'image')),
      'the image went into the summary',
    );
    // The summariser sees the image itself, labelled as the transcript refers to it.
    const request = llm.requests[0];
    assert.ok(request);
    assertAccepted(request);
    const content = request.messages[0]?.content;
    assert.ok(Array.isArray(content));
    assert.deepEqual(
      content.slice(0, 2).map((c) => (c.type === 'image' && c.source.type === 'base64' ? c.source.data : c.type)),
      ['text', shot],
    );
    assert.match(JSON.stringify(content.at(-1)), /\[Image 1, attached above\]/);
    assert.deepEqual(checkInvariants(out.state), []);
    assertAccepted(pipeline().prepare(out.state).params);
    // The record keeps it, so Restore brings it back.
    assert.ok(out.records[0]?.originals.some((m) => m.blocks.some((b) => b.type === 'image' && b.data === shot)));
  });
});

describe('pasted images: what the summariser is shown', () => {
  it('attaches the newest four the user pasted, numbered in order; older ones and tool images are named only', () => {
    const img = (id: string, source: 'user' | 'tool'): Message['blocks'][number] => ({
      type: 'image',
      mediaType: 'image/png',
      data: shot,
      meta: { id, tier: 1, source, createdAt: 0, pinned: false, compactable: true },
    });
    const messages: Message[] = [
      { id: 'u1', role: 'user', turn: 1, blocks: [img('a', 'user'), img('b', 'user'), img('c', 'user')] },
      { id: 'u2', role: 'user', turn: 2, blocks: [img('t', 'tool'), img('d', 'user'), img('e', 'user')] },
      // Not an image the API takes: named, never attached (the summariser's request is not normalized).
      {
        id: 'u3',
        role: 'user',
        turn: 3,
        blocks: [{ ...img('x', 'user'), data: 'AAAAAAAA' } as Message['blocks'][number]],
      },
    ];
    const attached = attachedUserImages(messages);
    assert.equal(MAX_SUMMARY_IMAGES, 4);
    assert.deepEqual(
      [...attached].map(([b, n]) => `${b.meta.id}:${n}`),
      ['b:1', 'c:2', 'd:3', 'e:4'],
    );
    const text = renderTranscript(messages, attached);
    assert.match(text, /\[image: image\/png, \d+ KB\][\s\S]*\[Image 1, attached above\]/);
    assert.equal((text.match(/attached above/g) ?? []).length, 4);
    assert.equal(
      (text.match(/\[image: image\/png, \d+ KB\]/g) ?? []).length,
      3,
      "the oldest, the tool's and the one that is not an image",
    );
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

  it('refuses a million image entries by their count, before looking at any of them (issue 34 #15)', () => {
    let looked = 0;
    const entry = {
      get mediaType() {
        looked++;
        return 'image/png';
      },
      data: shot,
    };
    const r = send(Array.from({ length: 1_000_000 }, () => entry));
    assert.ok(!r.ok);
    assert.match(r.error, /at most 20 images/);
    assert.equal(looked, 0);
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

describe('the chat never splits a surrogate pair at its preview length (issue 34 #15)', () => {
  it('cuts a tool result and a tool input before an emoji that straddles 4,000 characters', () => {
    const text = `${'a'.repeat(PREVIEW_CHARS - 1)}😀${'b'.repeat(10)}`;
    const shown = resultText(text);
    assert.ok(shown.startsWith('a'.repeat(PREVIEW_CHARS - 1)));
    assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(shown), 'no lone high surrogate');
    const input = inputText({ s: text });
    assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(input));
  });
});
