import type { AgentEvent } from '../../core/agent/events';
import type { ChatView } from '../chatViewProvider';
import { assistantItem, toolItem, transcriptOf, userItem, type TokensOf } from './transcript';

/**
 * Turns a session's events into chat-view updates: user messages, the streamed answer and its thinking (one
 * item per answer, reused across retries so no partial text is left behind), tool cards,
 * notices, errors with Retry, the retry countdown, and full re-renders when compaction or a
 * restore replaced the history.
 */
export class TranscriptRenderer {
  private streamId = '';
  private streamCount = 0;

  constructor(
    private readonly view: ChatView,
    private readonly tokensOf: () => TokensOf | undefined = () => undefined,
  ) {}

  /** Renders one event (events with nothing to show are ignored). */
  render(e: AgentEvent): void {
    const post = this.view.post.bind(this.view);
    switch (e.type) {
      case 'message_added': {
        if (e.message.role === 'user') {
          const item = userItem(e.message, this.tokensOf());
          if (item) post({ type: 'upsert', item });
          return;
        }
        const item = assistantItem(e.message, this.tokensOf(), this.streamId || e.message.id);
        if (this.streamId || (item.kind === 'assistant' && (item.text || item.thinking)))
          post({ type: 'upsert', item });
        this.streamId = '';
        for (const b of e.message.blocks)
          if (b.type === 'tool_use') post({ type: 'upsert', item: toolItem(b.id, b.name, b.input) });
        return;
      }
      case 'request_started':
        // A retry (or a resend after overflow recovery) restarts the same answer: the item of a
        // request that produced no message is reused and cleared, never left behind.
        if (!this.streamId) this.streamId = `stream-${++this.streamCount}`;
        post({ type: 'upsert', item: { kind: 'assistant', id: this.streamId, text: '', streaming: true } });
        post({ type: 'retrying', waitMs: 0, attempt: e.attempt, reason: '' });
        return;
      case 'text_delta':
        if (this.streamId) post({ type: 'delta', id: this.streamId, text: e.text });
        return;
      case 'thinking_delta':
        if (this.streamId) post({ type: 'thinkingDelta', id: this.streamId, text: e.text });
        return;
      case 'retrying':
        post({ type: 'retrying', waitMs: e.waitMs, attempt: e.attempt, reason: e.error.message });
        return;
      case 'tool_started':
        post({ type: 'upsert', item: toolItem(e.call.id, e.call.name, e.call.input) });
        return;
      case 'tool_finished':
        post({ type: 'upsert', item: toolItem(e.call.id, e.call.name, e.call.input, e.outcome, this.tokensOf()) });
        return;
      case 'notice':
        post({
          type: 'upsert',
          item: {
            kind: 'notice',
            id: `n-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`,
            level: e.level,
            text: e.text,
          },
        });
        return;
      case 'error':
        if (this.streamId)
          post({ type: 'upsert', item: { kind: 'assistant', id: this.streamId, text: '', streaming: false } });
        this.streamId = '';
        post({
          type: 'upsert',
          item: {
            kind: 'error',
            id: `err-${Date.now()}`,
            text: e.error.message,
            retryable: e.error.retryable || e.error.kind === 'network',
          },
        });
        return;
      case 'turn_finished':
        post({ type: 'retrying', waitMs: 0, attempt: 0, reason: '' });
        return;
      case 'compaction_started':
        post({
          type: 'upsert',
          item: {
            kind: 'notice',
            id: `c-${Date.now()}`,
            level: 'info',
            text: e.trigger === 'manual' ? 'Compacting…' : `Compacting older history (${e.trigger})…`,
          },
        });
        return;
      case 'compaction_queued':
        post({
          type: 'upsert',
          item: {
            kind: 'notice',
            id: `q-${Date.now()}`,
            level: 'info',
            text: 'Compaction queued: it runs when this turn ends.',
          },
        });
        return;
      case 'history_replaced':
        this.streamId = '';
        post({ type: 'transcript', items: transcriptOf(e.messages, this.tokensOf()) });
        return;
      default:
        return;
    }
  }
}
