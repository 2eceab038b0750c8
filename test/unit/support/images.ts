/** Minimal image files (real headers, truncated bodies) as base64, for the image-size tests. */

function b64(bytes: number[]): string {
  return Buffer.from(bytes).toString('base64');
}
const ascii = (s: string): number[] => [...s].map((c) => c.charCodeAt(0));
const u16be = (n: number): number[] => [(n >> 8) & 255, n & 255];
const u16le = (n: number): number[] => [n & 255, (n >> 8) & 255];
const u24le = (n: number): number[] => [n & 255, (n >> 8) & 255, (n >> 16) & 255];
const u32be = (n: number): number[] => [(n >>> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255];
const u32le = (n: number): number[] => [n & 255, (n >> 8) & 255, (n >> 16) & 255, (n >>> 24) & 255];

/** PNG: signature + IHDR (RGBA, 8 bit) + a CRC placeholder + an empty IEND. */
export function pngBase64(width: number, height: number): string {
  return b64([
    0x89,
    ...ascii('PNG\r\n'),
    0x1a,
    0x0a,
    ...u32be(13),
    ...ascii('IHDR'),
    ...u32be(width),
    ...u32be(height),
    8,
    6,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    ...u32be(0),
    ...ascii('IEND'),
    0xae,
    0x42,
    0x60,
    0x82,
  ]);
}

/** GIF89a: header + logical screen descriptor. */
export function gifBase64(width: number, height: number): string {
  return b64([...ascii('GIF89a'), ...u16le(width), ...u16le(height), 0xf7, 0, 0, 0x3b]);
}

/**
 * JPEG: SOI, a JFIF APP0, an EXIF APP1 of `exifBytes` junk, a DQT, fill bytes, then a
 * baseline SOF0 with the size, then SOS. Exercises segment skipping.
 */
export function jpegBase64(width: number, height: number, exifBytes = 5000): string {
  const app0 = [0xff, 0xe0, ...u16be(16), ...ascii('JFIF'), 0, 1, 1, 0, 0, 1, 0, 1, 0, 0];
  const app1 = [0xff, 0xe1, ...u16be(exifBytes + 2), ...Array.from({ length: exifBytes }, (_, i) => (i * 31) & 255)];
  const dqt = [0xff, 0xdb, ...u16be(67), 0, ...Array.from({ length: 64 }, () => 1)];
  const sof0 = [
    0xff,
    0xff,
    0xff,
    0xc0,
    ...u16be(17),
    8,
    ...u16be(height),
    ...u16be(width),
    3,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ];
  const sos = [0xff, 0xda, ...u16be(12), 3, 1, 0, 2, 0x11, 3, 0x11, 0, 63, 0];
  return b64([0xff, 0xd8, ...app0, ...app1, ...dqt, ...sof0, ...sos, 0xff, 0xd9]);
}

/** A progressive JPEG (SOF2) without any APP segment. */
export function progressiveJpegBase64(width: number, height: number): string {
  return b64([
    0xff,
    0xd8,
    0xff,
    0xc2,
    ...u16be(17),
    8,
    ...u16be(height),
    ...u16be(width),
    3,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
    0xff,
    0xd9,
  ]);
}

function riff(chunk: string, payload: number[]): string {
  return b64([
    ...ascii('RIFF'),
    ...u32le(4 + 8 + payload.length),
    ...ascii('WEBP'),
    ...ascii(chunk),
    ...u32le(payload.length),
    ...payload,
  ]);
}

/** WebP lossy (VP8): frame tag, start code, 14-bit sizes. */
export function webpLossyBase64(width: number, height: number): string {
  return riff('VP8 ', [0x50, 0x1d, 0x00, 0x9d, 0x01, 0x2a, ...u16le(width & 0x3fff), ...u16le(height & 0x3fff), 0, 0]);
}

/** WebP lossless (VP8L): signature 0x2f, then width−1 and height−1 packed in 14 bits each. */
export function webpLosslessBase64(width: number, height: number): string {
  const bits = ((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14);
  return riff('VP8L', [0x2f, ...u32le(bits >>> 0), 0]);
}

/** WebP extended (VP8X): flags, reserved, 24-bit canvas width−1 and height−1. */
export function webpExtendedBase64(width: number, height: number): string {
  return riff('VP8X', [0x10, 0, 0, 0, ...u24le(width - 1), ...u24le(height - 1)]);
}
