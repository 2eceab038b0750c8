/**
 * The `@` file picker of the composer: typing `@` and part of a path lists the workspace files
 * that match (asked of the host, debounced), above the input; ↑/↓ move, Enter or Tab chooses,
 * Escape closes without inserting, a click chooses. Choosing puts `@path` in the text and asks
 * the host to attach the file (a chip with its tokens shows above the input). A listbox of
 * options, the input pointing at the active one with `aria-activedescendant`.
 */
import { el } from '../shared/dom';
import {
  Debouncer,
  insertMention,
  mentionAt,
  moveActive,
  timeoutScheduler,
  type MentionToken,
  type Scheduler,
} from './mentionText';

/** How long typing must pause before the host is asked (ms). */
export const MENTION_DEBOUNCE_MS = 120;

/** What the picker asks of the page. */
export interface MentionPickerHandlers {
  /** Ask the host for the files matching `query` (answered through {@link MentionPicker.results}). */
  query(requestId: number, query: string): void;
  /** Attach the chosen file to the next message. */
  attach(path: string): void;
}

/**
 * A part of the composer's input added from outside (the `@` picker): its node goes above the
 * input, it sees each key pressed in the input first (true: handled, the composer ignores it),
 * and it is closed when a message is sent.
 */
export interface ComposerExtension {
  readonly root: HTMLElement;
  onKey(e: KeyboardEvent): boolean;
  close(): void;
}

/** See the file comment. `root` goes above the input; the picker follows the input's text and caret itself. */
export class MentionPicker implements ComposerExtension {
  readonly root: HTMLElement;
  private readonly list: HTMLUListElement;
  private readonly debounce: Debouncer;
  private nextId = 0;
  /** The request whose results may show; older answers are dropped. */
  private awaiting: number | undefined;
  private token: MentionToken | undefined;
  /** The `@` Escape closed the picker for: it stays closed until another mention is typed. */
  private closedAt: number | undefined;
  private items: readonly string[] = [];
  private active = -1;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly handlers: MentionPickerHandlers,
    schedule: Scheduler = timeoutScheduler,
  ) {
    this.debounce = new Debouncer(schedule, MENTION_DEBOUNCE_MS);
    this.list = el('ul', {
      class: 'mention-list',
      id: 'mention-list',
      role: 'listbox',
      'aria-label': 'Workspace files',
      'data-testid': 'mention-list',
    });
    this.root = el('div', { class: 'mention-picker', 'data-testid': 'mention-picker', hidden: '' }, this.list);
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-controls', 'mention-list');
    input.setAttribute('aria-expanded', 'false');
    input.addEventListener('input', () => this.update());
    input.addEventListener('click', () => this.update());
    input.addEventListener('blur', () => this.close());
    // A press in the list (an option, its scroll bar) keeps the focus in the input.
    this.list.addEventListener('mousedown', (ev) => ev.preventDefault());
  }

  /** Whether the list is showing. */
  get open(): boolean {
    return !this.root.hidden;
  }

  /** The text or the caret changed: asks for the files matching the mention at the caret, or closes. */
  update(): void {
    const token = mentionAt(this.input.value, this.input.selectionStart);
    if (token === undefined || token.start === this.closedAt) {
      if (token === undefined) this.closedAt = undefined;
      return this.close();
    }
    this.closedAt = undefined;
    this.token = token;
    this.debounce.call(() => {
      this.awaiting = this.nextId++;
      this.handlers.query(this.awaiting, token.query);
    });
  }

  /** The host's answer to a query: shown when it answers the latest one and a mention is still typed. */
  results(requestId: number, paths: readonly string[]): void {
    if (requestId !== this.awaiting || this.token === undefined) return;
    this.items = paths;
    this.active = paths.length > 0 ? 0 : -1;
    this.render();
  }

  /** Handles a key pressed in the input while the list shows; true when it was the picker's. */
  onKey(e: KeyboardEvent): boolean {
    if (!this.open || e.isComposing) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (this.items.length === 0) return false;
      e.preventDefault();
      this.active = moveActive(this.active, this.items.length, e.key);
      this.render();
      return true;
    }
    if ((e.key === 'Enter' || e.key === 'Tab') && !e.shiftKey && this.active >= 0) {
      e.preventDefault();
      this.choose(this.active);
      return true;
    }
    if (e.key === 'Escape') {
      e.preventDefault();
      this.closedAt = this.token?.start;
      this.close();
      return true;
    }
    return false;
  }

  /** Closes the list (nothing inserted) and drops a query waiting. */
  close(): void {
    this.debounce.clear();
    this.awaiting = undefined;
    this.token = undefined;
    this.items = [];
    this.active = -1;
    this.root.hidden = true;
    this.list.replaceChildren();
    this.input.setAttribute('aria-expanded', 'false');
    this.input.removeAttribute('aria-activedescendant');
  }

  private choose(index: number): void {
    const path = this.items[index];
    const token = this.token;
    if (path === undefined || token === undefined) return;
    const next = insertMention(this.input.value, token, this.input.selectionStart, path);
    this.close();
    this.input.value = next.text;
    this.input.setSelectionRange(next.caret, next.caret);
    this.input.focus();
    // The composer's own listener saves the draft (the caret is after a space: no mention).
    this.input.dispatchEvent(new Event('input', { bubbles: true }));
    this.handlers.attach(path);
  }

  private render(): void {
    const options = this.items.map((path, i) => {
      const slash = path.lastIndexOf('/');
      const li = el(
        'li',
        {
          id: `mention-option-${i}`,
          role: 'option',
          'aria-selected': String(i === this.active),
          'data-path': path,
          title: path,
        },
        el('span', { class: 'mention-name' }, path.slice(slash + 1)),
        ...(slash > 0 ? [el('span', { class: 'mention-dir' }, path.slice(0, slash))] : []),
      );
      li.addEventListener('mousedown', () => this.choose(i));
      return li;
    });
    if (options.length === 0)
      this.list.replaceChildren(
        el(
          'li',
          { class: 'mention-empty', 'aria-disabled': 'true' },
          `No workspace file matches “${this.token?.query ?? ''}”`,
        ),
      );
    else this.list.replaceChildren(...options);
    this.root.hidden = false;
    this.input.setAttribute('aria-expanded', 'true');
    if (this.active >= 0) {
      this.input.setAttribute('aria-activedescendant', `mention-option-${this.active}`);
      options[this.active]?.scrollIntoView({ block: 'nearest' });
    } else this.input.removeAttribute('aria-activedescendant');
  }
}
