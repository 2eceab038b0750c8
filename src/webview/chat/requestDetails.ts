/**
 * The API's request id of a failed request, kept out of the error's words: a closed
 * disclosure ("Details") under an error item or the retry banner, for a support ticket.
 */
import { el } from '../shared/dom';

/** A `<details>` holding `requestId`, selectable for copying. */
export function requestIdDetails(requestId: string): HTMLElement {
  return el(
    'details',
    { class: 'request-details', 'data-testid': 'request-id' },
    el('summary', {}, 'Details'),
    el('div', {}, 'Request id: ', el('code', {}, requestId), ' (quote it to Anthropic support)'),
  );
}
