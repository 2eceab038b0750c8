import { parseChatToWebview, type ChatToHost, type ChatToWebview } from '../../protocol/chat';
import { Composer, parseSlash } from './composer';
import { el, formatTokens } from '../shared/dom';
import { renderPreview } from './previewView';
import { TranscriptView } from './transcriptView';
import { vscodeApi } from '../shared/vscodeApi';

/** What survives the view being hidden: the draft and the input history. (The transcript comes from the host.) */
interface ViewState {
  draft: string;
  history: string[];
}

const api = vscodeApi<ViewState>();
const saved = api.getState();
const state: ViewState = { draft: saved?.draft ?? '', history: saved?.history ?? [] };
let status: Extract<ChatToWebview, { type: 'status' }> | undefined;
let nextPreviewId = 1;
let awaitingPreview = 0;
let countdown: ReturnType<typeof setInterval> | undefined;

const post = (message: ChatToHost) => api.postMessage(message);
const save = () => api.setState(state);

const root = document.getElementById('app') as HTMLElement;
const header = el('header', { class: 'header' });
const banner = el('div', { class: 'banner', role: 'status', hidden: '' });
const previewSlot = el('div', { class: 'preview-slot' });
const transcript = new TranscriptView({
  retry: () => post({ type: 'retry' }),
  markdown: { openLink: (href) => post({ type: 'openLink', href }), copy: (text) => post({ type: 'copy', text }) },
  pin: (messageId, pinned) => post({ type: 'pin', messageId, pinned }),
  showCompactions: () => post({ type: 'command', command: 'showCompactions' }),
});
const empty = el('div', { class: 'empty' }, el('p', {}, 'Ask Claude about your workspace. Your selection and opened file go along as context — you see exactly what was sent under each message.'));
const scroll = el('div', { class: 'scroll' }, empty, transcript.root, previewSlot);
const composer = new Composer(
  {
    send: (text) => {
      state.history = [...composer.sent()];
      save();
      previewSlot.replaceChildren();
      const slash = parseSlash(text);
      post(slash ? { type: 'slash', name: slash.name, arg: slash.arg } : { type: 'send', text });
    },
    stop: () => post({ type: 'stop' }),
    preview: (text) => {
      awaitingPreview = nextPreviewId++;
      post({ type: 'preview', requestId: awaitingPreview, text });
    },
    draftChanged: (text) => {
      state.draft = text;
      save();
    },
  },
  state.draft,
  state.history,
);
root.append(header, banner, scroll, composer.root);

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const parsed = parseChatToWebview(event.data);
  if (!parsed.ok) {
    console.warn(`Context Pipeline: dropped a malformed message from the host: ${parsed.error}`);
    return;
  }
  const m = parsed.value;
  switch (m.type) {
    case 'status':
      status = m;
      composer.setBusy(m.busy);
      renderHeader();
      return;
    case 'transcript':
      transcript.reset(m.items);
      empty.hidden = m.items.length > 0;
      return;
    case 'upsert':
      transcript.upsert(m.item);
      empty.hidden = true;
      return;
    case 'delta':
      transcript.append(m.id, m.text);
      return;
    case 'retrying':
      showCountdown(m.waitMs, m.attempt, m.reason);
      return;
    case 'previewResult':
      if (m.requestId === awaitingPreview) previewSlot.replaceChildren(renderPreview(m, () => previewSlot.replaceChildren()));
      return;
  }
});

post({ type: 'ready' });

function renderHeader(): void {
  if (!status) return;
  const s = status;
  const button = (label: string, command: Extract<ChatToHost, { type: 'command' }>['command'], title: string) => {
    const b = el('button', { class: 'link', type: 'button', title }, label);
    b.addEventListener('click', () => post({ type: 'command', command }));
    return b;
  };
  const pct = s.contextWindow ? (100 * s.promptTokens) / s.contextWindow : 0;
  header.replaceChildren(
    el('div', { class: 'row' }, el('span', { class: 'model', title: 'contextPipeline.model' }, s.model), el('span', { class: 'meta', 'data-testid': 'context-usage' }, `${formatTokens(s.promptTokens)} / ${formatTokens(s.contextWindow)} tokens (${pct.toFixed(0)}%) · $${s.costUsd.toFixed(4)}`)),
    el('div', { class: 'row' }, el('span', { class: 'title', title: `Session: ${s.sessionTitle}` }, s.sessionTitle)),
    ...(s.baseUrl ? [el('div', { class: 'warning', 'data-testid': 'base-url' }, /^https?:\/\/(127\.|localhost|\[::1\])/.test(s.baseUrl) ? `Offline: requests go to the local server at ${s.baseUrl} (e.g. the scripted test model), not to Anthropic.` : `Requests go to ${s.baseUrl}.`)] : []),
    ...(s.apiKey === 'missing' && !s.baseUrl ? [el('div', { class: 'warning' }, 'No API key. ', button('Set API key', 'setApiKey', 'Stored in VS Code secret storage'))] : []),
    ...s.warnings.map((w) => el('div', { class: 'warning' }, w)),
  );
}

function showCountdown(waitMs: number, attempt: number, reason: string): void {
  if (countdown) clearInterval(countdown);
  countdown = undefined;
  if (waitMs <= 0) {
    banner.hidden = true;
    return;
  }
  const until = Date.now() + waitMs;
  const tick = () => {
    const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
    banner.textContent = `${reason} Retrying in ${left}s (attempt ${attempt + 1})…`;
    if (left <= 0 && countdown) clearInterval(countdown);
  };
  banner.hidden = false;
  tick();
  countdown = setInterval(tick, 250);
}
