/**
 * Retry on the last answer and Edit of the user's last message: which items carry the two
 * actions (worked out with the turn layout, from the items in order) and their buttons. The
 * host decides whether either may run (core/compaction/rewind.ts); while a turn runs the
 * buttons are hidden (`body.busy`, set from the status).
 */
import type { ChatItem } from '../../protocol/chatItems';
import { el } from '../shared/dom';
import { icon } from '../shared/icons';

/** An action on the last turn, with the id of the user's last message it starts from. */
export interface LastTurnAction {
  readonly action: 'retry' | 'edit';
  readonly messageId: string;
}

/** What the buttons ask of the page. */
export interface LastTurnHandlers {
  /** Retry on the last answer of the user's last message `messageId`. */
  retry(messageId: string): void;
  /** Put the user's last message `messageId` back in the composer to edit it. */
  edit(messageId: string): void;
}

/**
 * The items carrying Retry and Edit, by index: Edit on the user's last message; Retry on the
 * last finished answer after it (Claude's, or a note the extension wrote in its place) that
 * shows (`shown(i)`). None while an answer streams or a call runs or waits after it.
 */
export function lastTurnActions(
  items: readonly ChatItem[],
  shown: (index: number) => boolean,
): Map<number, LastTurnAction> {
  const out = new Map<number, LastTurnAction>();
  let user = -1;
  items.forEach((item, i) => {
    if (item.kind === 'user') user = i;
  });
  const last = items[user];
  if (!last) return out;
  const after = items.slice(user + 1);
  const running = after.some(
    (i) =>
      (i.kind === 'assistant' && i.streaming) ||
      (i.kind === 'tool' && (i.status === 'running' || i.status === 'awaiting')) ||
      (i.kind === 'approval' && i.state === 'pending'),
  );
  if (running) return out;
  out.set(user, { action: 'edit', messageId: last.id });
  for (let i = items.length - 1; i > user; i--) {
    const item = items[i];
    if (item?.kind === 'assistant' && shown(i)) {
      out.set(i, { action: 'retry', messageId: last.id });
      break;
    }
  }
  return out;
}

/** The icon button of an action, beside Copy: it says what the action does, files included. */
export function lastTurnButton(a: LastTurnAction, h: LastTurnHandlers): HTMLElement {
  const retry = a.action === 'retry';
  const title = retry
    ? 'Retry: drop this answer and ask again (files it changed stay changed)'
    : 'Edit your last message and send it again (files changed since stay changed)';
  const button = el(
    'button',
    {
      class: `icon-button last-turn ${a.action}`,
      type: 'button',
      title,
      'aria-label': retry ? 'Retry this answer' : 'Edit your last message',
      'data-testid': retry ? 'retry-last' : 'edit-last',
    },
    icon(retry ? 'refresh' : 'edit'),
  );
  button.addEventListener('click', (e) => {
    e.preventDefault();
    e.stopPropagation();
    if (retry) h.retry(a.messageId);
    else h.edit(a.messageId);
  });
  return button;
}
