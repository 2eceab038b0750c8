import { parseChatToWebview, type ChatToHost, type ChatToWebview } from '../../protocol/chat';
import { Composer, parseSlash } from './composer';
import { MentionPicker } from './mentionPicker';
import { el, formatTokens } from '../shared/dom';
import { hardMarkTitle, softMarkTitle } from '../shared/windowMarks';
import { requestIdDetails } from './requestDetails';
import { renderHeader as renderHeaderView } from './headerView';
import { EditLastMessage } from './editLast';
import { ImageCache } from './imageCache';
import { renderPreview } from './previewView';
import { TranscriptView } from './transcriptView';
import { vscodeApi } from '../shared/vscodeApi';
import { restoreViewState, type ViewState } from './viewState';
import { needsWelcome, renderWelcome } from './welcome';
import { CompactedView, renderCompactedItems } from './compactedView';
import { PlanView } from './planView';

const api = vscodeApi<ViewState>();
const state: ViewState = restoreViewState(api.getState());
/** The first transcript after the view (re)loads goes back to where the user was reading. */
let restoreReading = state.reading !== undefined;
let status: Extract<ChatToWebview, { type: 'status' }> | undefined;
let nextPreviewId = 1;
let awaitingPreview = 0;
let countdown: ReturnType<typeof setInterval> | undefined;

const post = (message: ChatToHost) => api.postMessage(message);
const save = () => api.setState(state);
let draftTimer: ReturnType<typeof setTimeout> | undefined;
/**
 * Saves the draft: at once, but while images wait in the tray (megabytes of state) at most once
 * every 250 ms of typing, and when the box loses focus, so a keystroke does not copy them all.
 */
const saveDraft = () => {
  if (!state.images) return save();
  draftTimer ??= setTimeout(() => {
    draftTimer = undefined;
    save();
  }, 250);
};
const flushDraft = () => {
  if (draftTimer === undefined) return;
  clearTimeout(draftTimer);
  draftTimer = undefined;
  save();
};

