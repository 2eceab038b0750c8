import { strict as assert } from 'node:assert';
import type { Message, ToolResultBlock } from '../../src/core/conversation/conversationModel';
import {
  MAX_IMAGE_BASE64_CHARS,
  MAX_IMAGE_CHARS_PER_REQUEST,
  MAX_IMAGES_PER_REQUEST,
} from '../../src/core/normalize/imageLimits';
import { describeRepairs, normalizeState, NO_REPAIRS, sentMessages } from '../../src/core/normalize/normalize';
import { assertAccepted, NBuild, pipeline, refusal, stateOf } from './support/normalizeFixtures';
import { pngBase64 as pngHeader } from './support/images';

/** A chat where each listed image is a screenshot returned by a tool call, oldest first. */
function screenshots(b: NBuild, images: readonly string[]): Message[] {
  const out: Message[] = [b.user(b.text('Check every page.'))];
  images.forEach((data, i) => {
    const use = b.toolUse('screenshot', { page: i });
    out.push(b.assistant(use));
    const r = b.toolResult(use.id, '');
    const result: ToolResultBlock = {
      ...r,
      content: [
        { type: 'text', text: `page ${i}` },
        { type: 'image', mediaType: 'image/png', data },
      ],
    };
    out.push(b.user(result));
  });
  return out;
}

const imagesSent = (messages: readonly Message[]): string[] =>
  messages.flatMap((m) =>
    m.blocks.flatMap((b) =>
      b.type === 'image'
        ? [b.data]
        : b.type === 'tool_result' && typeof b.content !== 'string'
          ? b.content.flatMap((p) => (p.type === 'image' ? [p.data] : []))
          : [],
    ),
  );

