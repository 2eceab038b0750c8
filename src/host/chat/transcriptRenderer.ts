import type { AgentEvent } from '../../core/agent/events';
import type { ToolOutcome } from '../../core/tools/toolRunner';
import { messageWithoutRequestId } from '../../core/llm/llmErrors';
import type { ToolLookup } from '../../core/tools/callSummary';
import type { Message, Plan } from '../../core/conversation/conversationModel';
import type { ChatItem } from '../../protocol/chatItems';
import type { TranscriptRendering } from '../../app/ports';
import type { ChatView } from '../chatViewProvider';
import type { CompactionEntryState } from '../../core/agent/sessionCore';
import { assistantItem, resultText, serverToolItems, toolItem, transcriptOf, type TokensOf } from './transcript';
import { CompactedHistory, compactedItems } from './compactedHistory';
import { compactedText, compactingText, worthALine } from './compactionLines';
import { userItems } from './userBubbles';
import { planMessage } from './planMessage';
import type { SubagentFigures, SubagentRecord } from '../../core/subagents/subagentRecord';
import { withSubagents } from './subagentCards';
import type { ContinuedFrom } from '../../core/session/entries';

/** The first card of a session handed off to (`from`: the session it continues); none for any other. */
export function continuedItems(from: ContinuedFrom | undefined): ChatItem[] {
  return from ? [{ kind: 'continued', id: 'continued-from', sessionId: from.sessionId, title: from.title }] : [];
}

/** In a session handed off to (`lead` holds its card), its first turn's words are the handoff note: marked so. */
function handoffNotes(items: readonly ChatItem[], lead: readonly ChatItem[]): ChatItem[] {
  if (!lead.some((i) => i.kind === 'continued')) return [...items];
  return items.map((i) => (i.kind === 'user' && i.turn === 1 ? { ...i, handoff: true } : i));
}

/** Items this process numbered: a notice's or an error's id is unique even when two come in the same millisecond. */
let itemCount = 0;

/**
 * Turns a session's events into chat-view updates: user messages, the streamed answer and its thinking (one
 * item per answer, reused across retries so no partial text is left behind), tool cards,
 * notices, errors with Retry, the retry countdown, and full re-renders when compaction or a
 * restore replaced the history. Keeps what is in flight (the answer streamed so far, the tool
 * cards of the round in progress, a retry's countdown, a compaction running) so a resync
 * rebuilds it in a view that was hidden meanwhile (what was posted to it then was not delivered).
 */
export class TranscriptRenderer implements TranscriptRendering {
  private streamId = '';
  private streamCount = 0;
  /** What the answer in flight (item `streamId`) streamed so far; undefined when none is. */
  private streamed: { text: string; thinking: string } | undefined;
  /** The tool cards of the round in progress, as last posted (their results are not in the conversation yet). */
  private readonly roundTools = new Map<string, ChatItem>();
  /** Whether a turn runs (turn_started … turn_finished): only then is a call without a result running. */
  private inTurn = false;
  /** The retry waited for (its countdown ends at `until`, on `now`'s clock); undefined when none is. */
  private retry: { until: number; attempt: number; reason: string; requestId?: string } | undefined;
  /** The notice of the compaction running (compaction_started … compaction_finished). */
  private compacting: ChatItem | undefined;
  /** Whether a "Compacting…" line announced the compaction running (its outcome line follows), and whether it failed. */
  private announced: { failed: boolean } | undefined;
  /** The figures of the subagents of the round in progress, by task call id (live; their records come later). */
  private readonly running = new Map<string, SubagentFigures>();

  /**
   * `now`: the clock a retry's countdown is measured on (ms); `lookup`: the tools' definitions,
   * which the tool rows' summaries are made from; `compactions`: the open session's, whose
   * originals the compacted groups and cleared results are shown from; `plan`: its plan, sent
   * with every whole transcript (the checklist); `subagents`: the session's subagent records
   * (their task cards' figures); `lead`: items that open every whole transcript (a handoff's
   * "Continued from" card, {@link continuedItems}).
   */
  constructor(
    private readonly view: ChatView,
    private readonly tokensOf: () => TokensOf | undefined = () => undefined,
    private readonly now: () => number = Date.now,
    private readonly lookup?: ToolLookup,
    private readonly compactions: () => readonly CompactionEntryState[] = () => [],
    private readonly plan: () => Plan | undefined = () => undefined,
    private readonly subagents: () => readonly SubagentRecord[] = () => [],
    private readonly lead: () => readonly ChatItem[] = () => [],
  ) {}

  /** A task call's subagent figures: live while its round runs, else its saved record. */
  private figures(): (toolUseId: string) => SubagentFigures | undefined {
    const records = new Map(this.subagents().map((r) => [r.toolUseId, r]));
    return (id) => this.running.get(id) ?? records.get(id);
  }

