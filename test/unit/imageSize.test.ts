import { strict as assert } from 'node:assert';
import {
  imageDimensions,
  imageTokens,
  imageTokensForSize,
  MAX_IMAGE_TOKENS,
} from '../../src/core/conversation/imageSize';
import {
  gifBase64,
  jpegBase64,
  pngBase64,
  progressiveJpegBase64,
  webpExtendedBase64,
  webpLosslessBase64,
  webpLossyBase64,
} from './support/images';

describe('imageDimensions', () => {
  const cases: Array<[string, (w: number, h: number) => string]> = [
    ['PNG', pngBase64],
    ['GIF', gifBase64],
    ['JPEG (APP0, EXIF, DQT, fill bytes, SOF0)', jpegBase64],
    ['JPEG progressive (SOF2)', progressiveJpegBase64],
    ['WebP lossy', webpLossyBase64],
    ['WebP lossless', webpLosslessBase64],
    ['WebP extended', webpExtendedBase64],
  ];
  for (const [name, make] of cases) {
    it(`reads ${name} sizes`, () => {
      for (const [w, h] of [
        [1, 1],
        [640, 480],
        [1920, 1080],
        [333, 4000],
        [16383, 2],
      ] as const) {
        assert.deepEqual(imageDimensions(make(w, h)), { width: w, height: h }, `${w}×${h}`);
      }
    });
  }

  it('skips a JPEG EXIF segment larger than any header window', () => {
    assert.deepEqual(imageDimensions(jpegBase64(800, 600, 60_000)), { width: 800, height: 600 });
  });

  it('tolerates line breaks in the base64', () => {
    const wrapped = jpegBase64(800, 600).replace(/(.{76})/g, '$1\n');
    assert.deepEqual(imageDimensions(wrapped), { width: 800, height: 600 });
  });

  it('returns undefined for garbage, truncated or zero-sized headers', () => {
    assert.equal(imageDimensions(''), undefined);
    assert.equal(imageDimensions(Buffer.from('hello world, not an image').toString('base64')), undefined);
    assert.equal(imageDimensions(pngBase64(100, 100).slice(0, 20)), undefined);
    assert.equal(imageDimensions(pngBase64(0, 100)), undefined);
    assert.equal(imageDimensions('!!!!****'), undefined);
  });
});

describe('image tokens', () => {
  it('is width × height / 750 for small images', () => {
    assert.equal(imageTokensForSize({ width: 750, height: 100 }), 100);
    assert.equal(imageTokensForSize({ width: 200, height: 200 }), 54); // Anthropic's table: 200×200 ≈ 54
    assert.equal(imageTokensForSize({ width: 1, height: 1 }), 1);
  });

  it('scales the long edge to 1568 px and caps at ~1600 tokens', () => {
    // 1092×1092 (Anthropic's table: ≈1590 tokens) is under both limits.
    assert.equal(imageTokensForSize({ width: 1092, height: 1092 }), 1590);
    // A very wide image: long edge 4000 → 1568, height 100 → 39.
    assert.equal(imageTokensForSize({ width: 4000, height: 100 }), Math.ceil((1568 * 39) / 750));
    for (const [w, h] of [
      [4000, 3000],
      [1920, 1080],
      [8000, 8000],
      [1568, 1568],
    ]) {
      const t = imageTokensForSize({ width: w ?? 0, height: h ?? 0 });
      assert.ok(t <= MAX_IMAGE_TOKENS && t > 1400, `${w}×${h}: ${t}`);
    }
  });

  it('falls back conservatively from the byte size when the header is unreadable', () => {
    const junk = Buffer.alloc(100_000, 7).toString('base64');
    assert.equal(imageTokens(junk), MAX_IMAGE_TOKENS, 'a large unreadable image costs the maximum');
    const tiny = Buffer.alloc(40, 7).toString('base64');
    assert.equal(imageTokens(tiny), 10);
    assert.equal(imageTokens(pngBase64(750, 100)), 100);
  });
});
