/**
 * The Messages API's limits on the images of one request, which no single message shows: a
 * request whose history breaks one is refused, and every later request that still carries
 * the image is refused the same way (Claude Code users hit this: anthropics/claude-code#13480).
 * Documented at https://platform.claude.com/docs/en/build-with-claude/vision ("General
 * limits"): at most 100 images in a request to a model with a 200k-token window (600 for the
 * others; 100 is used for all, so a model switch never breaks a history), at most 8000 px on a
 * side, and 2000 px once a request holds more than 20 images; at most 5 MB per image (the
 * API's error: "image exceeds 5 MB maximum"); and a request body of at most 32 MB, which a
 * hundred screenshots can pass long before their count does — so the images sent take at most
 * {@link MAX_IMAGE_CHARS_PER_REQUEST} characters, leaving the rest for the text.
 *
 * An image over a limit is sent as a note naming why; the state keeps it (the note is only in
 * the request, like every repair of normalize). Which images go: any over 5 MB or 8000 px;
 * then, past 100 or past the request's share for images, the oldest; then, when more than 20
 * remain and some are over 2000 px, either those or the oldest down to 20, whichever leaves out
 * fewer. Pure; a
 * request within the limits costs one memoised pass per new message and comes back as the
 * same array.
 */
import type { ImageBlock, Message, ToolResultBlock, ToolResultContent } from '../conversation/conversationModel';
import { imageDimensions } from '../conversation/imageSize';
import { derivedMeta, textFor } from './repairRules';
import { NO_REPAIRS, type Repair } from './repairs';

/** Images one request may hold (the limit for 200k-window models). */
export const MAX_IMAGES_PER_REQUEST = 100;
/** Over this many images in a request, each must be at most {@link MAX_SIDE_MANY_IMAGES} px on a side. */
export const MANY_IMAGES = 20;
/** The longest side an image may have. */
export const MAX_SIDE = 8000;
/** The longest side an image may have in a request of more than {@link MANY_IMAGES} images. */
export const MAX_SIDE_MANY_IMAGES = 2000;
/** The most base64 characters one image may take (5 MB). */
export const MAX_IMAGE_BASE64_CHARS = 5 * 1024 * 1024;
/**
 * The most base64 characters the images of one request may take together: 24 MB of the API's
 * 32 MB request limit, the rest left for the text (a 1M-token window of text is about 4 MB).
 */
export const MAX_IMAGE_CHARS_PER_REQUEST = 24 * 1024 * 1024;

/** What a message holds in images, for the quick check. */
interface ImageStats {
  readonly count: number;
  /** Base64 characters of its images. */
  readonly chars: number;
  /** Some image is over 5 MB or over 8000 px: always left out. */
  readonly overAlways: boolean;
  /** Some image is over 2000 px on a side: left out in a request of many images. */
  readonly overMany: boolean;
}

const stats = new WeakMap<Message, ImageStats>();
const NO_IMAGES: ImageStats = { count: 0, chars: 0, overAlways: false, overMany: false };

/** One image of the request: where it is and what it is. */
interface Site {
  readonly message: number;
  readonly block: number;
  /** Its index among the tool result's parts; undefined for an image block. */
  readonly part?: number;
  readonly data: string;
  readonly side?: number;
  readonly size: string;
}

type Limited = { readonly value: readonly Message[]; readonly repairs: readonly Repair[] };
/** Per messages array, its result: normalize and the estimator both ask for each request. */
const limited = new WeakMap<readonly Message[], Limited>();

/** The images of `messages` within the API's limits (see the module comment), with a repair per image left out. */
export function limitImages(messages: readonly Message[]): Limited {
  let r = limited.get(messages);
  if (!r) limited.set(messages, (r = computeLimits(messages)));
  return r;
}