  /** The items of compaction `id`'s group (built from its originals), or why there are none. */
  openCompacted(compactionId: string): void {
    const history = new CompactedHistory(this.compactions());
    const record = history.record(compactionId);
    const build = (messages: readonly Message[]) =>
      transcriptOf(messages, this.tokensOf(), false, this.lookup, history);
    this.view.post(
      record
        ? { type: 'compactedItems', compactionId, items: compactedItems(record, build) }
        : {
            type: 'compactedItems',
            compactionId,
            items: [],
            error: 'This compaction is no longer kept in the session.',
          },
    );
  }

  /** The original of a cleared tool result (capped like any result), or why it cannot be shown. */
  openClearedResult(toolUseId: string): void {
    const original = new CompactedHistory(this.compactions()).clearedResult(toolUseId);
    this.view.post(
      original
        ? { type: 'clearedResult', toolUseId, text: resultText(original.content) }
        : { type: 'clearedResult', toolUseId, error: 'The original result is no longer kept in the session.' },
    );
  }

  /**
   * Posts the whole transcript of `messages`, then the tool cards of the round in progress and
   * the answer streamed so far (see TranscriptRendering.resync).
   */
  resync(messages: readonly Message[]): void {
    this.history(messages);
    if (this.compacting) this.view.post({ type: 'upsert', item: this.compacting });
    // The countdown as it stands, or none (clears one a view kept from before it was hidden).
    const left = this.retry ? this.retry.until - this.now() : 0;
    const { attempt, reason, requestId } =
      left > 0 && this.retry ? this.retry : { attempt: 0, reason: '', requestId: undefined };
    this.view.post({
      type: 'retrying',
      waitMs: Math.max(0, left),
      attempt,
      reason,
      ...(requestId ? { requestId } : {}),
    });
  }

  /** The whole transcript, then the round's tool cards and the answer streamed so far. */
  private history(messages: readonly Message[]): void {
    const history = new CompactedHistory(this.compactions());
    const lead = this.lead();
    const items = [
      ...lead,
      ...handoffNotes(transcriptOf(messages, this.tokensOf(), this.inTurn, this.lookup, history), lead),
    ];
    this.view.post({ type: 'transcript', items: withSubagents(items, this.figures()) });
    this.view.post(planMessage(this.plan()));
    for (const item of this.roundTools.values()) this.view.post({ type: 'upsert', item });
    if (this.streamId && this.streamed) {
      const { text, thinking } = this.streamed;
      const item: ChatItem = { kind: 'assistant', id: this.streamId, text, streaming: true };
      this.view.post({ type: 'upsert', item: thinking ? { ...item, thinking: { text: thinking } } : item });
    }
  }

  /**
   * A new id for a notice or an error item: `ev-` (the chat service's own notices never start
   * so), its kind, the clock and a number no other item of this process has, so a second item
   * in the same millisecond never replaces the first in the view.
   */
  private itemId(kind: string): string {
    return `ev-${kind}-${this.now()}-${++itemCount}`;
  }

  /** A tool call's item (with its outcome once it has one), summarised from its definition. */
  private toolItem(id: string, name: string, input: unknown, outcome?: ToolOutcome): ChatItem {
    return toolItem(id, name, input, outcome, outcome ? this.tokensOf() : undefined, this.lookup);
  }

  /** Posts a tool card (with its subagent's figures, for a task call) and keeps it as the round's (see roundTools). */
  private tool(card: ChatItem): void {
    const [item = card] = withSubagents([card], this.figures());
    this.roundTools.set(item.id, item);
    this.view.post({ type: 'upsert', item });
  }

