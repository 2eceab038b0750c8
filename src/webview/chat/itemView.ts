import { rewindButton } from './rewindButton';
import { chipKind } from './chipKeys';
import type { ChatItem } from '../../protocol/chatItems';
import { el } from '../shared/dom';
import { icon } from '../shared/icons';
import { renderApproval, type ApprovalHandlers } from './approvalCard';
import { renderToolCallApproval } from './toolCallApproval';
import { renderMarkdown, type MarkdownActions } from './markdown';
import { lostSentence, summaryTitle } from './summaryTitle';
import { renderThinking } from './thinkingView';
import { streamingBody } from './streamingMarkdown';
import { moreLabel, type ItemLayout, type RoundActions } from './turnLayout';
import { requestIdDetails } from './requestDetails';
import type { CompactedView } from './compactedView';
import { lastTurnButton, type LastTurnHandlers } from './lastTurn';
import { subagentBody, subagentFigures } from './subagentView';
import { handoffNote, renderContinued, renderNotice, type HandoffHandlers } from './handoffView';

/** What a rendered item can ask of the page. */
export interface ItemHandlers {
  /** Re-send the last request after an error. */
  retry(): void;
  /** Link and copy actions of rendered Markdown. */
  markdown: MarkdownActions;
  /** Pin (never compact) or unpin a whole message. */
  pin(messageId: string, pinned: boolean): void;
  /** Reveal the Compactions view (a summary card's originals). */
  showCompactions(): void;
  /** Run Set API Key (an error about the API key). */
  setApiKey(): void;
  /** Answers and diffs of approval cards. */
  approvals: ApprovalHandlers;
  /** Expand (or fold again) a long run of tool calls, by the id of its first call (see turnLayout.ts). */
  expandRun(run: string, open: boolean): void;
  /** Compacted groups and cleared results, shown from the host on demand (compactedView.ts). */
  compacted: Pick<CompactedView, 'group' | 'clearedResult'>;
  /** Retry on the last answer, Edit of the last message (lastTurn.ts). */
  lastTurn: LastTurnHandlers;
  /** Open a subagent's transcript (its child session) from its task card. */
  openSubagent(sessionId: string): void;
  /** Rewind to here, on one of the user's messages (the host asks what to rewind). */
  rewindTo(messageId: string): void;
  /** A handoff's card (open the old session) and offer (continue in a new session): handoffView.ts. */
  handoff: HandoffHandlers;
}

/**
 * Renders one transcript item to a fresh DOM node. User text, tool output and thinking are
 * text, never HTML; an answer is rendered as sanitised Markdown (while streaming, block by block).
 * The node carries `data-id` = item.id; a streaming answer's text lives in its `.text` child.
 */
export function renderItem(item: ChatItem, handlers: ItemHandlers, layout: ItemLayout = {}): HTMLElement {
  if (layout.hidden) {
    // Takes no height (and no gap): the transcript's estimate for it is 0 too (slotEstimates.ts).
    const node = el('div', { class: 'item folded', 'data-id': item.id, 'aria-hidden': 'true' });
    node.style.display = 'none';
    return node;
  }
  if (layout.more) return renderMore(item.id, layout.more, handlers);
  return new ItemRenderer(handlers, layout).render(item);
}

/** A long run's folded calls: one control, "12 more reads…", that expands them (Enter or Space). */
function renderMore(id: string, more: NonNullable<ItemLayout['more']>, h: ItemHandlers): HTMLElement {
  const button = el(
    'button',
    { class: 'link tool-more', type: 'button', 'aria-expanded': 'false', 'data-testid': 'tool-run-more' },
    moreLabel(more),
  );
  button.addEventListener('click', () => h.expandRun(more.run, true));
  return el('div', { class: 'item tool-more-row', 'data-id': id }, button);
}

class ItemRenderer {
  constructor(
    private readonly h: ItemHandlers,
    private readonly layout: ItemLayout,
  ) {}

