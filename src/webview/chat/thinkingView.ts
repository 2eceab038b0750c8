import type { ChatThinking } from '../../protocol/chatItems';
import { el, formatTokens } from '../shared/dom';

/**
 * An answer's extended thinking in the chat: a collapsed disclosure above the answer. It is a
 * native <details>/<summary>, so it is reached with Tab and toggled with Enter or Space, and
 * screen readers announce it as expandable. The thinking is model output and is shown as
 * plain text (text nodes, never HTML): nothing in it is interpreted.
 */

/** The disclosure's label: "Thinking…" while streaming, "Thinking · N tokens", or "Thinking (redacted)". */
export function thinkingLabel(t: ChatThinking, streaming: boolean): string {
  if (streaming) return 'Thinking…';
  if (!t.text && t.redacted) return 'Thinking (redacted)';
  const tokens = t.tokens !== undefined ? ` · ${formatTokens(t.tokens)} tokens` : '';
  return `Thinking${tokens}${t.redacted ? ' (partly redacted)' : ''}`;
}

/** What a redacted part says instead of text. */
export const REDACTED_NOTE =
  'Part of this reasoning was encrypted by Anthropic’s safety systems; it is sent back to the model unchanged and cannot be shown.';

/** The collapsed thinking of an answer (`open`: keep it expanded, e.g. across a re-render). Its text lives in `.thinking-text`. */
export function renderThinking(t: ChatThinking, streaming: boolean, open = false): HTMLElement {
  const details = el(
    'details',
    { class: 'thinking', 'data-testid': 'thinking' },
    el('summary', { title: 'The model’s extended thinking for this answer' }, thinkingLabel(t, streaming)),
    el('div', { class: 'thinking-text' }, t.text),
    ...(t.redacted ? [el('div', { class: 'muted thinking-redacted' }, REDACTED_NOTE)] : []),
  );
  details.open = open;
  return details;
}

/** `node` (a re-render of `old`) with its thinking expanded when it was expanded in `old`. */
export function keepThinkingOpen(old: HTMLElement, node: HTMLElement): HTMLElement {
  const details = old.querySelector('details.thinking[open]') ? node.querySelector('details.thinking') : null;
  if (details instanceof HTMLDetailsElement) details.open = true;
  return node;
}