  /** Renders one event (events with nothing to show are ignored). */
  render(e: AgentEvent): void {
    const post = this.view.post.bind(this.view);
    switch (e.type) {
      case 'message_added': {
        if (e.message.role === 'user') {
          // The round's results (or the user's words): its cards are in the conversation now.
          this.roundTools.clear();
          const { bubbles, reminders } = userItems(e.message, this.tokensOf());
          for (const item of [...reminders, ...handoffNotes(bubbles, this.lead())]) post({ type: 'upsert', item });
          return;
        }
        const item = assistantItem(e.message, this.tokensOf(), this.streamId || e.message.id);
        if (this.streamId || (item.kind === 'assistant' && (item.text || item.thinking)))
          post({ type: 'upsert', item });
        this.streamId = '';
        this.streamed = undefined;
        for (const notice of serverToolItems(e.message)) post({ type: 'upsert', item: notice });
        for (const b of e.message.blocks) if (b.type === 'tool_use') this.tool(this.toolItem(b.id, b.name, b.input));
        return;
      }
      case 'request_started':
        // A retry (or a resend after overflow recovery) restarts the same answer: the item of a
        // request that produced no message is reused and cleared, never left behind.
        if (!this.streamId) this.streamId = `stream-${++this.streamCount}`;
        this.streamed = { text: '', thinking: '' };
        this.retry = undefined;
        post({ type: 'upsert', item: { kind: 'assistant', id: this.streamId, text: '', streaming: true } });
        post({ type: 'retrying', waitMs: 0, attempt: e.attempt, reason: '' });
        return;
      case 'text_delta':
        if (!this.streamId) return;
        if (this.streamed) this.streamed.text += e.text;
        post({ type: 'delta', id: this.streamId, text: e.text });
        return;
      case 'thinking_delta':
        if (!this.streamId) return;
        if (this.streamed) this.streamed.thinking += e.text;
        post({ type: 'thinkingDelta', id: this.streamId, text: e.text });
        return;
      case 'retrying':
        this.retry =
          e.waitMs > 0
            ? {
                until: this.now() + e.waitMs,
                attempt: e.attempt,
                reason: messageWithoutRequestId(e.error),
                ...(e.error.requestId ? { requestId: e.error.requestId } : {}),
              }
            : undefined;
        post({
          type: 'retrying',
          waitMs: e.waitMs,
          attempt: e.attempt,
          reason: messageWithoutRequestId(e.error),
          ...(e.error.requestId ? { requestId: e.error.requestId } : {}),
        });
        return;
      case 'plan_changed':
        post(planMessage(e.plan));
        return;
      case 'tool_started':
        this.tool(this.toolItem(e.call.id, e.call.name, e.call.input));
        return;
      case 'tool_state': {
        // Its approval card waits for the user (`awaiting`), or the user answered (`running`).
        const item = this.roundTools.get(e.call.id) ?? this.toolItem(e.call.id, e.call.name, e.call.input);
        if (item.kind === 'tool' && (item.status === 'running' || item.status === 'awaiting'))
          this.tool({ ...item, status: e.state === 'awaiting_approval' ? 'awaiting' : 'running' });
        return;
      }
      case 'tool_finished':
        this.tool(this.toolItem(e.call.id, e.call.name, e.call.input, e.outcome));
        return;
      case 'subagent_progress':
      case 'subagent_finished': {
        const figures = e.type === 'subagent_progress' ? e.figures : e.record;
        this.running.set(e.type === 'subagent_progress' ? e.toolUseId : e.record.toolUseId, figures);
        const item = this.roundTools.get(e.type === 'subagent_progress' ? e.toolUseId : e.record.toolUseId);
        if (item) this.tool(item);
        if (e.type === 'subagent_finished' && e.notSaved)
          post({ type: 'upsert', item: { kind: 'notice', id: this.itemId('sa'), level: 'warning', text: e.notSaved } });
        return;
      }
      case 'notice':
        post({
          type: 'upsert',
          item: {
            kind: 'notice',
            id: this.itemId('n'),
            level: e.level,
            text: e.text,
          },
        });
        return;
      case 'error':
        this.retry = undefined;
        if (this.announced) this.announced.failed = true;
        if (this.streamId)
          post({ type: 'upsert', item: { kind: 'assistant', id: this.streamId, text: '', streaming: false } });
        this.streamId = '';
        this.streamed = undefined;
        post({
          type: 'upsert',
          item: {
            kind: 'error',
            id: this.itemId('err'),
            text: messageWithoutRequestId(e.error),
            ...(e.error.requestId ? { requestId: e.error.requestId } : {}),
            // A key set (or set again) after an authentication error: Retry sends the message still unanswered.
            retryable: e.error.retryable || e.error.kind === 'network' || e.error.kind === 'authentication',
            ...(e.error.kind === 'authentication' ? { action: 'setApiKey' as const } : {}),
          },
        });
        return;
      case 'turn_started':
        this.inTurn = true;
        return;
      case 'turn_finished':
        this.inTurn = false;
        // A pass that ended without its compaction_finished (it threw) leaves no line behind.
        this.compacting = undefined;
        this.announced = undefined;
        this.roundTools.clear();
        this.running.clear();
        this.streamed = undefined;
        this.retry = undefined;
        post({ type: 'retrying', waitMs: 0, attempt: 0, reason: '' });
        return;
      case 'compaction_started': {
        // A manual pass says so again once its summary starts (with its tokens): the same line.
        const id = this.compacting?.id ?? this.itemId('c');
        this.announced ??= { failed: false };
        this.compacting = { kind: 'notice', id, level: 'info', text: compactingText(e.trigger, e.tokens) };
        post({ type: 'upsert', item: this.compacting });
        return;
      }
      case 'compaction_finished':
        // Its outcome, where a "Compacting…" line announced it (or it summarised or removed turns).
        if (this.announced || worthALine(e.records))
          post({
            type: 'upsert',
            item: {
              kind: 'notice',
              id: this.itemId('cf'),
              level: 'info',
              text: compactedText(e.records, this.announced?.failed === true),
            },
          });
        this.compacting = undefined;
        this.announced = undefined;
        return;
      case 'compaction_queued':
        post({
          type: 'upsert',
          item: {
            kind: 'notice',
            id: this.itemId('q'),
            level: 'info',
            text: 'Compaction queued: it runs when this turn ends.',
          },
        });
        return;
      case 'history_replaced':
        this.streamId = '';
        this.streamed = undefined;
        // The compaction's result replaces its "Compacting…" notice; the countdown is untouched.
        this.compacting = undefined;
        this.history(e.messages);
        return;
      default:
        return;
    }
  }
}
