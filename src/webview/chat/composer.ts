import { el } from '../shared/dom';
import { icon } from '../shared/icons';
import { chipKeyAction, chipKind, focusAfterRemoval } from './chipKeys';
import { MAX_MESSAGE_IMAGES, type ImageAttachment } from '../../protocol/chat';
import { SLASH_COMMANDS, parseSlash, sendProblem } from './composerChecks';
import { giveBack, type ComposerDraft } from './giveBack';
import type { AttachedImage } from './imageAttach';
import { ImageTray, imageFiles } from './imageTray';
import type { ComposerExtension } from './mentionPicker';

export { SLASH_COMMANDS, parseSlash, sendProblem } from './composerChecks';

/** What the composer asks of the page. */
export interface ComposerHandlers {
  send(text: string, images: readonly ImageAttachment[]): void;
  stop(): void;
  preview(text: string, images: readonly ImageAttachment[]): void;
  draftChanged(text: string): void;
  /** The images waiting in the tray changed (saved with the draft). */
  imagesChanged(images: readonly AttachedImage[]): void;
  /** Leave a context chip out of the next message. */
  dismissContext(key: string): void;
}

/** A chip of the context that goes with the next message (from the host's `pendingContext`). */
export interface PendingChip {
  key: string;
  tag: string;
  label: string;
  tokens: number;
  text: string;
  pinned: boolean;
  /** A file mentioned with `@` that could not be attached: why. */
  error?: string;
}

/**
 * The message input: Enter sends, Shift+Enter adds a line, Up/Down walk through what was
 * sent before (when the caret is on the first/last line); Stop replaces Send during a turn.
 */
export class Composer {
  readonly root: HTMLElement;
  private readonly input = el('textarea', {
    class: 'input',
    rows: '2',
    placeholder: 'Ask Claude… (Shift+Enter: new line)',
    'aria-label': 'Message',
  });
  private readonly sendButton = el('button', { class: 'primary', type: 'button' }, 'Send');
  private readonly previewButton = el(
    'button',
    { class: 'secondary', type: 'button', title: 'Show exactly what would be sent, without sending' },
    'Preview',
  );
  private readonly suggestions = el('ul', {
    class: 'suggestions',
    role: 'listbox',
    'aria-label': 'Slash commands',
    hidden: '',
  });
  private readonly context = el('div', {
    class: 'pending-context',
    'data-testid': 'pending-context',
    role: 'list',
    'aria-label': 'Context that goes with your next message',
  });
  /** Says what a removal did, for screen readers (the chip itself is gone). */
  private readonly announcer = el('span', {
    class: 'sr-only',
    role: 'status',
    'aria-live': 'polite',
    'data-testid': 'chip-announcer',
  });
  /** The index of the chip just removed by keyboard: focus goes to its successor on the next render. */
  private refocus: number | undefined;
  private busy = false;
  /** Enter was pressed during a turn: the message goes when the turn ends (Escape cancels). */
  private queued = false;
  private readonly queueNote = el(
    'div',
    { class: 'queue-note', role: 'status', 'data-testid': 'queued-note', hidden: '' },
    'Queued: sends when this turn ends · Esc cancels',
  );
  /** Why the last Send was refused (the text stays in the box); hidden once the text changes. */
  private readonly problemNote = el('div', {
    class: 'send-problem',
    role: 'alert',
    'data-testid': 'send-problem',
    hidden: '',
  });
  private history: string[] = [];
  private cursor = -1;
  private readonly extensions: ComposerExtension[] = [];
  /** Images pasted or dropped for the next message. */
  private readonly images: ImageTray;
  /** The last message sent, until the next: given back if the host says it did not go. */
  private lastSent: { readonly text: string; readonly images: readonly AttachedImage[] } | undefined;

  constructor(
    private readonly handlers: ComposerHandlers,
    draft: string,
    history: readonly string[],
    images: readonly AttachedImage[] = [],
  ) {
    this.images = new ImageTray((now) => {
      this.problemNote.hidden = true;
      handlers.imagesChanged(now);
    }, images);
    this.input.value = draft;
    this.history = [...history];
    this.root = el(
      'footer',
      { class: 'composer' },
      this.context,
      this.announcer,
      this.suggestions,
      this.queueNote,
      this.images.root,
      this.images.noteNode,
      this.problemNote,
      this.input,
      el('div', { class: 'actions' }, this.previewButton, this.sendButton),
    );
    this.input.addEventListener('input', () => {
      this.problemNote.hidden = true;
      handlers.draftChanged(this.input.value);
      this.suggest();
    });
    this.input.addEventListener('keydown', (e) => this.onKey(e));
    this.sendButton.addEventListener('click', () => (this.busy ? handlers.stop() : this.submit()));
    this.previewButton.addEventListener('click', () => handlers.preview(this.input.value, this.images.attachments()));
    this.acceptImages();
  }

