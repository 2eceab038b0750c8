/**
 * Image dimensions from the header of base64 image data (PNG, JPEG, GIF, WebP), and the
 * token cost the Anthropic API charges for an image of that size. Pure: decodes only the
 * bytes it reads, straight from the base64 string, so a 5 MB screenshot costs microseconds.
 */
import type { ImageMediaType } from './conversationModel';

import { MAX_IMAGE_TOKENS, imageTokensForSize, type ImageDimensions } from '../../protocol/imageTokens';

// The API's image figures live in src/protocol (the composer scales and prices pasted images with them).
export {
  MAX_IMAGE_EDGE,
  MAX_IMAGE_TOKENS,
  PIXELS_PER_TOKEN,
  imageTokensForSize,
  type ImageDimensions,
} from '../../protocol/imageTokens';

const B64 = new Int16Array(128).fill(-1);
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.split('').forEach((c, i) => {
  B64[c.charCodeAt(0)] = i;
});
B64['-'.charCodeAt(0)] = 62; // base64url
B64['_'.charCodeAt(0)] = 63;

/** Random access to the bytes of a base64 string (without whitespace). */
class Base64Bytes {
  readonly length: number;
  constructor(private readonly b64: string) {
    let pad = 0;
    if (b64.endsWith('==')) pad = 2;
    else if (b64.endsWith('=')) pad = 1;
    this.length = Math.max(0, Math.floor((b64.length * 3) / 4) - pad);
  }
  /** The byte at `i`, or -1 past the end or on a character that is not base64. */
  at(i: number): number {
    if (i < 0 || i >= this.length) return -1;
    const q = Math.floor(i / 3) * 4;
    const r = i % 3;
    const a = this.sextet(q + r);
    const b = this.sextet(q + r + 1);
    if (a < 0 || b < 0) return -1;
    if (r === 0) return (a << 2) | (b >> 4);
    if (r === 1) return ((a & 15) << 4) | (b >> 2);
    return ((a & 3) << 6) | b;
  }
  private sextet(j: number): number {
    const c = this.b64.charCodeAt(j);
    return c < 128 ? (B64[c] ?? -1) : -1;
  }
  u16be(i: number): number {
    return (this.at(i) << 8) | this.at(i + 1);
  }
  u16le(i: number): number {
    return this.at(i) | (this.at(i + 1) << 8);
  }
  u24le(i: number): number {
    return this.at(i) | (this.at(i + 1) << 8) | (this.at(i + 2) << 16);
  }
  u32be(i: number): number {
    return this.at(i) * 0x1000000 + ((this.at(i + 1) << 16) | (this.at(i + 2) << 8) | this.at(i + 3));
  }
  ascii(i: number, n: number): string {
    let s = '';
    for (let k = 0; k < n; k++) s += String.fromCharCode(Math.max(0, this.at(i + k)));
    return s;
  }
}

function png(b: Base64Bytes): ImageDimensions | undefined {
  // 8-byte signature, then the IHDR chunk: length(4) "IHDR"(4) width(4) height(4).
  if (b.at(0) !== 0x89 || b.ascii(1, 3) !== 'PNG' || b.ascii(12, 4) !== 'IHDR') return undefined;
  return { width: b.u32be(16), height: b.u32be(20) };
}

function gif(b: Base64Bytes): ImageDimensions | undefined {
  const sig = b.ascii(0, 6);
  if (sig !== 'GIF87a' && sig !== 'GIF89a') return undefined;
  return { width: b.u16le(6), height: b.u16le(8) };
}

