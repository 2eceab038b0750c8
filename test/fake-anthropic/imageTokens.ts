/**
 * Image token cost as the API documents it: the image is scaled down to fit a 1568-pixel long
 * edge and about 1.15 megapixels, then costs ceil(width × height / 750) tokens. Dimensions
 * are read from the PNG, GIF, WebP or JPEG header of base64 data; images whose size cannot be
 * read (URL or file sources, unknown formats) cost the maximum, 1600 tokens.
 */

/** Tokens of an image whose size is unknown (the API's maximum for one image). */
export const UNKNOWN_IMAGE_TOKENS = 1600;

const MAX_EDGE = 1568;
const MAX_PIXELS = 1_150_000;

/** Tokens of an image of `width` × `height` pixels after the API's downscaling. */
export function imageTokensForSize(width: number, height: number): number {
  if (width <= 0 || height <= 0) return UNKNOWN_IMAGE_TOKENS;
  const scale = Math.min(1, MAX_EDGE / Math.max(width, height), Math.sqrt(MAX_PIXELS / (width * height)));
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  return Math.min(UNKNOWN_IMAGE_TOKENS, Math.ceil((w * h) / 750));
}

/** Tokens of a base64-encoded image (the `data` of a base64 image source). */
export function imageTokensForBase64(data: string): number {
  const size = imageSize(Buffer.from(data, 'base64'));
  return size ? imageTokensForSize(size.width, size.height) : UNKNOWN_IMAGE_TOKENS;
}

/** Width and height from an image file's header, or undefined when the format is not recognised. */
export function imageSize(b: Buffer): { width: number; height: number } | undefined {
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47)
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (b.length >= 10 && b.toString('latin1', 0, 4) === 'GIF8')
    return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (b.length >= 30 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP')
    return webpSize(b);
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpegSize(b);
  return undefined;
}

function webpSize(b: Buffer): { width: number; height: number } | undefined {
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (chunk === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  return undefined;
}

function jpegSize(b: Buffer): { width: number; height: number } | undefined {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1] ?? 0;
    if (marker === 0xff) {
      i++;
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
    i += 2 + b.readUInt16BE(i + 2);
  }
  return undefined;
}
