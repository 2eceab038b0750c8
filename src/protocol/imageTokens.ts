/**
 * The Anthropic API's image facts: the media types it takes, and what it charges for an image, by its size (vision guide,
 * https://platform.claude.com/docs/en/build-with-claude/vision, "Evaluate image size":
 * tokens = width × height / 750; an image whose long edge is over 1568 px, or that would cost
 * more than about 1,600 tokens, is first scaled down, aspect kept). One home for the host's
 * counts (core/conversation/imageSize.ts re-exports it) and the composer's pasted images. Pure.
 */

/**
 * Media types the Messages API takes for a base64 image (SDK `Base64ImageSource.media_type`:
 * 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp').
 */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** Width and height in pixels. */
export interface ImageDimensions {
  readonly width: number;
  readonly height: number;
}

/** The API scales an image down until its long edge is at most this many pixels… */
export const MAX_IMAGE_EDGE = 1568;
/** …and it costs at most about this many tokens (it is scaled down until it fits). */
export const MAX_IMAGE_TOKENS = 1600;
/** Pixels per token: tokens ≈ width × height / 750 (Anthropic vision docs). */
export const PIXELS_PER_TOKEN = 750;

/**
 * Tokens the API charges for an image of this size: it is first scaled down (aspect kept)
 * until the long edge is ≤ 1568 px and it costs ≤ ~1600 tokens, then costs
 * ceil(width × height / 750). Always ≥ 1.
 */
export function imageTokensForSize(d: ImageDimensions): number {
  let scale = Math.min(1, MAX_IMAGE_EDGE / Math.max(d.width, d.height));
  const maxPixels = MAX_IMAGE_TOKENS * PIXELS_PER_TOKEN;
  const pixels = d.width * d.height * scale * scale;
  if (pixels > maxPixels) scale *= Math.sqrt(maxPixels / pixels);
  const w = Math.max(1, Math.round(d.width * scale));
  const h = Math.max(1, Math.round(d.height * scale));
  return Math.min(MAX_IMAGE_TOKENS, Math.max(1, Math.ceil((w * h) / PIXELS_PER_TOKEN)));
}