function webp(b: Base64Bytes): ImageDimensions | undefined {
  if (b.ascii(0, 4) !== 'RIFF' || b.ascii(8, 4) !== 'WEBP') return undefined;
  const chunk = b.ascii(12, 4);
  if (chunk === 'VP8 ') {
    // Lossy: frame tag (3 bytes) at 20, start code 9d 01 2a at 23, then 14-bit sizes.
    if (b.at(23) !== 0x9d || b.at(24) !== 0x01 || b.at(25) !== 0x2a) return undefined;
    return { width: b.u16le(26) & 0x3fff, height: b.u16le(28) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    // Lossless: signature 0x2f at 20, then width−1 and height−1 in 14 bits each.
    if (b.at(20) !== 0x2f) return undefined;
    const b0 = b.at(21),
      b1 = b.at(22),
      b2 = b.at(23),
      b3 = b.at(24);
    return { width: 1 + (((b1 & 0x3f) << 8) | b0), height: 1 + (((b3 & 0x0f) << 10) | (b2 << 2) | ((b1 & 0xc0) >> 6)) };
  }
  if (chunk === 'VP8X') {
    // Extended: canvas width−1 and height−1, 24 bits each, at 24 and 27.
    return { width: 1 + b.u24le(24), height: 1 + b.u24le(27) };
  }
  return undefined;
}

/** JPEG start-of-frame markers (baseline, progressive, lossless, arithmetic…), not DHT/DAC/JPG. */
function isSof(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function jpeg(b: Base64Bytes): ImageDimensions | undefined {
  if (b.at(0) !== 0xff || b.at(1) !== 0xd8) return undefined;
  let i = 2;
  // Walk the segments (each: FF marker, 2-byte length including itself) until a SOF.
  for (let guard = 0; guard < 10_000 && i < b.length; guard++) {
    if (b.at(i) !== 0xff) return undefined;
    let marker = b.at(i + 1);
    while (marker === 0xff) marker = b.at(++i + 1); // fill bytes
    if (marker < 0) return undefined;
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2; // markers without a length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // end of image / scan before any frame
    if (isSof(marker)) return { width: b.u16be(i + 7), height: b.u16be(i + 5) };
    const len = b.u16be(i + 2);
    if (len < 2) return undefined;
    i += 2 + len;
  }
  return undefined;
}

/**
 * The format base64 image data is in, by its signature bytes alone (PNG, JPEG, GIF, WebP), or
 * undefined when it starts with none of them. The API refuses an image whose media type is
 * not its format ("Image does not match the provided media type").
 */
export function sniffImageType(base64: string): ImageMediaType | undefined {
  const b = new Base64Bytes(/\s/.test(base64.slice(0, 64)) ? base64.slice(0, 64).replace(/\s+/g, '') : base64);
  if (b.at(0) === 0x89 && b.ascii(1, 3) === 'PNG') return 'image/png';
  if (b.at(0) === 0xff && b.at(1) === 0xd8 && b.at(2) === 0xff) return 'image/jpeg';
  if (b.ascii(0, 4) === 'GIF8') return 'image/gif';
  if (b.ascii(0, 4) === 'RIFF' && b.ascii(8, 4) === 'WEBP') return 'image/webp';
  return undefined;
}

/**
 * Width and height read from the header of base64 image data (PNG, JPEG, GIF, WebP lossy,
 * lossless and extended), whatever media type it claims. `undefined` when the header is not
 * one of those, is truncated, or gives a zero size. Never throws; reads only header bytes.
 */
export function imageDimensions(base64: string): ImageDimensions | undefined {
  const clean = /\s/.test(base64) ? base64.replace(/\s+/g, '') : base64;
  const b = new Base64Bytes(clean);
  for (const parse of [png, jpeg, gif, webp]) {
    const d = parse(b);
    if (d) return d.width > 0 && d.height > 0 ? d : undefined;
  }
  return undefined;
}

/**
 * Tokens of a base64 image: from its header size when readable; otherwise a conservative
 * guess from its byte size — one token per 4 decoded bytes, capped at the most any image
 * can cost (1600) — so an unreadable image is over- rather than under-counted.
 */
export function imageTokens(base64: string): number {
  const d = imageDimensions(base64);
  if (d) return imageTokensForSize(d);
  const bytes = new Base64Bytes(base64.replace(/\s+/g, '')).length;
  return Math.min(MAX_IMAGE_TOKENS, Math.max(1, Math.ceil(bytes / 4)));
}