  /**
   * A paste with image files attaches them (text in the same paste is still pasted); files
   * dropped on the composer too.
   */
  private acceptImages(): void {
    this.input.addEventListener('paste', (e) => {
      const files = imageFiles(e.clipboardData);
      if (files.length === 0) return;
      if (!e.clipboardData?.types.includes('text/plain')) e.preventDefault();
      // Not awaited: ImageTray.add never rejects (attachImage turns each failure into a message in the tray).
      void this.images.add(files);
    });
    this.root.addEventListener('dragover', (e) => {
      if (!e.dataTransfer?.types.includes('Files')) return;
      e.preventDefault();
      this.root.classList.add('dropping');
    });
    this.root.addEventListener('dragleave', () => this.root.classList.remove('dropping'));
    this.root.addEventListener('drop', (e) => {
      this.root.classList.remove('dropping');
      const files = imageFiles(e.dataTransfer);
      if (files.length === 0) return;
      e.preventDefault();
      // Not awaited: ImageTray.add never rejects (attachImage turns each failure into a message in the tray).
      void this.images.add(files);
    });
  }

  /** Adds a part of the input (the `@` picker, made from the input): above it, seeing its keys first. */
  extend<T extends ComposerExtension>(make: (input: HTMLTextAreaElement) => T): T {
    const ext = make(this.input);
    this.extensions.push(ext);
    this.problemNote.after(ext.root);
    return ext;
  }

  /** Switches between Send and Stop; a message queued during the turn goes when it ends. */
  setBusy(busy: boolean): void {
    this.busy = busy;
    this.sendButton.textContent = busy ? 'Stop' : 'Send';
    this.sendButton.classList.toggle('stop', busy);
    this.previewButton.disabled = busy;
    if (!busy && this.queued) {
      this.setQueued(false);
      this.submit();
    }
  }

  private setQueued(queued: boolean): void {
    this.queued = queued;
    this.queueNote.hidden = !queued;
  }

  /**
   * Shows the chips of what goes with the next message: kind, file and lines, tokens; the
   * exact tagged block on hover; its close button (or Delete on the focused chip) leaves it
   * out of this turn. Kinds turned off in the
   * settings are named so an empty row is explained.
   */
  setContext(chips: readonly PendingChip[], disabled: readonly string[]): void {
    const nodes: HTMLElement[] = chips.map((c, i) => this.chip(c, i));
    const off = disabled.map((d) => (d === 'ide_selection' ? 'selection' : 'opened file'));
    if (off.length > 0)
      nodes.push(
        el(
          'span',
          {
            class: 'muted context-off',
            role: 'listitem',
            title: 'contextPipeline.injectSelection / contextPipeline.injectOpenedFile',
          },
          `${off.join(' and ')} context off in settings`,
        ),
      );
    this.context.replaceChildren(...nodes);
    this.context.hidden = nodes.length === 0;
    if (this.refocus !== undefined) {
      const to = focusAfterRemoval(this.refocus, chips.length);
      this.refocus = undefined;
      (to === 'input' ? this.input : (nodes[to] ?? this.input)).focus();
    }
  }

  /**
   * One chip: a list item reachable with Tab (Delete or Backspace removes it) holding a
   * close button (Enter, Space or a click removes it).
   */
  private chip(c: PendingChip, index: number): HTMLElement {
    const kind = c.error ? 'not attached' : chipKind(c.tag, c.pinned);
    const what = `${kind} ${c.label}`;
    const dismiss = (byKeyboard: boolean) => {
      if (byKeyboard) this.refocus = index;
      this.announcer.textContent = `Removed ${what} from this message`;
      this.handlers.dismissContext(c.key);
    };
    const remove = el(
      'button',
      {
        class: 'chip-remove',
        type: 'button',
        title: c.pinned ? 'Unpin: do not send this pinned selection' : 'Leave out of this message',
        'aria-label': `Remove ${what} from this message`,
      },
      icon('close'),
    );
    // A click leaves focus alone; Enter or Space (detail 0: no pointer) moves it on like Delete does.
    remove.addEventListener('click', (e) => dismiss(e.detail === 0));
    const node = el(
      'span',
      {
        class: `pending-chip${c.pinned ? ' pinned' : ''}${c.error ? ' refused' : ''}`,
        role: 'listitem',
        tabindex: '0',
        'data-tag': c.tag,
        'data-key': c.key,
        title: c.error ? c.text : `Sent as:\n${c.text}`,
        'aria-label': `${what}, ${c.error ?? `${c.tokens.toLocaleString('en-US')} tokens`}. Delete removes it from this message.`,
      },
      el('span', { class: 'chip-kind' }, kind),
      ` ${c.label} `,
      el('span', { class: 'chip-tokens' }, c.error ? `— ${c.error}` : `${c.tokens.toLocaleString('en-US')} tok`),
      remove,
    );
    node.addEventListener('keydown', (e) => {
      if (e.target !== node || chipKeyAction(e.key) !== 'remove') return;
      e.preventDefault();
      dismiss(true);
    });
    return node;
  }

