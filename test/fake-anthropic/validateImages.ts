/**
 * The request-wide image limits of the Messages API, which no single block shows
 * (https://platform.claude.com/docs/en/build-with-claude/vision, "General limits"): at most
 * 100 images in a request (the limit of 200k-window models; this fake holds every model to
 * it), at most 8000 px on a side, at most 2000 px once the request holds more than 20 images,
 * at most 5 MB of base64 per image, and (https://platform.claude.com/docs/en/api/overview,
 * request size limits) a request body of at most 32 MB, refused with 413
 * `request_too_large`. The errors read as the API's do (the many-image one
 * is quoted in anthropics/claude-code#13480). Sizes are read from the image header with this
 * fake's own parser (imageTokens.ts), not the extension's.
 */
import { imageSize } from './imageTokens';
import { invalid, isObject, reject } from './reject';

const MAX_IMAGES = 100;
const MANY_IMAGES = 20;
const MAX_SIDE = 8000;
const MAX_SIDE_MANY = 2000;
const MAX_BASE64 = 5 * 1024 * 1024;
const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** Base64 characters decoded to find an image's size: enough for PNG, GIF, WebP and JPEG headers. */
const HEADER_CHARS = 128 * 1024;

interface Found {
  readonly loc: string;
  readonly data: string;
}

const sizes = new Map<string, { width: number; height: number } | undefined>();

function sizeOf(data: string): { width: number; height: number } | undefined {
  const key = `${data.length}:${data.slice(0, 256)}:${data.slice(-64)}`;
  if (!sizes.has(key)) {
    if (sizes.size > 2_000) sizes.clear();
    sizes.set(key, imageSize(Buffer.from(data.slice(0, HEADER_CHARS - (HEADER_CHARS % 4)), 'base64')));
  }
  return sizes.get(key);
}

function imagesOf(messages: readonly unknown[]): Found[] {
  const out: Found[] = [];
  const add = (b: unknown, loc: string) => {
    if (isObject(b) && b.type === 'image' && isObject(b.source) && b.source.type === 'base64')
      out.push({ loc: `${loc}.image.source.base64.data`, data: String(b.source.data) });
  };
  messages.forEach((m, i) => {
    if (!isObject(m) || !Array.isArray(m.content)) return;
    m.content.forEach((b: unknown, j: number) => {
      const loc = `messages.${i}.content.${j}`;
      add(b, loc);
      if (isObject(b) && b.type === 'tool_result' && Array.isArray(b.content))
        b.content.forEach((p: unknown, k: number) => add(p, `${loc}.tool_result.content.${k}`));
    });
  });
  return out;
}

/** Refuses a request whose images break one of the limits above (`body`: the whole request, for its size). */
export function checkImageLimits(messages: readonly unknown[], body: unknown): void {
  const images = imagesOf(messages);
  if (images.length === 0) return;
  // Text alone cannot come near 32 MB (a 1M-token window is about 4 MB): measured when images might.
  const imageChars = images.reduce((n, im) => n + im.data.length, 0);
  if (imageChars > MAX_BODY_BYTES / 2) {
    const bytes = Buffer.byteLength(JSON.stringify(body));
    if (bytes > MAX_BODY_BYTES)
      reject(
        413,
        'request_too_large',
        'request_too_large',
        `Request exceeds the maximum allowed number of bytes: ${bytes} > ${MAX_BODY_BYTES}.`,
      );
  }
  if (images.length > MAX_IMAGES)
    invalid('too_many_images', `messages: Too many images in the request: ${images.length} > ${MAX_IMAGES}.`);
  for (const im of images) {
    if (im.data.length > MAX_BASE64)
      invalid(
        'image_too_large',
        `${im.loc}: image exceeds 5 MB maximum: ${im.data.length} bytes > ${MAX_BASE64} bytes`,
      );
    const size = sizeOf(im.data);
    if (!size) continue;
    const side = Math.max(size.width, size.height);
    if (side > MAX_SIDE)
      invalid(
        'image_dimensions',
        `${im.loc}: At least one of the image dimensions exceed max allowed size: ${MAX_SIDE} pixels`,
      );
    if (images.length > MANY_IMAGES && side > MAX_SIDE_MANY)
      invalid(
        'image_dimensions',
        `${im.loc}: At least one of the image dimensions exceed max allowed size for many-image requests: ${MAX_SIDE_MANY} pixels`,
      );
  }
}
