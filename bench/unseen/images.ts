/**
 * Images for the unseen sessions: base64 PNGs whose header says any width × height, padded
 * to any size (a 4.9 MB "retina screenshot" costs no drawing), and bytes that only start
 * like a JPEG or a WebP, for mislabelled media types. Deterministic: no randomness.
 */
import type { Block } from './records';

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

const cache = new Map<string, string>();

/** Base64 of a PNG whose IHDR says `width` × `height`, padded with filler to about `bytes` bytes (memoised). */
export function pngBase64(width: number, height: number, bytes = 40_000): string {
  const key = `${width}x${height}:${bytes}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const ihdr = Buffer.alloc(17);
  ihdr.write('IHDR', 0, 'ascii');
  ihdr.writeUInt32BE(width, 4);
  ihdr.writeUInt32BE(height, 8);
  ihdr[12] = 8;
  ihdr[13] = 6;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(13);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(ihdr));
  const head = Buffer.concat([signature, length, ihdr, crc]);
  const filler = Buffer.alloc(Math.max(0, bytes - head.length));
  for (let i = 0; i < filler.length; i++) filler[i] = (i * 2654435761) >>> 24;
  const b64 = Buffer.concat([head, filler]).toString('base64');
  cache.set(key, b64);
  return b64;
}

/** An `image` block (or tool_result part) of a PNG of `width` × `height` and about `bytes` bytes. */
export function imageBlock(width: number, height: number, bytes?: number): Block {
  return { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pngBase64(width, height, bytes) } };
}

/** Base64 of 3 KB that starts like a JPEG (FF D8 FF E0). */
export function jpegLikeBase64(): string {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(3000, 7)]).toString('base64');
}

/** Base64 of 3 KB that starts like a WebP (`RIFF….WEBPVP8 `). */
export function webpLikeBase64(): string {
  return Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 '), Buffer.alloc(3000, 3)]).toString(
    'base64',
  );
}
