import type { ChatItem } from '../../protocol/chatItems';
import { el } from '../shared/dom';
import { renderMarkdown, routeLinks, type MarkdownActions } from './markdown';

/**
 * Renders the transcript: one DOM node per item, keyed by id, so an upsert replaces one
 * node and a streamed delta appends text to one node. User text, tool output and streaming
 * answers are text, never HTML; a finished answer is rendered as sanitised Markdown.
 */
export class TranscriptView {
  readonly root = el('div', { class: 'transcript', role: 'log', 'aria-label': 'Conversation', 'data-testid': 'transcript' });
  private readonly nodes = new Map<string, HTMLElement>();
  private readonly items = new Map<string, ChatItem>();

  constructor(
    private readonly onRetry: () => void,
    private readonly actions: MarkdownActions = { openLink: () => undefined, copy: () => undefined },
    private readonly onPin: (messageId: string, pinned: boolean) => void = () => undefined,
    private readonly onShowCompactions: () => void = () => undefined,
  ) {
    routeLinks(this.root, actions);
  }

  /** Replaces everything. */
  reset(items: readonly ChatItem[]): void {
    this.root.replaceChildren();
    this.nodes.clear();
    this.items.clear();
    for (const item of items) this.upsert(item);
  }

  /** Adds an item, or replaces the one with the same id in place. */
  upsert(item: ChatItem): void {
    const node = this.render(item);
    const old = this.nodes.get(item.id);
    if (old) old.replaceWith(node);
    else this.root.append(node);
    this.nodes.set(item.id, node);
    this.items.set(item.id, item);
    this.scrollToEnd();
  }

  /** Appends streamed text to an assistant item. */
  append(id: string, text: string): void {
    const item = this.items.get(id);
    if (!item || item.kind !== 'assistant') return;
    const next = { ...item, text: item.text + text };
    this.items.set(id, next);
    const body = this.nodes.get(id)?.querySelector('.text');
    if (body) body.textContent = next.text;
    this.scrollToEnd();
  }

  /** Whether any item is an error that can be retried (for the composer). */
  isEmpty(): boolean {
    return this.items.size === 0;
  }

  private scrollToEnd(): void {
    const scroller = this.root.parentElement;
    if (scroller) scroller.scrollTop = scroller.scrollHeight;
  }

  /** While streaming: plain text (cheap to append to). Once final: sanitised Markdown. */
  private answerBody(text: string, streaming: boolean): HTMLElement {
    if (streaming || !text) return el('div', { class: 'text' }, text || (streaming ? '' : '(no text)'));
    try {
      return el('div', { class: 'text markdown' }, renderMarkdown(text, this.actions));
    } catch (err) {
      console.warn(`Context Pipeline: could not render Markdown, showing text: ${String(err)}`);
      return el('div', { class: 'text' }, text);
    }
  }

  /** The header of a message: who, its tokens, and a Pin toggle (pinned messages are never compacted). */
  private who(name: string, messageId: string | undefined, pinned: boolean | undefined, tokens: number | undefined): HTMLElement {
    const head = el('div', { class: 'who' }, name);
    if (tokens !== undefined) head.append(el('span', { class: 'muted tokens', title: 'Calibrated tokens of this message' }, ` · ${tokens.toLocaleString('en-US')} tokens`));
    if (messageId) {
      const pin = el('button', { class: 'link pin', type: 'button', title: pinned ? 'Unpin: compaction may summarise this message again' : 'Pin: compaction never touches this message', 'aria-pressed': pinned ? 'true' : 'false' }, pinned ? 'Pinned' : 'Pin');
      pin.addEventListener('click', () => this.onPin(messageId, !pinned));
      head.append(pin);
    }
    return head;
  }

  private render(item: ChatItem): HTMLElement {
    switch (item.kind) {
      case 'user': {
        const chips = item.injected.map((i) => {
          const d = el('details', { class: 'chip', 'data-tag': i.tag }, el('summary', { title: `Sent as <${i.tag}>` }, `${i.tag === 'ide_selection' ? 'selection' : i.tag === 'ide_opened_file' ? 'file' : i.tag} · ${i.label}`), el('pre', { class: 'tagged' }, i.text));
          return d;
        });
        return el('div', { class: `item user${item.pinned ? ' pinned' : ''}`, 'data-id': item.id }, this.who('You', item.id, item.pinned, item.tokens), ...(chips.length ? [el('div', { class: 'chips' }, ...chips)] : []), el('div', { class: 'text' }, item.text));
      }
      case 'assistant':
        return el('div', { class: `item assistant${item.streaming ? ' streaming' : ''}${item.pinned ? ' pinned' : ''}`, 'data-id': item.id }, this.who('Claude', item.messageId, item.pinned, item.tokens), this.answerBody(item.text, item.streaming));
      case 'tool': {
        const status = { running: '⏳ running', done: '✓', error: '✗ error', cancelled: '⊘ cancelled' }[item.status];
        const summary = el('summary', {}, el('span', { class: 'tool-name' }, item.name), ` ${status}`, item.durationMs !== undefined ? el('span', { class: 'muted' }, ` · ${item.durationMs} ms`) : '');
        return el('details', { class: `item tool ${item.status}`, 'data-id': item.id }, summary, el('div', { class: 'label' }, 'Input'), el('pre', {}, item.input), ...(item.result !== undefined ? [el('div', { class: 'label' }, 'Result'), el('pre', {}, item.result)] : []));
      }
      case 'summary': {
        // Keeps the notice look (and class) so it reads as part of the conversation's history.
        const open = el('button', { class: 'link', type: 'button', title: 'The original messages, with Restore' }, 'Originals in the Compactions view');
        open.addEventListener('click', () => this.onShowCompactions());
        return el('details', { class: 'item notice summary-card', 'data-id': item.id }, el('summary', {}, `Turns ${item.firstTurn}–${item.lastTurn} were compacted into a summary.`), el('div', { class: 'summary-text' }, item.text), open);
      }
      case 'notice':
        return el('div', { class: `item notice ${item.level}`, 'data-id': item.id, role: 'status' }, item.text);
      case 'error': {
        const node = el('div', { class: 'item error', 'data-id': item.id, role: 'alert' }, el('div', { class: 'text' }, item.text));
        if (item.retryable) {
          const retry = el('button', { class: 'secondary', type: 'button' }, 'Retry');
          retry.addEventListener('click', () => {
            retry.disabled = true;
            this.onRetry();
          });
          node.append(retry);
        }
        return node;
      }
    }
  }
}
