/**
 * Edit-and-resend of the user's last message, in the composer: Edit puts the message's words
 * and images in the box and tray under an "Editing your last message" bar (Cancel puts back
 * what the composer held); the next Send goes as `editLast`, which replaces that message and
 * everything after it (the host refuses it while a turn runs or when it is not the last one).
 */
import type { ChatItem } from '../../protocol/chatItems';
import { el } from '../shared/dom';
import type { ComposerDraft } from './giveBack';
import type { AttachedImage } from './imageAttach';

type UserItem = Extract<ChatItem, { kind: 'user' }>;

/** What the edit needs of the composer. */
export interface EditableComposer {
  /** Puts `draft` in the box and tray; returns what they held. */
  load(draft: ComposerDraft): ComposerDraft;
}

/** The composer's editing state and its bar; see the file comment. */
export class EditLastMessage {
  private readonly text = el('span', { class: 'edit-note-text' });
  private readonly cancelButton = el('button', { class: 'link', type: 'button' }, 'Cancel');
  /** The bar above the box, shown while editing. */
  readonly root = el(
    'div',
    { class: 'edit-note', role: 'status', 'data-testid': 'editing-note', hidden: '' },
    this.text,
    this.cancelButton,
  );
  private editing: { readonly messageId: string; readonly saved: ComposerDraft } | undefined;
  /** The message the last send edited, until the next send: editing resumes if it comes back unsent. */
  private sent: string | undefined;

  constructor(private readonly composer: EditableComposer) {
    this.cancelButton.addEventListener('click', () => this.cancel());
  }

  /** Escape in `area` (the composer) stops editing, unless something there used the key already (a queued message). */
  cancelOnEscape(area: HTMLElement): void {
    area.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape' || e.defaultPrevented || !this.editing) return;
      e.preventDefault();
      this.cancel();
    });
  }

  /** Whether a message is being edited. */
  get active(): boolean {
    return this.editing !== undefined;
  }

  /**
   * Starts editing `item` (the user's last message): its words and images go in the composer
   * (what the composer held is kept for Cancel). Images whose data never reached this view are
   * left out, and the bar says so.
   */
  async start(item: UserItem): Promise<void> {
    const images = await Promise.all((item.images ?? []).map(attached));
    const kept = images.filter((i): i is AttachedImage => i !== undefined);
    const held = this.composer.load({ text: item.text, images: kept });
    this.editing = { messageId: item.id, saved: this.editing?.saved ?? held };
    const lost = images.length - kept.length;
    this.show(lost > 0 ? ` ${lost} image${lost > 1 ? 's' : ''} could not be loaded back: paste again.` : '');
  }

  /** Stops editing: the composer holds what it held before Edit. */
  cancel(): void {
    const e = this.editing;
    if (!e) return;
    this.editing = undefined;
    this.root.hidden = true;
    this.composer.load(e.saved);
  }

  /** A message is being sent: the id of the message it replaces (editing ends), or undefined for a new one. */
  take(): string | undefined {
    this.sent = this.editing?.messageId;
    this.editing = undefined;
    this.root.hidden = true;
    return this.sent;
  }

  /** The host gave the last message back (`unsent`): if it was an edit, editing resumes (its words are back already). */
  givenBack(): void {
    if (this.sent === undefined) return;
    this.editing = { messageId: this.sent, saved: { text: '', images: [] } };
    this.sent = undefined;
    this.show('');
  }

  private show(extra: string): void {
    this.text.textContent = `Editing your last message: sending replaces it and everything after it. Files changed since stay changed.${extra} Esc or`;
    this.root.hidden = false;
  }
}

/** A sent image back as a tray image (its size read from its data), or undefined without data. */
async function attached(img: NonNullable<UserItem['images']>[number], i: number): Promise<AttachedImage | undefined> {
  if (img.data === undefined) return undefined;
  const node = new Image();
  node.src = `data:${img.mediaType};base64,${img.data}`;
  try {
    await node.decode();
  } catch {
    return undefined;
  }
  return {
    mediaType: img.mediaType,
    data: img.data,
    name: `image ${i + 1}`,
    width: node.naturalWidth,
    height: node.naturalHeight,
    tokens: img.tokens,
  };
}