describe("normalize: the API's image limits of one request", () => {
  const p = pipeline();

  it('a request within the limits is sent as it is (the same state, no repair)', () => {
    const b = new NBuild();
    const s = stateOf(
      screenshots(
        b,
        Array.from({ length: 20 }, () => pngHeader(2560, 1440)),
      ),
    );
    assert.equal(normalizeState(s).state, s, '20 large screenshots are within the limits');
    assert.equal(normalizeState(s).repairs, NO_REPAIRS);
    assertAccepted(p.prepare(s).params);
  });

  it('over 20 images, a few over 2000 px are sent as notes, and the request is accepted', () => {
    const b = new NBuild();
    const small = () => pngHeader(1280, 800);
    const images = [...Array.from({ length: 5 }, small), pngHeader(2560, 1440), ...Array.from({ length: 17 }, small)];
    const s = stateOf(screenshots(b, images));
    const raw = p.prepare(s);
    assert.equal(imagesSent(raw.sent.messages).length, 22, 'one left out rather than two of the oldest');
    const n = normalizeState(s);
    assert.deepEqual(
      n.repairs.map((r) => r.kind),
      ['image_over_limit'],
    );
    assert.match(n.repairs[0]?.detail ?? '', /2560×1440 px.*more than 20 images the API takes at most 2000 px/);
    assert.match(describeRepairs(n.repairs) ?? '', /1 image over the API's image limits sent as a note/);
    const note = JSON.stringify(n.state.messages[2 * 6]?.blocks);
    assert.match(note, /\[Image \(2560×1440 px\) left out of this request: .*It stays in the conversation\.\]/);
    assertAccepted(raw.params);
    assert.equal(imagesSent(s.messages).length, 23, 'the state keeps its images');
  });

  it('over 20 images, most over 2000 px: the oldest go, down to 20', () => {
    const b = new NBuild();
    const images = Array.from({ length: 25 }, (_, i) => pngHeader(2560 + i, 1440));
    const s = stateOf(screenshots(b, images));
    const raw = p.prepare(s);
    assert.deepEqual(imagesSent(raw.sent.messages), images.slice(5), 'the newest 20 retina captures');
    assert.match(
      normalizeState(s).repairs[0]?.detail ?? '',
      /the request holds images over 2000 px, which the API takes only in a request of at most 20 images/,
    );
    assertAccepted(raw.params);
  });

  it(`past ${MAX_IMAGES_PER_REQUEST} images the oldest are sent as notes`, () => {
    const b = new NBuild();
    const images = Array.from({ length: 103 }, (_, i) => pngHeader(200 + i, 100));
    const s = stateOf(screenshots(b, images));
    const sent = imagesSent(p.prepare(s).sent.messages);
    assert.equal(sent.length, MAX_IMAGES_PER_REQUEST);
    assert.deepEqual(sent, images.slice(3), 'the newest 100 are sent');
    assert.equal(sentMessages(s.messages).length, s.messages.length, 'the estimator measures the same messages');
    assert.deepEqual(imagesSent(sentMessages(s.messages)), images.slice(3));
    assertAccepted(p.prepare(s).params);
  });

  it("screenshots that together pass the API's 32 MB request limit: the oldest are sent as notes", () => {
    const b = new NBuild();
    // 40 screenshots of 1 MB each: within the count, over the request size.
    const images = Array.from({ length: 40 }, (_, i) => pngHeader(1200 + i, 800) + 'A'.repeat(1024 * 1024));
    const s = stateOf(screenshots(b, images));
    const prepared = p.prepare(s);
    const sent = imagesSent(prepared.sent.messages);
    assert.ok(sent.join('').length <= MAX_IMAGE_CHARS_PER_REQUEST);
    assert.ok(sent.length >= 20 && sent.length < 40, `${sent.length}`);
    assert.deepEqual(sent, images.slice(images.length - sent.length), 'the newest are sent');
    assert.match(
      normalizeState(s).repairs[0]?.detail ?? '',
      /the images of a request must fit the API's 32 MB request limit/,
    );
    assertAccepted(prepared.params);
  });

  it('an image over 8000 px or over 5 MB is never sent, even alone', () => {
    const b = new NBuild();
    const huge = pngHeader(9000, 300);
    const big = pngHeader(100, 100) + 'A'.repeat(MAX_IMAGE_BASE64_CHARS);
    for (const [data, why] of [
      [huge, /over the API's limit of 8000 px on a side/],
      [big, /over the API's limit of 5 MB for one image/],
    ] as const) {
      const s = stateOf([b.user(b.image('image/png', data), b.text('what is this?'))]);
      const n = normalizeState(s);
      assert.match(n.repairs[0]?.detail ?? '', why);
      assert.equal(imagesSent(n.state.messages).length, 0);
      assertAccepted(p.prepare(s).params);
    }
  });

  it("the fake API refuses what normalize repairs, with the API's messages", () => {
    const b = new NBuild();
    const many = screenshots(b, [...Array.from({ length: 20 }, () => pngHeader(800, 600)), pngHeader(2100, 900)]);
    const tooMany = screenshots(
      b,
      Array.from({ length: 101 }, () => pngHeader(300, 300)),
    );
    const base = p.prepare(stateOf([b.user(b.text('hi'))])).params;
    const raw = (messages: Message[]) => ({
      ...base,
      messages: messages.map((m) => ({
        role: m.role,
        content: m.blocks.map((x) =>
          x.type === 'text'
            ? { type: 'text', text: x.text || '.' }
            : x.type === 'tool_use'
              ? { type: 'tool_use', id: x.id, name: x.name, input: x.input }
              : x.type === 'tool_result' && typeof x.content !== 'string'
                ? {
                    type: 'tool_result',
                    tool_use_id: x.toolUseId,
                    content: x.content.map((c) =>
                      c.type === 'text'
                        ? c
                        : { type: 'image', source: { type: 'base64', media_type: c.mediaType, data: c.data } },
                    ),
                  }
                : x.type === 'image'
                  ? { type: 'image', source: { type: 'base64', media_type: x.mediaType, data: x.data } }
                  : { type: 'text', text: '.' },
        ),
      })),
    });
    assert.match(
      refusal(raw(many)) ?? '',
      /image\.source\.base64\.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels/,
    );
    assert.match(refusal(raw(tooMany)) ?? '', /Too many images in the request: 101 > 100/);
    assert.match(
      refusal(raw([b.user(b.image('image/png', pngHeader(8001, 10)))])) ?? '',
      /exceed max allowed size: 8000 pixels/,
    );
    assert.equal(
      refusal(
        raw(
          screenshots(
            b,
            Array.from({ length: 20 }, () => pngHeader(2560, 1440)),
          ),
        ),
      ),
      undefined,
    );
    const heavy = screenshots(
      b,
      Array.from({ length: 36 }, () => pngHeader(1000, 700) + 'A'.repeat(1024 * 1024)),
    );
    assert.match(refusal(raw(heavy)) ?? '', /Request exceeds the maximum allowed number of bytes: \d+ > 33554432/);
  });
});
