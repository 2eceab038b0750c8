/**
 * Continue in a New Session in the chat: the first card of a session handed off to ("Continued
 * from <title>", with a button that opens the old session), the notice that offers the handoff
 * (its button starts it), and the handoff note the new session started with, folded and rendered
 * as Markdown. Text, never HTML from the model.
 */
import type { ChatItem } from '../../protocol/chatItems';
import { el } from '../shared/dom';
import { icon } from '../shared/icons';
import { renderMarkdown, type MarkdownActions } from './markdown';

/** What the handoff's items can ask of the page. */
export interface HandoffHandlers {
  /** Switch to the session a handoff continued (its card's button). */
  openSession(sessionId: string): void;
  /** Continue in a new session (the offer's button). */
  handoff(): void;
}

/** The "Continued from" card that opens a session handed off to. */
export function renderContinued(item: Extract<ChatItem, { kind: 'continued' }>, h: HandoffHandlers): HTMLElement {
  const open = el(
    'button',
    {
      class: 'secondary with-icon',
      type: 'button',
      'data-testid': 'open-old-session',
      title: `Switch to "${item.title}" (it stays as it was left)`,
    },
    icon('history'),
    'Open the old session',
  );
  open.addEventListener('click', () => h.openSession(item.sessionId));
  return el(
    'div',
    { class: 'item continued', 'data-id': item.id, 'data-testid': 'continued-card', role: 'note' },
    el('div', { class: 'continued-title' }, icon('debug-continue'), el('span', {}, `Continued from “${item.title}”`)),
    el(
      'div',
      { class: 'muted' },
      'This session starts from a handoff note of the old one. Claude can search the old session with recall.',
    ),
    open,
  );
}

/** A notice line; one that offers the handoff has its button. */
export function renderNotice(item: Extract<ChatItem, { kind: 'notice' }>, h: HandoffHandlers): HTMLElement {
  const node = el('div', { class: `item notice ${item.level}`, 'data-id': item.id, role: 'status' }, item.text);
  if (item.action === 'handoff') {
    const go = el(
      'button',
      { class: 'primary with-icon handoff-offer', type: 'button', 'data-testid': 'handoff-offer' },
      icon('debug-continue'),
      'Continue in a new session',
    );
    go.addEventListener('click', () => {
      go.disabled = true;
      h.handoff();
    });
    node.append(go);
  }
  return node;
}

/** The handoff note a continued session started with: folded, its Markdown rendered when opened. */
export function handoffNote(text: string, markdown: MarkdownActions): HTMLElement {
  let body: HTMLElement;
  try {
    body = el('div', { class: 'markdown' }, renderMarkdown(text, markdown));
  } catch {
    body = el('div', { class: 'plain' }, text);
  }
  return el(
    'details',
    { class: 'text handoff-note', 'data-testid': 'handoff-note' },
    el('summary', {}, 'Handoff note: goal, decisions made, current plan, files touched, open questions'),
    body,
  );
}
