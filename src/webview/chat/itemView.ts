import type { ChatItem } from '../../protocol/chatItems';
import { el } from '../shared/dom';
import { icon } from '../shared/icons';
import { renderApproval, type ApprovalHandlers } from './approvalCard';
import { renderToolCallApproval } from './toolCallApproval';
import { renderMarkdown, type MarkdownActions } from './markdown';
import { lostSentence, summaryTitle } from './summaryTitle';
import { renderThinking } from './thinkingView';
import { requestIdDetails } from './requestDetails';

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
}

/**
 * Renders one transcript item to a fresh DOM node. User text, tool output and streaming
 * answers and thinking are text, never HTML; a finished answer is rendered as sanitised Markdown.
 * The node carries `data-id` = item.id; a streaming answer's text lives in its `.text` child.
 */
export function renderItem(item: ChatItem, handlers: ItemHandlers): HTMLElement {
  return new ItemRenderer(handlers).render(item);
}

class ItemRenderer {
  constructor(private readonly h: ItemHandlers) {}

  /** While streaming: plain text (cheap to append to). Once final: sanitised Markdown. */
  private answerBody(text: string, streaming: boolean): HTMLElement {
    if (streaming || !text) return el('div', { class: 'text' }, text);
    try {
      return el('div', { class: 'text markdown' }, renderMarkdown(text, this.h.markdown));
    } catch (err) {
      console.warn(`Context Pipeline: could not render Markdown, showing text: ${String(err)}`);
      return el('div', { class: 'text' }, text);
    }
  }

  /** The header of a message: who, its tokens, and a Pin toggle (pinned messages are never compacted). */
  private who(
    name: string,
    messageId: string | undefined,
    pinned: boolean | undefined,
    tokens: number | undefined,
  ): HTMLElement {
    const head = el('div', { class: 'who' }, name);
    if (tokens !== undefined)
      head.append(
        el(
          'span',
          { class: 'muted tokens', title: 'Calibrated tokens of this message' },
          ` · ${tokens.toLocaleString('en-US')} tokens`,
        ),
      );
    if (messageId) {
      const pin = el(
        'button',
        {
          class: 'icon-button pin',
          type: 'button',
          title: pinned
            ? 'Pinned — click to unpin: compaction may summarise this message again'
            : 'Pin: compaction never touches this message',
          'aria-label': 'Pin message',
          'aria-pressed': pinned ? 'true' : 'false',
        },
        icon(pinned ? 'pinned' : 'pin'),
      );
      pin.addEventListener('click', () => this.h.pin(messageId, !pinned));
      head.append(pin);
    }
    return head;
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
              `${i.tag === 'ide_selection' ? 'selection' : i.tag === 'ide_opened_file' ? 'file' : i.tag}${i.label === i.tag ? '' : ` · ${i.label}`}`,
            ),
            el('pre', { class: 'tagged' }, i.text),
          );
          return d;
        });
        return el(
          'div',
          { class: `item user${item.pinned ? ' pinned' : ''}`, 'data-id': item.id },
          this.who('You', item.id, item.pinned, item.tokens),
          ...(chips.length ? [el('div', { class: 'chips' }, ...chips)] : []),
          ...(item.images?.length ? [userImages(item.images)] : []),
          el('div', { class: 'text' }, item.text),
        );
      }
      case 'assistant': {
        // A finished answer with no words (tool calls only: its cards follow) shows its header alone.
        const silent = !item.streaming && !item.text && item.thinking === undefined;
        // An answer the extension wrote in Claude's place (a failed request, a stop) says so.
        const standIn = item.standIn === true && !item.streaming;
        const head = this.who(standIn ? 'Context Pipeline' : 'Claude', item.messageId, item.pinned, item.tokens);
        if (standIn)
          head.title =
            "Written by Context Pipeline in Claude's place so the conversation stays valid; Claude reads it as its own reply.";
        return el(
          'div',
          {
            class: `item assistant${item.streaming ? ' streaming' : ''}${item.pinned ? ' pinned' : ''}${silent ? ' silent' : ''}${standIn ? ' stand-in' : ''}`,
            'data-id': item.id,
          },
          head,
          ...(item.thinking ? [renderThinking(item.thinking, item.streaming)] : []),
          ...(silent ? [] : [this.answerBody(item.text, item.streaming || !item.text)]),
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
        const cleared = item.cleared
          ? el(
              'span',
              {
                class: 'muted cleared',
                title:
                  'Compaction cleared this result to save context; the original is in the Compactions view (Restore brings it back).',
              },
              ' · result cleared',
            )
          : '';
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
          el('span', { class: 'tool-name', title: toolTitle(item.name) }, item.summary),
          ' ',
          el('span', { class: 'tool-status' }, status),
          item.reason
            ? el('span', { class: 'muted reason', title: 'Your reason, passed on to Claude' }, ` — ${item.reason}`)
            : '',
          cleared,
          spilled,
          item.durationMs !== undefined ? el('span', { class: 'muted' }, ` · ${item.durationMs} ms`) : '',
          item.tokens !== undefined
            ? el(
                'span',
                { class: 'muted tokens', title: 'Calibrated tokens of the result as the model sees it' },
                ` · ${item.tokens.toLocaleString('en-US')} tokens`,
              )
            : '',
        );
        return el(
          'details',
          { class: `item tool ${item.status}`, 'data-id': item.id },
          summary,
          el('div', { class: 'label' }, 'Input'),
          el('pre', {}, item.input),
          ...(item.result !== undefined ? [el('div', { class: 'label' }, 'Result'), el('pre', {}, item.result)] : []),
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
      case 'notice':
        return el('div', { class: `item notice ${item.level}`, 'data-id': item.id, role: 'status' }, item.text);
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

/** A tool row's tooltip: the tool's full name (an MCP tool's as its tool and server too). */
function toolTitle(name: string): string {
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
  return mcp ? `${name}: the tool ${mcp[2]} of the MCP server ${mcp[1]}` : name;
}
