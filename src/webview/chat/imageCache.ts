/**
 * The pasted images this webview holds, by `ref`. The host posts an image's base64 data once
 * per webview and leaves it out of later posts of the same item (host/chat/sentImages.ts);
 * `hydrate` puts the data back before an item is rendered, so the rest of the chat sees whole
 * items. The rule both sides follow: after a `transcript` the cache holds exactly that
 * transcript's images (a summary dropped the others, and the host forgets them too); an
 * `upsert` adds its item's. An image whose data never came stays without `data`, and the chat
 * shows it as not loaded rather than failing. Pure: no DOM.
 */
import type { ChatItem } from '../../protocol/chatItems';

/** Base64 data of the images this webview was sent, by ref. */
export class ImageCache {
  private data = new Map<string, string>();

  /** How many images are held. */
  get size(): number {
    return this.data.size;
  }

  /** The items of a new `transcript`, whole; afterwards only their images are held. */
  transcript(items: readonly ChatItem[]): ChatItem[] {
    const before = this.data;
    this.data = new Map();
    return items.map((item) => this.hydrate(item, before));
  }

  /** An `upsert`'s item, whole; its images are held from now on. */
  upsert(item: ChatItem): ChatItem {
    return this.hydrate(item, this.data);
  }

  private hydrate(item: ChatItem, before: ReadonlyMap<string, string>): ChatItem {
    if (item.kind !== 'user' || !item.images?.length) return item;
    return {
      ...item,
      images: item.images.map((img) => {
        const data = img.data ?? this.data.get(img.ref) ?? before.get(img.ref);
        if (data === undefined) return img;
        this.data.set(img.ref, data);
        return img.data === undefined ? { ...img, data } : img;
      }),
    };
  }
}