const root = document.getElementById('app') as HTMLElement;
const header = el('header', { class: 'header' });
const banner = el('div', { class: 'banner', role: 'status', hidden: '' });
const previewSlot = el('div', { class: 'preview-slot' });
const compacted: CompactedView = new CompactedView(
  {
    compacted: (compactionId) => post({ type: 'openCompacted', compactionId }),
    clearedResult: (toolUseId) => post({ type: 'openClearedResult', toolUseId }),
  },
  (items) => renderCompactedItems(items, { ...handlers, expandRun: () => undefined }),
);
const handlers: ConstructorParameters<typeof TranscriptView>[0] = {
  compacted,
  retry: () => post({ type: 'retry' }),
  markdown: { openLink: (href) => post({ type: 'openLink', href }), copy: (text) => post({ type: 'copy', text }) },
  pin: (messageId, pinned) => post({ type: 'pin', messageId, pinned }),
  showCompactions: () => command('showCompactions'),
  openSubagent: (sessionId) => post({ type: 'openSubagent', sessionId }),
  rewindTo: (messageId) => post({ type: 'rewindTo', messageId }),
  handoff: { openSession: (sessionId) => post({ type: 'openSession', sessionId }), handoff: () => command('handoff') },
  setApiKey: () => command('setApiKey'),
  approvals: {
    answer: (id, approved, reason, remember) =>
      post({ type: 'approval', id, approved, ...(reason ? { reason } : {}), ...(remember ? { remember } : {}) }),
    openDiff: (id) => post({ type: 'openDiff', id }),
  },
  lastTurn: {
    retry: (messageId) => post({ type: 'retryLast', messageId }),
    edit: (messageId) => {
      const item = transcript.itemsWhere((i) => i.kind === 'user' && i.id === messageId)[0];
      // EditLast.start cannot reject: an image that does not decode is left out and said.
      if (item?.kind === 'user') void edit.start(item);
    },
  },
};
const transcript = new TranscriptView(handlers);
const command = (c: Extract<ChatToHost, { type: 'command' }>['command']) => post({ type: 'command', command: c });
const emptyText = el(
  'p',
  {},
  'Ask Claude about your workspace. Your selection and opened file go along as context — you see exactly what was sent under each message.',
);
const welcome = renderWelcome(command);
const empty = el('div', { class: 'empty' }, emptyText);
/** Whether the transcript holds no item. */
let chatEmpty = true;
/** The empty chat's text, or the welcome card on a first run (no API key); hidden once the chat has items. */
const showEmpty = (isEmpty: boolean) => {
  chatEmpty = isEmpty;
  empty.hidden = !isEmpty;
  const wanted = needsWelcome(status, isEmpty) ? welcome : emptyText;
  if (empty.firstChild !== wanted) empty.replaceChildren(wanted);
};
const scroll = el('div', { class: 'scroll' }, empty, transcript.root, previewSlot);
const composer = new Composer(
  {
    send: (text, images) => {
      state.history = [...composer.sent()];
      save();
      previewSlot.replaceChildren();
      const slash = parseSlash(text);
      const attached = images.length > 0 ? { images: [...images] } : {};
      const editing = slash ? undefined : edit.take();
      post(
        slash
          ? { type: 'slash', name: slash.name, arg: slash.arg }
          : editing
            ? { type: 'editLast', messageId: editing, text, ...attached }
            : { type: 'send', text, ...attached },
      );
    },
    stop: () => post({ type: 'stop' }),
    preview: (text, images) => {
      awaitingPreview = nextPreviewId++;
      post({
        type: 'preview',
        requestId: awaitingPreview,
        text,
        ...(images.length > 0 ? { images: [...images] } : {}),
      });
    },
    draftChanged: (text) => {
      state.draft = text;
      saveDraft();
    },
    imagesChanged: (images) => {
      if (images.length > 0) state.images = [...images];
      else delete state.images;
      save();
    },
    dismissContext: (key) => post({ type: 'dismissContext', key }),
  },
  state.draft,
  state.history,
  state.images,
);
const mentions = composer.extend(
  (input) =>
    new MentionPicker(input, {
      query: (requestId, query) => post({ type: 'mentionQuery', requestId, query }),
      attach: (path) => post({ type: 'attachFile', path }),
    }),
);
const edit = new EditLastMessage(composer);
composer.root.insertBefore(edit.root, composer.root.querySelector('.input'));
edit.cancelOnEscape(composer.root);
const plan = new PlanView(
  () => post({ type: 'clearPlan' }),
  state.planFolded === true,
  (folded) => {
    if (folded) state.planFolded = true;
    else delete state.planFolded;
    save();
  },
);
root.append(header, banner, scroll, plan.root, composer.root);
composer.root.addEventListener('focusout', flushDraft);
document.addEventListener('visibilitychange', flushDraft);
let readingTimer: ReturnType<typeof setTimeout> | undefined;
// The reading position is saved 250 ms after a scroll; `data-reading-save="pending"` on the
// scroller says one is due, so tests wait for the save itself rather than for a time.
scroll.addEventListener(
  'scroll',
  () => {
    if (readingTimer) return;
    scroll.dataset.readingSave = 'pending';
    readingTimer = setTimeout(() => {
      readingTimer = undefined;
      const reading = transcript.readingPosition();
      if (reading) state.reading = reading;
      else delete state.reading;
      save();
      delete scroll.dataset.readingSave;
    }, 250);
  },
  { passive: true },
);

// Pasted images are posted once and named by ref after that (host/chat/sentImages.ts).
const images = new ImageCache();

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
      document.body.classList.toggle('busy', m.busy);
      renderHeader();
      showEmpty(chatEmpty);
      return;
    case 'transcript': {
      // The history was rebuilt (a compaction, a restore, a pin): approvals still waiting for
      // an answer are not part of it and stay at the end, answerable.
      const waiting = transcript.itemsWhere(
        (i) => i.kind === 'approval' && i.state === 'pending' && !m.items.some((n) => n.id === i.id),
      );
      // A rebuilt history (a pin, a compaction) keeps the user where they were reading; the
      // first transcript after the view (re)loads goes back to the saved position.
      const reading = restoreReading ? state.reading : transcript.readingPosition();
      transcript.reset([...images.transcript(m.items), ...waiting]);
      if (reading) transcript.restoreReadingPosition(reading);
      restoreReading = false;
      showEmpty(m.items.length + waiting.length === 0);
      return;
    }
    case 'upsert':
      transcript.upsert(images.upsert(m.item));
      showEmpty(false);
      return;
    case 'delta':
      transcript.append(m.id, m.text);
      return;
    case 'thinkingDelta':
      transcript.append(m.id, m.text, 'thinking');
      return;
    case 'retrying':
      showCountdown(m.waitMs, m.attempt, m.reason, m.requestId);
      return;
    case 'unsent':
      composer.takeBack();
      edit.givenBack();
      return;
    case 'draft': {
      // A rewound message's words, ahead of what the box held (kept after them).
      const held = composer.load({ text: m.text, images: [] });
      if (held.text.trim() !== '' || held.images.length > 0)
        composer.load({ text: held.text.trim() ? `${m.text}\n\n${held.text}` : m.text, images: held.images });
      return;
    }
    case 'compactedItems':
      compacted.receivedGroup(m.compactionId, m.items, m.error); // their images come with their data
      return;
    case 'clearedResult':
      compacted.receivedResult(m.toolUseId, m.text, m.error);
      return;
    case 'pendingContext':
      composer.setContext(m.chips, m.disabled);
      return;
    case 'mentionResults':
      mentions.results(
        m.requestId,
        m.items.map((i) => i.path),
      );
      return;
    case 'plan':
      plan.show(m.steps, m.progress);
      return;
    case 'previewResult':
      if (m.requestId === awaitingPreview)
        previewSlot.replaceChildren(renderPreview(m, () => previewSlot.replaceChildren()));
      return;
  }
});

