/**
 * The first-run card of an empty chat with no API key: what this is, Set API key, and the
 * offline path (the local test server). Whether it shows is a pure rule ({@link needsWelcome}).
 */
import type { ChatToHost, ChatToWebview } from '../../protocol/chat';
import { el } from '../shared/dom';
import { icon } from '../shared/icons';

type Command = Extract<ChatToHost, { type: 'command' }>['command'];
type Status = Extract<ChatToWebview, { type: 'status' }>;

/** The command that starts the offline test server, in the extension's repository (package.json). */
export const FAKE_SERVER_COMMAND = 'npm run fake-anthropic';

/** The URL the test server prints by default (test/fake-anthropic/cli.ts, port 8787). */
export const FAKE_SERVER_URL = 'http://127.0.0.1:8787';

/**
 * Whether the chat shows the welcome card: it is empty, no API key is set (neither in secret
 * storage nor ANTHROPIC_API_KEY) and requests would go where one is needed — a server on this
 * machine (the offline test server) needs none, so once the base URL points there the ordinary
 * empty chat shows.
 */
export function needsWelcome(status: Pick<Status, 'apiKey' | 'endpoint'> | undefined, chatEmpty: boolean): boolean {
  return chatEmpty && status?.apiKey === 'missing' && status.endpoint?.kind !== 'local';
}

/** The welcome card; its buttons post the extension's own commands. */
export function renderWelcome(command: (c: Command) => void): HTMLElement {
  const setKey = el(
    'button',
    {
      class: 'primary with-icon',
      type: 'button',
      'data-command': 'setApiKey',
      title: "Kept in VS Code's secret storage",
    },
    icon('key'),
    'Set API key',
  );
  setKey.addEventListener('click', () => command('setApiKey'));
  const setting = el(
    'button',
    { class: 'secondary', type: 'button', 'data-command': 'openBaseUrlSetting' },
    'Open the baseUrl setting',
  );
  setting.addEventListener('click', () => command('openBaseUrlSetting'));
  return el(
    'div',
    { class: 'welcome', 'data-testid': 'welcome' },
    el('h2', {}, 'Welcome to Context Pipeline'),
    el(
      'p',
      {},
      'A Claude coding agent for your workspace, in this panel. It shows what each message sends and what the context costs, and every compaction of the conversation is explicit and can be undone.',
    ),
    el('div', { class: 'welcome-actions' }, setKey),
    el(
      'p',
      { class: 'muted' },
      'Or try it offline with the local test server: run ',
      el('code', {}, FAKE_SERVER_COMMAND),
      " in the extension's repository, then set ",
      el('code', {}, 'contextPipeline.baseUrl'),
      ' (a user setting) to the URL it prints, ',
      el('code', {}, FAKE_SERVER_URL),
      '.',
    ),
    el('div', { class: 'welcome-actions' }, setting),
  );
}
