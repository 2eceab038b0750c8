/**
 * What stands in for a summarised (or dropped) region: exactly two messages, so roles keep
 * alternating. A user message with the summary (or a visible marker) followed by the user's
 * own words of the region, verbatim and with their original ids; then a short assistant
 * acknowledgement. Pure.
 */
import type { Block, ConversationState, Message, TextBlock } from '../model';
import type { Clock, IdSource } from '../ports';
import { isUserWords } from './regions';
import type { CompactionRegion } from './types';

/** The assistant's acknowledgement after a summary. */
export const SUMMARY_ACK = "Understood. I'll continue from this summary.";

/** The assistant's acknowledgement after a dropped region. */
export const DROP_ACK = "Understood. I'll continue without those turns.";

/** Appended to a summary that is followed by the user's own words. */
export const USER_WORDS_NOTE = "(The user's own messages from these turns follow, verbatim.)";

/** The line every summary starts with. */
export function summaryHeading(firstTurn: number, lastTurn: number): string {
  return `Summary of turns ${firstTurn}–${lastTurn}:`;
}

/** The visible marker of a fallback drop. */
export function dropMarker(firstTurn: number, lastTurn: number, reason: string): string {
  return `[Turns ${firstTurn}–${lastTurn} were removed to free context because the summariser failed (${reason}); they can be restored from the Compactions view.]`;
}

/** Ports a replacement needs. */
export interface ReplacementDeps {
  readonly clock: Clock;
  readonly ids: IdSource;
}

/** What replaces the region's content: a summary block, or a marker text. */
export type ReplacementContent = { readonly kind: 'summary'; readonly text: string; readonly compactionId: string } | { readonly kind: 'marker'; readonly text: string };

/** The region's messages in the current state, in order, or undefined when they no longer stand there contiguously. */
export function regionMessages(state: Pick<ConversationState, 'messages'>, region: CompactionRegion): Message[] | undefined {
  const start = state.messages.findIndex((m) => m.id === region.messageIds[0]);
  if (start < 0 || region.messageIds.length === 0) return undefined;
  const slice = state.messages.slice(start, start + region.messageIds.length);
  return slice.length === region.messageIds.length && slice.every((m, i) => m.id === region.messageIds[i]) ? slice : undefined;
}

/** The two messages replacing `originals` (a region: starts with a user message, ends with an assistant one). */
export function buildReplacement(originals: readonly Message[], content: ReplacementContent, deps: ReplacementDeps): Message[] {
  const first = originals[0];
  const last = originals.at(-1);
  if (!first || !last) return [];
  const now = deps.clock.now();
  const meta = () => ({ id: deps.ids.next('blk'), tier: 0 as const, source: 'compactor' as const, createdAt: now, pinned: false, compactable: false });
  const userWords = originals.flatMap((m) => m.blocks.filter((b): b is TextBlock => isUserWords(b)));
  const lead: Block =
    content.kind === 'summary'
      ? { type: 'summary', text: content.text, compactionId: content.compactionId, turnRange: [first.turn, last.turn], meta: meta() }
      : { type: 'text', text: content.text, meta: meta() };
  const ack = content.kind === 'summary' ? SUMMARY_ACK : DROP_ACK;
  return [
    { id: deps.ids.next('msg'), role: 'user', blocks: [lead, ...userWords], turn: first.turn },
    { id: deps.ids.next('msg'), role: 'assistant', blocks: [{ type: 'text', text: ack, meta: meta() }], turn: last.turn },
  ];
}

/** The summary block's text: the turn range, the body, left-out messages, and the note on the user's words. */
export function summaryText(firstTurn: number, lastTurn: number, body: string, leftOut: readonly string[], hasUserWords: boolean): string {
  const parts = [`${summaryHeading(firstTurn, lastTurn)}\n\n${stripHeading(body)}`];
  if (leftOut.length > 0) parts.push(`Left out of this summary because they were too large to summarise:\n${leftOut.map((l) => `- ${l}`).join('\n')}`);
  if (hasUserWords) parts.push(USER_WORDS_NOTE);
  return parts.join('\n\n');
}

/** The model's text without a heading of its own naming the turn range. */
export function stripHeading(body: string): string {
  return body.trim().replace(/^(?:#+\s*)?\**summary of turns?\s+\d+\s*[-–—]?\s*\d*\s*:?\**\s*/i, '').trim() || body.trim();
}
