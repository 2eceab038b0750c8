/**
 * Images pasted or dropped into the composer, made ready for the API in the webview (the
 * browser decodes and scales them; the host never runs an image codec). An image within the
 * limits goes as it is; a larger one is scaled so its long edge is at most 1568 px — the
 * vision guide's size above which the API scales it down itself (after the upload, adding
 * latency, with no gain), and under the 2000 px a side it allows when a request has more than
 * 20 images — and re-encoded (PNG, or JPEG for photos and when PNG stays over 5 MB).
 */
import { IMAGE_MEDIA_TYPES, MAX_IMAGE_BASE64, type ImageAttachment } from '../../protocol/chat';
import { imageTokensForSize, MAX_IMAGE_EDGE } from '../../protocol/imageTokens';

/** An image ready to send, with what the composer shows about it. */
export interface AttachedImage extends ImageAttachment {
  readonly name: string;
  readonly width: number;
  readonly height: number;
  /** The size it had before it was scaled down, when it was. */
  readonly scaledFrom?: { readonly width: number; readonly height: number };
  /** The tokens the API charges for it (width × height / 750, vision guide). */
  readonly tokens: number;
}

/** An image that could not be attached, with why (shown in the composer). */
export interface AttachFailure {
  readonly name: string;
  readonly error: string;
}

/** The size of a `width` × `height` image scaled (never up) so its long edge is at most `maxEdge`. */
export function fitWithin(
  width: number,
  height: number,
  maxEdge = MAX_IMAGE_EDGE,
): { readonly width: number; readonly height: number } {
  const scale = Math.min(1, maxEdge / Math.max(width, height, 1));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** Base64 characters of `bytes` bytes of data. */
export function base64Length(bytes: number): number {
  return 4 * Math.ceil(bytes / 3);
}

/** Whether `type` is a media type the API takes. */
export function isApiMediaType(type: string): type is ImageAttachment['mediaType'] {
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(type);
}

/**
 * How a file of `type` and `bytes` at `width` × `height` is sent: as it is when the API takes
 * its type and it is within both limits, else re-encoded at the fitted size — as JPEG when it
 * was a JPEG (a photo), else as PNG (screenshots, diagrams: sharp text).
 */
export function encodingPlan(
  file: { readonly type: string; readonly bytes: number },
  width: number,
  height: number,
):
  | { readonly keep: true }
  | {
      readonly keep: false;
      readonly width: number;
      readonly height: number;
      readonly mediaType: 'image/png' | 'image/jpeg';
    } {
  const fitted = fitWithin(width, height);
  const fits = fitted.width === width && fitted.height === height;
  if (isApiMediaType(file.type) && fits && base64Length(file.bytes) <= MAX_IMAGE_BASE64) return { keep: true };
  return { keep: false, ...fitted, mediaType: file.type === 'image/jpeg' ? 'image/jpeg' : 'image/png' };
}

/** The base64 of `bytes`, in chunks (a 5 MB image would overflow one `fromCharCode` call). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, Math.min(bytes.length, i + 0x8000)));
  return btoa(binary);
}

async function blobBase64(blob: Blob): Promise<string> {
  return toBase64(new Uint8Array(await blob.arrayBuffer()));
}

function encode(canvas: HTMLCanvasElement, type: string, quality?: number): Promise<Blob | null> {
  return new Promise((resolve) => canvas.toBlob(resolve, type, quality));
}

/** Reads, checks and (when needed) scales one pasted or dropped file; never throws. */
export async function attachImage(file: File): Promise<AttachedImage | AttachFailure> {
  const name = file.name || 'pasted image';
  if (!file.type.startsWith('image/')) return { name, error: `${name} is not an image` };
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return { name, error: `${name} could not be read as an image (PNG, JPEG, GIF or WebP)` };
  }
  try {
    const { width, height } = bitmap;
    const plan = encodingPlan({ type: file.type, bytes: file.size }, width, height);
    if (plan.keep) {
      const mediaType = file.type as ImageAttachment['mediaType'];
      const data = await blobBase64(file);
      return { name, mediaType, data, width, height, tokens: imageTokensForSize({ width, height }) };
    }
    const canvas = document.createElement('canvas');
    canvas.width = plan.width;
    canvas.height = plan.height;
    const ctx = canvas.getContext('2d');
    if (!ctx) return { name, error: `${name} could not be scaled (no canvas)` };
    ctx.drawImage(bitmap, 0, 0, plan.width, plan.height);
    // PNG first (sharp text); JPEG when PNG stays over the API's limit.
    let mediaType: 'image/png' | 'image/jpeg' = plan.mediaType;
    let blob = await encode(canvas, mediaType, 0.9);
    if (!blob || base64Length(blob.size) > MAX_IMAGE_BASE64) {
      mediaType = 'image/jpeg';
      blob = await encode(canvas, mediaType, 0.85);
    }
    if (!blob || base64Length(blob.size) > MAX_IMAGE_BASE64)
      return { name, error: `${name} stays over the API's 5 MB limit even when scaled down` };
    const fitted = { width: plan.width, height: plan.height };
    return {
      name,
      mediaType,
      data: await blobBase64(blob),
      ...fitted,
      ...(fitted.width !== width || fitted.height !== height ? { scaledFrom: { width, height } } : {}),
      tokens: imageTokensForSize(fitted),
    };
  } catch {
    // Its bytes could not be read or encoded (e.g. the file changed on disk): said like any other refusal.
    return { name, error: `${name} could not be read` };
  } finally {
    bitmap.close();
  }
}
