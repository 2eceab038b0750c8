/**
 * The pasted images one chat webview already holds. A user item's images carry their base64
 * `data` the first time that webview is sent them; every later post of an item with the same
 * image (a transcript rebuilt by a compaction, a restore, a pin; a resumed session) sends its
 * `ref` only, and the webview takes the data from its cache (webview/chat/imageCache.ts).
 * Without this a session with a few screenshots posted megabytes to the webview on every
 * compaction of a long turn.
 *
 * Both sides follow one rule, so they agree without a handshake: after a `transcript`, what the
 * webview holds is exactly the images of that transcript; an `upsert` adds its item's images.
 * `reset()` when the webview starts over (a new view, `ready`) or a post may not have arrived.
 * Pure: no VS Code.
 */
import type { ChatToWebview } from '../../protocol/chat';
import type { ChatItem } from '../../protocol/chatItems';

type UserImages = NonNullable<Extract<ChatItem, { kind: 'user' }>['images']>;

/** Tracks the images a webview holds and strips the data it already has from outgoing messages. */
export class SentImages {
  private held = new Set<string>();

  /** The webview holds nothing (it was created again, reloaded, or a post failed). */
  reset(): void {
    this.held = new Set();
  }

  /** How many images the webview holds now (for tests and logs). */
  get size(): number {
    return this.held.size;
  }

  /**
   * `message` as it should be posted: user items' images the webview already holds lose their
   * `data`; the others keep it and count as held from now on. Other messages pass unchanged.
   */
  strip(message: ChatToWebview): ChatToWebview {
    if (message.type === 'transcript') {
      const before = this.held;
      this.held = new Set();
      return { ...message, items: message.items.map((item) => this.stripItem(item, before)) };
    }
    if (message.type === 'upsert') return { ...message, item: this.stripItem(message.item, this.held) };
    return message;
  }

  private stripItem(item: ChatItem, held: ReadonlySet<string>): ChatItem {
    if (item.kind !== 'user' || !item.images?.length) return item;
    const images: UserImages = item.images.map((img) => {
      if (held.has(img.ref) || this.held.has(img.ref)) {
        this.held.add(img.ref);
        const withoutData = { ...img };
        delete withoutData.data;
        return withoutData;
      }
      // Only what goes with its data is held: a ref alone gives the webview nothing to keep.
      if (img.data !== undefined) this.held.add(img.ref);
      return img;
    });
    return { ...item, images };
  }
}