  /** Sanitised Markdown; while streaming, rendered block by block as it arrives (streamingMarkdown.ts). */
  private answerBody(text: string, streaming: boolean): HTMLElement {
    if (streaming) return streamingBody(text, this.h.markdown);
    if (!text) return el('div', { class: 'text' }, text);
    try {
      return el('div', { class: 'text markdown' }, renderMarkdown(text, this.h.markdown));
    } catch (err) {
      console.warn(`Context Pipeline: could not render Markdown, showing text: ${String(err)}`);
      return el('div', { class: 'text' }, text);
    }
  }

  /**
   * The header of a message: who (none for a later answer of the same turn: then it floats over
   * the message), and — shown on hover and on keyboard focus only — its tokens, Copy and a Pin
   * toggle (pinned messages are never compacted; a pinned one keeps its pin shown).
   */
  private who(
    name: string | undefined,
    messageId: string | undefined,
    pinned: boolean | undefined,
    tokens: number | undefined,
    text?: string,
    rewind = false,
  ): HTMLElement {
    const head = el('div', { class: name === undefined ? 'who bare' : 'who' }, name ?? '');
    if (tokens !== undefined) head.append(tokensLabel(tokens, 'Calibrated tokens of this message'));
    if (text) head.append(this.copyButton(text));
    head.append(...this.lastTurn());
    if (rewind && messageId) head.append(rewindButton(messageId, this.h.rewindTo));
    if (messageId) head.append(this.pinButton(messageId, pinned === true));
    return head;
  }

  /** Retry or Edit, when this item carries one (lastTurn.ts). */
  private lastTurn(): HTMLElement[] {
    return this.layout.last ? [lastTurnButton(this.layout.last, this.h.lastTurn)] : [];
  }

  private copyButton(text: string): HTMLElement {
    const copy = el(
      'button',
      { class: 'icon-button copy', type: 'button', title: 'Copy message', 'aria-label': 'Copy message' },
      icon('copy'),
    );
    // copyMessage cannot reject: a refused clipboard falls back to the host's copy.
    copy.addEventListener('click', () => void copyMessage(text, copy, this.h));
    return copy;
  }

  private pinButton(messageId: string, pinned: boolean, label = 'Pin message'): HTMLElement {
    const pin = el(
      'button',
      {
        class: 'icon-button pin',
        type: 'button',
        title: pinned
          ? 'Pinned — click to unpin: compaction may summarise this message again'
          : 'Pin: compaction never touches this message',
        'aria-label': label,
        'aria-pressed': pinned ? 'true' : 'false',
      },
      icon(pinned ? 'pinned' : 'pin'),
    );
    pin.addEventListener('click', (e) => {
      e.preventDefault(); // inside a tool row's <summary>: not a toggle
      e.stopPropagation();
      this.h.pin(messageId, !pinned);
    });
    return pin;
  }

  /** On a call's row: the Pin and tokens of its tool-only answer, and the "Show fewer" of an expanded run. */
  private rowExtras(): HTMLElement[] {
    const out: HTMLElement[] = [];
    const round: RoundActions | undefined = this.layout.round;
    if (round) {
      const actions = el('span', { class: 'round-actions', 'data-testid': 'round-actions' });
      if (round.tokens !== undefined)
        actions.append(tokensLabel(round.tokens, "Calibrated tokens of Claude's message that made this round's calls"));
      if (round.messageId)
        actions.append(this.pinButton(round.messageId, round.pinned, "Pin Claude's message of this round"));
      out.push(actions);
    }
    const fewer = this.layout.fewer;
    if (fewer) {
      const button = el('button', { class: 'link tool-fewer', type: 'button', 'aria-expanded': 'true' }, 'Show fewer');
      button.addEventListener('click', (e) => {
        e.preventDefault();
        e.stopPropagation();
        this.h.expandRun(fewer.run, false);
      });
      out.push(button);
    }
    return out;
  }

