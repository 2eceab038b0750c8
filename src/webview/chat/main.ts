import { parseChatToWebview, type ChatToHost, type ChatToWebview, type LedgerRow } from '../../protocol/chat';
import { el, formatTokens } from './dom';
import { vscodeApi } from './vscodeApi';

/** What survives the view being hidden: the draft and the last preview. */
interface ViewState {
  draft: string;
  lastPreview?: Extract<ChatToWebview, { type: 'previewResult' }>;
}

const api = vscodeApi<ViewState>();
const state: ViewState = api.getState() ?? { draft: '' };
let status: Extract<ChatToWebview, { type: 'status' }> | undefined;
let nextRequestId = 1;
let awaiting = 0;

const root = document.getElementById('app') as HTMLElement;
const header = el('header', { class: 'header' });
const notice = el('section', { class: 'notice', role: 'note' });
const result = el('section', { class: 'result', 'data-testid': 'preview' });
const input = el('textarea', { class: 'input', rows: '4', placeholder: 'Ask Claude… (Enter to preview the request, Shift+Enter for a new line)', 'aria-label': 'Message' });
const send = el('button', { class: 'primary', type: 'button' }, 'Preview request');
const form = el('footer', { class: 'composer' }, input, el('div', { class: 'actions' }, send));
const scroll = el('div', { class: 'scroll' }, notice, result);
root.append(header, scroll, form);

input.value = state.draft;
input.addEventListener('input', () => save({ draft: input.value }));
input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    submit();
  }
});
send.addEventListener('click', submit);

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = parseChatToWebview(event.data);
  if (!parsed.ok) {
    console.warn(`Context Pipeline: dropped a malformed message from the host: ${parsed.error}`);
    return;
  }
  const message = parsed.value;
  if (message.type === 'status') {
    status = message;
    renderHeader();
  } else if (message.type === 'previewResult' && message.requestId === awaiting) {
    send.disabled = false;
    save({ lastPreview: message });
    renderPreview(message);
  }
});

post({ type: 'ready' });
if (state.lastPreview) renderPreview(state.lastPreview);

function post(message: ChatToHost): void {
  api.postMessage(message);
}

function save(patch: Partial<ViewState>): void {
  Object.assign(state, patch);
  api.setState(state);
}

function submit(): void {
  const text = input.value;
  awaiting = nextRequestId++;
  send.disabled = true;
  post({ type: 'preview', requestId: awaiting, text });
}

function renderHeader(): void {
  if (!status) return;
  const key =
    status.apiKey === 'missing'
      ? el('button', { class: 'link', type: 'button', 'data-command': 'setApiKey' }, 'Set API key')
      : el('span', { class: 'ok', title: status.apiKey === 'environment' ? 'From ANTHROPIC_API_KEY' : 'In VS Code secret storage' }, status.apiKey === 'environment' ? 'API key: environment' : 'API key: set');
  if (status.apiKey === 'missing') key.addEventListener('click', () => post({ type: 'command', command: 'setApiKey' }));
  header.replaceChildren(
    el('div', { class: 'model', title: 'contextPipeline.model' }, status.model),
    el('div', { class: 'meta' }, `${formatTokens(status.contextWindow)}-token window · ${formatTokens(status.outputReserve)} reserved for the answer`),
    key,
  );
  notice.replaceChildren(
    ...status.warnings.map((w) => el('p', { class: 'warning' }, w)),
    el('p', {}, 'Press Enter to see the exact request Claude would receive: every block, its source, its tokens, and the cache breakpoints. Nothing is sent.'),
    el('details', {}, el('summary', {}, `Not yet in ${status.version}`), el('ul', {}, ...status.notReady.map((t) => el('li', {}, t)))),
  );
}

function renderPreview(message: Extract<ChatToWebview, { type: 'previewResult' }>): void {
  if (!message.ok) {
    result.replaceChildren(el('p', { class: 'error', role: 'alert' }, message.error));
    return;
  }
  const pct = (100 * message.estimatedTokens) / message.contextWindow;
  const bar = el('div', { class: 'bar', role: 'meter', 'aria-valuenow': String(message.estimatedTokens), 'aria-valuemax': String(message.contextWindow) });
  const fill = el('span', { class: 'fill' });
  // CSSOM, not a style attribute: the CSP forbids inline style attributes.
  fill.style.width = `${Math.min(100, pct).toFixed(2)}%`;
  bar.append(fill);
  const rows = message.rows.map(rowView);
  result.replaceChildren(
    el('p', { class: 'total' }, `≈ ${formatTokens(message.estimatedTokens)} tokens (${pct.toFixed(1)}% of the window)`),
    bar,
    ...message.notes.map((n) => el('p', { class: 'note' }, n)),
    el('table', { class: 'ledger' }, el('thead', {}, el('tr', {}, el('th', {}, '#'), el('th', {}, 'Block'), el('th', {}, 'Source'), el('th', { class: 'num' }, 'Tokens'))), el('tbody', {}, ...rows)),
    ...(message.breakpoints.length
      ? [el('p', { class: 'note' }, `Cache breakpoints: ${message.breakpoints.map((b) => `${b.label} (${formatTokens(b.prefixTokens)} tokens, p≈${b.hitProbability})`).join('; ')}`)]
      : [el('p', { class: 'note' }, 'No cache breakpoint: the prompt is shorter than the model caches.')]),
  );
}

function rowView(row: LedgerRow): HTMLTableRowElement {
  const tr = el('tr', row.breakpoint ? { class: 'breakpoint', title: 'cache breakpoint after this block' } : {});
  tr.append(
    el('td', {}, String(row.position)),
    el('td', {}, el('div', { class: 'kind' }, `${row.role} · ${row.kind}`), el('div', { class: 'preview' }, row.preview)),
    el('td', {}, row.source),
    el('td', { class: 'num' }, formatTokens(row.tokens)),
  );
  return tr;
}