  /** Messages sent so far (for the view state). */
  sent(): readonly string[] {
    return this.history;
  }

  private submit(): void {
    const text = this.input.value;
    if (!text.trim() && this.images.size === 0) return;
    const problem = this.images.pending
      ? 'The images are still being read; send again in a moment.'
      : !text.trim()
        ? 'Add a few words to go with the image: what should Claude do with it?'
        : this.images.size > 0 && parseSlash(text)
          ? 'A slash command takes no images: remove them, or send them with a message.'
          : this.images.size > MAX_MESSAGE_IMAGES
            ? `A message takes at most ${MAX_MESSAGE_IMAGES} images: remove ${this.images.size - MAX_MESSAGE_IMAGES}.`
            : sendProblem(text);
    this.problemNote.textContent = problem ?? '';
    this.problemNote.hidden = problem === undefined;
    if (problem !== undefined) return;
    this.history = [...this.history.filter((h) => h !== text), text].slice(-50);
    this.cursor = -1;
    this.input.value = '';
    this.handlers.draftChanged('');
    this.suggest();
    for (const x of this.extensions) x.close();
    const images = this.images.attachments();
    this.lastSent = { text, images: this.images.shown() };
    this.images.clear();
    this.handlers.send(text, images);
  }

  /**
   * The host refused the last message before it entered the conversation: its words and images
   * go back in the box and tray, ahead of anything written since, and a queued message waits
   * for the user (giveBack.ts).
   */
  takeBack(): void {
    const last = this.lastSent;
    this.lastSent = undefined;
    if (!last) return;
    const back = giveBack(last, { text: this.input.value, images: this.images.shown(), queued: this.queued });
    this.setQueued(back.queued);
    if (back.text !== this.input.value) {
      this.input.value = back.text;
      this.handlers.draftChanged(back.text);
      this.suggest();
    }
    this.images.replace(back.images);
    // After the tray's change (which hides the note).
    this.problemNote.textContent = back.note ?? '';
    this.problemNote.hidden = back.note === undefined;
  }

  /** Puts `draft` in the box and tray (and focus in the box); returns what they held (editLast.ts). */
  load(draft: ComposerDraft): ComposerDraft {
    const held = { text: this.input.value, images: this.images.shown() };
    this.input.value = draft.text;
    this.handlers.draftChanged(draft.text);
    this.images.replace(draft.images);
    this.input.focus();
    return held;
  }

  /** Shows the slash commands matching what was typed (`/`, `/co` …) until a space is typed. */
  private suggest(): void {
    const v = this.input.value;
    const matches = /^\/[a-z]*$/.test(v) ? SLASH_COMMANDS.filter((c) => `/${c.name}`.startsWith(v)) : [];
    this.suggestions.replaceChildren(
      ...matches.map((c) => {
        const li = el('li', { role: 'option', 'data-command': c.name }, c.hint);
        li.addEventListener('mousedown', (ev) => {
          ev.preventDefault();
          this.complete(c.name);
        });
        return li;
      }),
    );
    this.suggestions.hidden = matches.length === 0;
  }

  private complete(name: string): void {
    this.input.value = `/${name} `;
    this.handlers.draftChanged(this.input.value);
    this.suggest();
    this.input.focus();
  }

  private onKey(e: KeyboardEvent): void {
    if (this.extensions.some((x) => x.onKey(e))) return;
    if (e.key === 'Tab' && !this.suggestions.hidden) {
      const first = this.suggestions.querySelector('li')?.getAttribute('data-command');
      if (first) {
        e.preventDefault();
        this.complete(first);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      if (!this.busy) this.submit();
      else if (this.input.value.trim()) this.setQueued(true);
      return;
    }
    if (e.key === 'Escape' && this.queued) {
      e.preventDefault();
      this.setQueued(false);
      return;
    }
    const atTop = !this.input.value.slice(0, this.input.selectionStart).includes('\n');
    const atBottom = !this.input.value.slice(this.input.selectionEnd).includes('\n');
    if (e.key === 'ArrowUp' && atTop && this.history.length > 0 && (this.cursor !== -1 || this.input.value === '')) {
      e.preventDefault();
      this.cursor = this.cursor === -1 ? this.history.length - 1 : Math.max(0, this.cursor - 1);
      this.input.value = this.history[this.cursor] ?? '';
    } else if (e.key === 'ArrowDown' && atBottom && this.cursor !== -1) {
      e.preventDefault();
      this.cursor = this.cursor + 1 >= this.history.length ? -1 : this.cursor + 1;
      this.input.value = this.cursor === -1 ? '' : (this.history[this.cursor] ?? '');
    }
  }
}