  render(item: ChatItem): HTMLElement {
    switch (item.kind) {
      case 'user': {
        const chips = item.injected.map((i) => {
          const d = el(
            'details',
            { class: 'chip', 'data-tag': i.tag },
            el(
              'summary',
              { title: `Sent as <${i.tag}>` },
              `${chipKind(i.tag, false)}${i.label === i.tag ? '' : ` · ${i.label}`}`,
            ),
            el('pre', { class: 'tagged' }, i.text),
          );
          return d;
        });
        return el(
          'div',
          { class: `item user${item.pinned ? ' pinned' : ''}`, 'data-id': item.id },
          this.who('You', item.messageId ?? item.id, item.pinned, item.tokens, item.text, true),
          ...(chips.length ? [el('div', { class: 'chips' }, ...chips)] : []),
          ...(item.images?.length ? [userImages(item.images)] : []),
          item.handoff ? handoffNote(item.text, this.h.markdown) : el('div', { class: 'text' }, item.text),
        );
      }
      case 'assistant': {
        // An answer the extension wrote in Claude's place (a failed request, a stop): a quiet notice line.
        if (item.standIn === true && !item.streaming)
          return el(
            'div',
            {
              class: 'item notice stand-in',
              'data-id': item.id,
              title:
                "Written by Context Pipeline in Claude's place so the conversation stays valid; Claude reads it as its own reply.",
            },
            item.text,
            ...this.lastTurn(),
          );
        // A finished answer with no words (tool calls only: its cards follow) shows its header alone.
        const silent = !item.streaming && !item.text && item.thinking === undefined;
        const header = this.layout.header !== false;
        const head = this.who(
          header ? 'Claude' : undefined,
          item.messageId,
          item.pinned,
          item.tokens,
          item.streaming ? undefined : item.text,
        );
        return el(
          'div',
          {
            class: `item assistant${item.streaming ? ' streaming' : ''}${item.pinned ? ' pinned' : ''}${silent ? ' silent' : ''}${header ? '' : ' continued'}`,
            'data-id': item.id,
          },
          head,
          ...(item.thinking ? [renderThinking(item.thinking, item.streaming)] : []),
          ...(silent ? [] : [this.answerBody(item.text, item.streaming)]),
        );
      }
      case 'tool': {
        const status = {
          running: 'running…',
          awaiting: 'Awaiting approval',
          done: '✓',
          error: '✗ error',
          declined: 'Declined',
          cancelled: '⊘ cancelled',
        }[item.status];
        const cleared = item.cleared ? this.h.compacted.clearedResult(item.id) : undefined;
        const spilled = item.spilled
          ? el(
              'span',
              {
                class: 'muted spilled',
                title:
                  'Too large to send whole (alone, or with the other results of its round): saved to a file in the session folder; Claude sees its beginning and the path, and reads the rest with read_file.',
              },
              ' · saved to a file',
            )
          : '';
        const summary = el(
          'summary',
          {},
          el('span', { class: 'tool-name', title: item.name }, item.summary),
          ' ',
          el('span', { class: 'tool-status' }, status),
          item.reason
            ? el('span', { class: 'muted reason', title: 'Your reason, passed on to Claude' }, ` — ${item.reason}`)
            : '',
          ...(cleared ? [' · ', cleared.control] : []),
          spilled,
          item.durationMs !== undefined ? el('span', { class: 'muted' }, ` · ${item.durationMs} ms`) : '',
          item.tokens !== undefined
            ? tokensLabel(item.tokens, 'Calibrated tokens of the result as the model sees it', 'result')
            : '',
          item.subagent ? subagentFigures(item.subagent) : '',
          ...this.rowExtras(),
        );
        return el(
          'details',
          { class: `item tool ${item.status}`, 'data-id': item.id },
          summary,
          ...(item.subagent ? [subagentBody(item.subagent, (id) => this.h.openSubagent(id))] : []),
          el('div', { class: 'label' }, 'Input'),
          el('pre', {}, item.input),
          ...(item.result !== undefined ? [el('div', { class: 'label' }, 'Result'), el('pre', {}, item.result)] : []),
          ...(cleared ? [cleared.body] : []),
        );
      }
      case 'summary': {
        // Keeps the notice look (and class) so it reads as part of the conversation's history.
        const open = el(
          'button',
          { class: 'link', type: 'button', title: 'The original messages, with Restore' },
          'Originals in the Compactions view',
        );
        open.addEventListener('click', () => this.h.showCompactions());
        // The summary's own prose as Markdown; what it left out and lost in words, below it.
        const body = this.answerBody(item.text, false);
        body.classList.add('summary-text');
        const lost = lostSentence({ lost: item.lost ?? [], lostMore: item.lostMore ?? 0 });
        return el(
          'details',
          { class: 'item notice summary-card', 'data-id': item.id },
          el('summary', {}, summaryTitle(item)),
          body,
          ...(item.leftOut?.length
            ? [
                el(
                  'div',
                  { class: 'summary-left-out muted' },
                  'Left out of the summary as too large to summarise (kept with the originals):',
                  el('ul', {}, ...item.leftOut.map((l) => el('li', {}, l))),
                ),
              ]
            : []),
          ...(lost ? [el('div', { class: 'summary-lost muted', 'data-testid': 'summary-lost' }, lost)] : []),
          open,
        );
      }
      case 'approval':
        return item.tool === 'mcp'
          ? renderToolCallApproval(item, this.h.approvals)
          : renderApproval(item, this.h.approvals);
      case 'compacted':
        return this.h.compacted.group(item);
      case 'notice':
        return renderNotice(item, this.h.handoff);
      case 'continued':
        return renderContinued(item, this.h.handoff);
      case 'error': {
        const node = el(
          'div',
          { class: 'item error', 'data-id': item.id, role: 'alert' },
          el('div', { class: 'text' }, item.text),
        );
        if (item.action === 'setApiKey') {
          const set = el('button', { class: 'primary with-icon', type: 'button' }, icon('key'), 'Set API key');
          set.addEventListener('click', () => this.h.setApiKey());
          node.append(set);
        }
        if (item.retryable) {
          const retry = el('button', { class: 'secondary with-icon', type: 'button' }, icon('refresh'), 'Retry');
          retry.addEventListener('click', () => {
            retry.disabled = true;
            this.h.retry();
          });
          node.append(retry);
        }
        // The request id is for a support ticket, not the reader: under the buttons, closed.
        if (item.requestId) node.append(requestIdDetails(item.requestId));
        return node;
      }
    }
  }
}