post({ type: 'ready' });

function renderHeader(): void {
  if (status) renderHeaderView(header, status, contextMeter(status), command);
}

/**
 * The context bar: used / window, with the soft (auto-compact) and hard thresholds marked (each
 * mark's title says what happens there), and the one "% full" of the usable window beside it.
 * The level, the thresholds and the figure come from the host (`pressure`); without them
 * (invalid settings) the bar shows the usage alone.
 */
function contextMeter(s: Extract<ChatToWebview, { type: 'status' }>): HTMLElement {
  const window = Math.max(1, s.contextWindow);
  const used = Math.min(1, s.promptTokens / window);
  const p = s.pressure;
  const level = p?.level === 'over' ? 'hard' : p?.level;
  const fill = el('div', { class: `fill${level === 'hard' || level === 'soft' ? ` ${level}` : ''}` });
  fill.style.width = `${(used * 100).toFixed(2)}%`;
  const mark = (at: number, cls: string, title: string) => {
    const m = el('div', { class: `mark ${cls}`, title });
    m.style.left = `${(Math.min(1, at) * 100).toFixed(2)}%`;
    return m;
  };
  const reserve = el('div', {
    class: 'reserve',
    title: `${formatTokens(s.outputReserve)} tokens reserved for the answer`,
  });
  reserve.style.width = `${((s.outputReserve / window) * 100).toFixed(2)}%`;
  const bar = el(
    'div',
    {
      class: 'context-bar',
      role: 'meter',
      'aria-valuemin': '0',
      'aria-valuemax': String(s.contextWindow),
      'aria-valuenow': String(s.promptTokens),
      'aria-label': 'Context used',
    },
    fill,
    reserve,
    ...(p
      ? [mark(p.softAt / window, 'soft', softMarkTitle(p)), mark(p.hardAt / window, 'hard', hardMarkTitle(p))]
      : []),
  );
  return el(
    'div',
    { class: 'row meter-row' },
    bar,
    el(
      'span',
      {
        class: 'meta',
        'data-testid': 'context-usage',
        title: s.promptEstimated
          ? 'Estimated: no request of this session has reported its usage yet'
          : 'Prompt tokens of the last request, as the API reported them',
      },
      `${s.promptEstimated ? '≈ ' : ''}${formatTokens(s.promptTokens)} tokens${p ? ` · ${p.fullness}` : ` / ${formatTokens(s.contextWindow)}`}`,
    ),
  );
}

function showCountdown(waitMs: number, attempt: number, reason: string, requestId?: string): void {
  if (countdown) clearInterval(countdown);
  countdown = undefined;
  if (waitMs <= 0) {
    banner.hidden = true;
    return;
  }
  const until = Date.now() + waitMs;
  // The words tick; the request id stays in its disclosure (not rebuilt, so an open one stays open).
  const words = el('span', { class: 'banner-text' });
  banner.replaceChildren(words, ...(requestId ? [requestIdDetails(requestId)] : []));
  const tick = () => {
    const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
    words.textContent = `${reason} Retrying in ${left}s (attempt ${attempt + 1})…`;
    if (left <= 0 && countdown) clearInterval(countdown);
  };
  banner.hidden = false;
  tick();
  countdown = setInterval(tick, 250);
}
