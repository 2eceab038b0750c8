/**
 * The images waiting to go with the next message, above the composer's input: a thumbnail
 * each, its size and tokens (and the size it was scaled from), and a button that takes it
 * out. Images come from a paste or a drop (see imageAttach.ts); what cannot be attached is
 * said in the tray's note, and nothing typed is touched.
 */
import { MAX_MESSAGE_IMAGES, type ImageAttachment } from '../../protocol/chat';
import { el, formatTokens } from '../shared/dom';
import { icon } from '../shared/icons';
import { attachImage, type AttachedImage, type AttachFailure } from './imageAttach';

/** The image files in `data` (a paste's or a drop's DataTransfer); none when it is null. */
export function imageFiles(data: DataTransfer | null): File[] {
  if (!data) return [];
  return [...data.files].filter((f) => f.type.startsWith('image/'));
}

/** The tray: attach, show, remove, take for sending. */
export class ImageTray {
  readonly root = el('div', {
    class: 'image-tray',
    role: 'list',
    'aria-label': 'Images that go with your next message',
    'data-testid': 'image-tray',
    hidden: '',
  });
  private readonly note = el('div', { class: 'image-note', role: 'status', 'data-testid': 'image-note', hidden: '' });
  private images: AttachedImage[] = [];
  /** Files still being read: Send waits for them (see `pending`). */
  private reading = 0;

  /** `changed` hears of every change (to save the tray with the draft); `initial`: a saved tray. */
  constructor(
    private readonly changed: (images: readonly AttachedImage[]) => void = () => undefined,
    initial: readonly AttachedImage[] = [],
  ) {
    this.images = [...initial];
    this.render();
  }

  /** The note under the tray (a refused file, a scaled one). */
  get noteNode(): HTMLElement {
    return this.note;
  }

  /** Whether files are still being read. */
  get pending(): boolean {
    return this.reading > 0;
  }

  /** Whether any image waits. */
  get size(): number {
    return this.images.length;
  }

  /** Reads, scales and shows `files`; the ones that cannot go are named in the note. */
  async add(files: readonly File[]): Promise<void> {
    const room = MAX_MESSAGE_IMAGES - this.images.length - this.reading;
    const taken = files.slice(0, Math.max(0, room));
    const problems: string[] = [];
    if (taken.length < files.length)
      problems.push(`A message takes at most ${MAX_MESSAGE_IMAGES} images; ${files.length - taken.length} left out`);
    this.reading += taken.length;
    const results: Array<AttachedImage | AttachFailure> = await Promise.all(taken.map((f) => attachImage(f)));
    this.reading -= taken.length;
    const scaled: string[] = [];
    for (const r of results) {
      if ('error' in r) problems.push(r.error);
      else {
        this.images.push(r);
        if (r.scaledFrom)
          scaled.push(`${r.name} scaled from ${r.scaledFrom.width}×${r.scaledFrom.height} to ${r.width}×${r.height}`);
      }
    }
    this.render();
    this.say([...problems, ...scaled].join(' · '), problems.length > 0);
    this.changed(this.images);
  }

  /** The images for a send (or a preview): as the protocol carries them. */
  attachments(): ImageAttachment[] {
    return this.images.map(({ mediaType, data }) => ({ mediaType, data }));
  }

  /** Shows exactly `images` (a message that did not go, given back ahead of those added since). */
  replace(images: readonly AttachedImage[]): void {
    this.images = [...images];
    this.render();
    this.changed(this.images);
  }

  /** The images as shown (to give back if the message does not go). */
  shown(): readonly AttachedImage[] {
    return [...this.images];
  }

  /** Empties the tray (after a send). */
  clear(): void {
    this.images = [];
    this.render();
    this.say('', false);
    this.changed(this.images);
  }

  private say(text: string, problem: boolean): void {
    this.note.textContent = text;
    this.note.hidden = text === '';
    this.note.classList.toggle('problem', problem);
  }

  private render(): void {
    this.root.replaceChildren(...this.images.map((img, i) => this.thumb(img, i)));
    this.root.hidden = this.images.length === 0;
  }

  private thumb(img: AttachedImage, index: number): HTMLElement {
    const what = `${img.name}, ${img.width}×${img.height}, about ${formatTokens(img.tokens)} tokens`;
    const remove = el(
      'button',
      { class: 'image-remove', type: 'button', title: 'Leave out of this message', 'aria-label': `Remove ${what}` },
      icon('close'),
    );
    remove.addEventListener('click', () => {
      this.images.splice(index, 1);
      this.render();
      this.say('', false);
      this.changed(this.images);
    });
    return el(
      'span',
      { class: 'image-chip', role: 'listitem', title: what, 'data-testid': 'image-chip' },
      el('img', { src: `data:${img.mediaType};base64,${img.data}`, alt: img.name }),
      el(
        'span',
        { class: 'image-meta' },
        el('span', { class: 'image-size' }, `${img.width}×${img.height} · ${formatTokens(img.tokens)} tok`),
        remove,
      ),
    );
  }
}