/** " · 38 tokens", muted; `kind` tells a tool result's count from a message's. */
function tokensLabel(tokens: number, title: string, kind: 'message' | 'result' = 'message'): HTMLElement {
  return el('span', { class: `muted tokens ${kind}-tokens`, title }, ` · ${tokens.toLocaleString('en-US')} tokens`);
}

/** Copies a message's text: the webview's clipboard, else through the host; the button says it worked. */
async function copyMessage(text: string, button: HTMLButtonElement, h: ItemHandlers): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    h.markdown.copy(text);
  }
  button.replaceChildren(icon('check'));
  button.title = 'Copied';
}

/** The images a user message carried: thumbnails (a click shows one at full width). */
function userImages(images: NonNullable<Extract<ChatItem, { kind: 'user' }>['images']>): HTMLElement {
  return el(
    'div',
    { class: 'user-images', 'data-testid': 'user-images' },
    ...images.map((img, i) => {
      // Its data never reached this view (a post was lost): say so rather than show a broken image.
      if (img.data === undefined)
        return el(
          'span',
          { class: 'image-missing', title: 'Reopen the chat view to load it' },
          `Image ${i + 1} (about ${img.tokens.toLocaleString('en-US')} tokens) not loaded`,
        );
      const node = el('img', {
        src: `data:${img.mediaType};base64,${img.data}`,
        alt: `Image ${i + 1} of your message`,
        title: `Image ${i + 1}: about ${img.tokens.toLocaleString('en-US')} tokens · click to enlarge`,
        tabindex: '0',
      });
      const toggle = () => node.classList.toggle('enlarged');
      node.addEventListener('click', toggle);
      node.addEventListener('keydown', (e) => {
        if (e.key !== 'Enter' && e.key !== ' ') return;
        e.preventDefault();
        toggle();
      });
      return node;
    }),
  );
}
