/**
 * Notices and errors the chat service posts into the chat as items of their own: each with
 * an id from the clock and a number, so items posted in the same millisecond never share one.
 */
import type { Clock } from '../core/platform/platformPorts';
import type { ChatItem } from '../protocol/chatItems';
import type { ChatViewPort, ProjectNotice } from './ports';

/** A message could not be sent because no session opened. */
export const NOT_OPENED =
  'No session could be opened; see the "Context Pipeline" output for why. Your message was not sent.';

/** Stop was pressed while a message was being prepared. */
export const STOPPED_BEFORE_SENT = 'Stopped before the message was sent; it is back in the message box.';

/**
 * No API key is set and requests would go where one is needed: nothing was sent. `send`: a
 * new message (it goes back to the message box), else a retry.
 */
export function noApiKey(send: boolean): string {
  return `No Anthropic API key is set, so nothing was sent${send ? '; your message is back in the message box' : ''}. Set one with Set API key (it is kept in VS Code's secret storage), or set ANTHROPIC_API_KEY before starting VS Code.`;
}

/** Posts notices and errors to the chat view. */
export class ChatNotices {
  private count = 0;

  constructor(
    private readonly view: ChatViewPort,
    private readonly clock: Clock,
  ) {}

  /** A notice; `prefix` names its kind in the item's id; `action`: a button of its own (Continue in a new session). */
  notice(prefix: string, level: 'info' | 'warning', text: string, action?: 'handoff'): void {
    const id = this.id(prefix);
    this.view.post({ type: 'upsert', item: { kind: 'notice', id, level, text, ...(action ? { action } : {}) } });
  }

  /** A new item id: `prefix` (its kind), the clock and a number unique to these notices. */
  private id(prefix: string): string {
    return `${prefix}-${this.clock.now()}-${++this.count}`;
  }

  /** The project context's notices, in order. */
  project(notices: readonly ProjectNotice[]): void {
    for (const n of notices) this.notice('ctx', n.level, n.text);
  }

  /**
   * An error; `retryable`: it shows Retry (the message is in the conversation, unanswered);
   * `action`: a button of its own (Set API key).
   */
  error(text: string, retryable = false, action?: 'setApiKey'): void {
    const item: ChatItem = { kind: 'error', id: this.id('err'), text, retryable, ...(action ? { action } : {}) };
    this.view.post({ type: 'upsert', item });
  }
}
