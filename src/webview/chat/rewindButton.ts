/** The Rewind to here button of a user message (the host asks what to rewind: itemView.ts puts it in the header). */
import { el } from '../shared/dom';
import { icon } from '../shared/icons';

/** A button that asks to rewind to message `messageId` (`rewindTo` posts it to the host). */
export function rewindButton(messageId: string, rewindTo: (messageId: string) => void): HTMLElement {
  const button = el(
    'button',
    {
      class: 'icon-button rewind',
      type: 'button',
      title: 'Rewind to here: the conversation, the files Claude changed, or both, back to when you sent this',
      'aria-label': 'Rewind to here',
      'data-testid': 'rewind-to',
    },
    icon('discard'),
  );
  button.addEventListener('click', () => rewindTo(messageId));
  return button;
}