function computeLimits(messages: readonly Message[]): Limited {
  let count = 0;
  let chars = 0;
  let overAlways = false;
  let overMany = false;
  for (const m of messages) {
    const s = statsOf(m);
    count += s.count;
    chars += s.chars;
    overAlways ||= s.overAlways;
    overMany ||= s.overMany;
  }
  if (
    !overAlways &&
    count <= MAX_IMAGES_PER_REQUEST &&
    chars <= MAX_IMAGE_CHARS_PER_REQUEST &&
    (count <= MANY_IMAGES || !overMany)
  )
    return { value: messages, repairs: NO_REPAIRS };
  const sites = messages.flatMap(sitesOf);
  const out = new Map<Site, string>();
  for (const s of sites) {
    if (s.data.length > MAX_IMAGE_BASE64_CHARS) out.set(s, `it is over the API's limit of 5 MB for one image`);
    else if ((s.side ?? 0) > MAX_SIDE) out.set(s, `it is over the API's limit of ${MAX_SIDE} px on a side`);
  }
  let kept = sites.filter((s) => !out.has(s));
  for (const s of kept.slice(0, Math.max(0, kept.length - MAX_IMAGES_PER_REQUEST)))
    out.set(s, `a request may hold at most ${MAX_IMAGES_PER_REQUEST} images, and newer ones are sent`);
  kept = sites.filter((s) => !out.has(s));
  let keptChars = kept.reduce((n, s) => n + s.data.length, 0);
  for (const s of kept) {
    if (keptChars <= MAX_IMAGE_CHARS_PER_REQUEST) break;
    out.set(s, `the images of a request must fit the API's 32 MB request limit, and newer ones are sent`);
    keptChars -= s.data.length;
  }
  kept = sites.filter((s) => !out.has(s));
  // Over 20 images, none may pass 2000 px: leave out whichever is fewer — the large ones, or
  // the oldest images down to 20 (after which size no longer matters).
  const large = kept.filter((s) => (s.side ?? 0) > MAX_SIDE_MANY_IMAGES);
  const excess = kept.length - MANY_IMAGES;
  if (excess > 0 && large.length > 0) {
    if (large.length < excess)
      for (const s of large)
        out.set(
          s,
          `in a request of more than ${MANY_IMAGES} images the API takes at most ${MAX_SIDE_MANY_IMAGES} px on a side`,
        );
    else
      for (const s of kept.slice(0, excess))
        out.set(
          s,
          `the request holds images over ${MAX_SIDE_MANY_IMAGES} px, which the API takes only in a request of at most ${MANY_IMAGES} images, and newer ones are sent`,
        );
  }
  return replaceImages(messages, out);
}

function statsOf(m: Message): ImageStats {
  let s = stats.get(m);
  if (s) return s;
  const found = m.role === 'user' ? sitesOf(m, 0) : [];
  s =
    found.length === 0
      ? NO_IMAGES
      : {
          count: found.length,
          chars: found.reduce((n, x) => n + x.data.length, 0),
          overAlways: found.some((x) => x.data.length > MAX_IMAGE_BASE64_CHARS || (x.side ?? 0) > MAX_SIDE),
          overMany: found.some((x) => (x.side ?? 0) > MAX_SIDE_MANY_IMAGES),
        };
  stats.set(m, s);
  return s;
}

function site(message: number, block: number, part: number | undefined, data: string): Site {
  const d = imageDimensions(data);
  return {
    message,
    block,
    ...(part === undefined ? {} : { part }),
    data,
    ...(d ? { side: Math.max(d.width, d.height) } : {}),
    size: d ? `${d.width}×${d.height} px` : `${Math.round((data.length * 3) / 4 / 1024).toLocaleString('en-US')} KB`,
  };
}

function sitesOf(m: Message, message: number): Site[] {
  if (m.role !== 'user') return [];
  const out: Site[] = [];
  m.blocks.forEach((b, block) => {
    if (b.type === 'image') out.push(site(message, block, undefined, b.data));
    else if (b.type === 'tool_result' && typeof b.content !== 'string')
      b.content.forEach((p, part) => {
        if (p.type === 'image') out.push(site(message, block, part, p.data));
      });
  });
  return out;
}

function note(s: Site, why: string): string {
  return `[Image (${s.size}) left out of this request: ${why}. It stays in the conversation.]`;
}

function replaceImages(messages: readonly Message[], out: ReadonlyMap<Site, string>): Limited {
  if (out.size === 0) return { value: messages, repairs: NO_REPAIRS };
  const byMessage = new Map<number, Site[]>();
  for (const s of out.keys()) byMessage.set(s.message, [...(byMessage.get(s.message) ?? []), s]);
  const repairs: Repair[] = [];
  const value = messages.map((m, i) => {
    const here = byMessage.get(i);
    if (!here) return m;
    const blocks = m.blocks.map((b, j) => {
      const mine = here.filter((s) => s.block === j);
      if (mine.length === 0) return b;
      for (const s of mine)
        repairs.push({
          kind: 'image_over_limit',
          messageId: m.id,
          blockId: b.meta.id,
          detail: `An image (${s.size}) of message ${m.id} was sent as a note: ${out.get(s) as string}.`,
        });
      if (b.type === 'image')
        return textFor((b as ImageBlock).meta, note(mine[0] as Site, out.get(mine[0] as Site) as string));
      const r = b as ToolResultBlock;
      const content: ToolResultContent = (r.content as Exclude<ToolResultContent, string>).map((p, k) => {
        const s = mine.find((x) => x.part === k);
        return s ? { type: 'text' as const, text: note(s, out.get(s) as string) } : p;
      });
      return { ...r, content, meta: derivedMeta(r.meta, r.meta.toolUseId) };
    });
    return { ...m, blocks };
  });
  return { value, repairs };
}
