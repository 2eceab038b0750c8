import type { ChatToHost, ChatToWebview } from '../../protocol/chat';
import { el, formatUsd } from '../shared/dom';
import { icon } from '../shared/icons';

type Status = Extract<ChatToWebview, { type: 'status' }>;
type Command = Extract<ChatToHost, { type: 'command' }>['command'];

/**
 * Fills the chat's header from a status: model, session title, an endpoint badge and the
 * cost on the first row, the context meter (built by the caller) on the second, then any
 * warnings. The session's actions (New Session, Sessions…, Budget, Compact Now) live in the
 * view's title bar, so the header repeats none of them. A local endpoint is a one-line badge
 * whose tooltip and accessible name carry the whole notice; a remote or invalid one stays a
 * full-width warning, since requests then leave the machine (or fail). At small view heights
 * the CSS folds the header into one row (see media/chat.css).
 */
export function renderHeader(header: HTMLElement, s: Status, meter: HTMLElement, command: (c: Command) => void): void {
  header.replaceChildren(
    modelButton(s.model, command),
    ...(s.endpoint?.kind === 'local' ? [localBadge(s.endpoint.notice)] : []),
    el('span', { class: 'title', title: `Session: ${s.sessionTitle}` }, s.sessionTitle),
    el(
      'span',
      {
        class: 'meta cost',
        title:
          s.costUsd === null
            ? 'Cost unknown: the price of a model used in this session is not known'
            : 'Cost of this session so far (reported usage × list prices)',
      },
      formatUsd(s.costUsd),
    ),
    meter,
    // Decided by the host by parsing the URL; shown for as long as requests go anywhere but Anthropic's API.
    ...(s.endpoint && s.endpoint.kind !== 'local'
      ? [
          el(
            'div',
            {
              class: `endpoint-notice ${s.endpoint.kind}`,
              'data-testid': 'base-url',
              role: 'status',
              title: s.endpoint.notice,
            },
            icon('warning'),
            ` ${s.endpoint.notice}`,
          ),
        ]
      : []),
    ...(s.apiKey === 'missing' && !s.baseUrl ? [apiKeyWarning(command)] : []),
    ...s.warnings.map((w) => el('div', { class: 'warning' }, icon('warning'), ` ${w}`)),
  );
}

/** The local-server notice as a small badge: focusable, so keyboard users reach its tooltip text too. */
function localBadge(notice: string): HTMLElement {
  return el(
    'span',
    {
      class: 'endpoint-badge local',
      'data-testid': 'base-url',
      role: 'status',
      tabindex: '0',
      title: notice,
      'aria-label': notice,
    },
    icon('plug'),
    el('span', { class: 'badge-label', 'aria-hidden': 'true' }, 'local'),
  );
}

/** The model's name: a button that opens Choose Model… (the model, its window and what a switch costs). */
function modelButton(model: string, command: (c: Command) => void): HTMLElement {
  const button = el(
    'button',
    {
      class: 'model',
      type: 'button',
      title: `Model: ${model} — choose another (contextPipeline.model)`,
      'aria-label': `Model ${model}. Choose another model`,
      'data-command': 'chooseModel',
    },
    model,
  );
  button.addEventListener('click', () => command('chooseModel'));
  return button;
}

function apiKeyWarning(command: (c: Command) => void): HTMLElement {
  const set = el(
    'button',
    { class: 'link', type: 'button', title: 'Stored in VS Code secret storage', 'data-command': 'setApiKey' },
    'Set API key',
  );
  set.addEventListener('click', () => command('setApiKey'));
  return el('div', { class: 'warning' }, icon('key'), ' No API key. ', set);
}
