/**
 * What stands in for a summarised (or dropped) region, shaped so roles keep alternating with
 * the messages around it. The core is one user message holding the summary (or a visible
 * marker) and the user's own words of the region, verbatim and with their original ids:
 * summary first for a region that ends with an assistant message, words first for a region
 * that ends inside a turn (the summary then tells what was done so far on the request above it).
 * A region that starts with an assistant message gets a short assistant note before it (unless
 * that message is a compaction on demand's block, which starts the history); one
 * that ends with an assistant message gets a short acknowledgement after it. Pure.
 */
import { neutralizeUntrusted } from '../conversation/injections';
import { opensWithOnDemandSummary } from '../conversation/assistant';
import type { Block, ConversationState, Message, TextBlock } from '../conversation/conversationModel';
import type { Clock, IdSource } from '../platform/platformPorts';
import { isUserWords } from './regions';
import type { CompactionRegion } from './types';

/** The assistant's acknowledgement after a summary. */
export const SUMMARY_ACK = "Understood. I'll continue from this summary.";

/** The assistant's acknowledgement after a dropped region. */
export const DROP_ACK = "Understood. I'll continue without those turns.";

/** Appended to a summary that is followed by the user's own words. */
export const USER_WORDS_NOTE = "(The user's own messages from these turns follow, verbatim.)";

/** Appended to a summary that ends inside a turn whose user's words stand before it. */
export const USER_WORDS_BEFORE_NOTE = "(The user's own messages from these turns stand above, verbatim.)";

/** Appended to a summary that ends inside a turn (the turn in progress or a long older one). */
export const IN_TURN_NOTE =
  'This summary ends inside a turn: the work on the request above continues in the messages after it. Do not start that request over; carry on from where it stands.';

/** The note versions before 0.7.1 wrote (sessions saved then still hold it). */
export const IN_TURN_NOTE_BEFORE_0_7_1 =
  'This summary ends inside the current turn: the work on the latest request continues in the messages after it. Do not start the request over; carry on from where it stands.';

/** Whether a summary's text says it ends inside a turn (either version of {@link IN_TURN_NOTE}). */
export function endsInsideTurn(summary: string): boolean {
  return summary.includes(IN_TURN_NOTE) || summary.includes(IN_TURN_NOTE_BEFORE_0_7_1);
}

/** The assistant's note before a summary when the region starts with an assistant message. */
export const CONTINUE_NOTE = 'Earlier tool rounds of this work were compacted to save context; their summary follows.';

/** The line every summary starts with. */
/** A factory of block metadata for what a compaction writes: the compactor's, tier 0, never compacted again, stamped now. */
export function compactorMeta(deps: { readonly ids: IdSource; readonly clock: Clock }): () => Block['meta'] {
  const now = deps.clock.now();
  return () => ({
    id: deps.ids.next('blk'),
    tier: 0 as const,
    source: 'compactor' as const,
    createdAt: now,
    pinned: false,
    compactable: false,
  });
}

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
export type ReplacementContent =
  | { readonly kind: 'summary'; readonly text: string; readonly compactionId: string }
  | { readonly kind: 'marker'; readonly text: string };

/** The region's messages in the current state, in order, or undefined when they no longer stand there contiguously. */
export function regionMessages(
  state: Pick<ConversationState, 'messages'>,
  region: CompactionRegion,
): Message[] | undefined {
  const start = state.messages.findIndex((m) => m.id === region.messageIds[0]);
  if (start < 0 || region.messageIds.length === 0) return undefined;
  const slice = state.messages.slice(start, start + region.messageIds.length);
  return slice.length === region.messageIds.length && slice.every((m, i) => m.id === region.messageIds[i])
    ? slice
    : undefined;
}

/** The messages replacing `originals` (a region whose ends are cut points; see regions.ts). */
export function buildReplacement(
  originals: readonly Message[],
  content: ReplacementContent,
  deps: ReplacementDeps,
): Message[] {
  const first = originals[0];
  const last = originals.at(-1);
  if (!first || !last) return [];
  const meta = compactorMeta(deps);
  const userWords = originals.flatMap((m) => m.blocks.filter((b): b is TextBlock => isUserWords(b)));
  const lead: Block =
    content.kind === 'summary'
      ? {
          type: 'summary',
          text: content.text,
          compactionId: content.compactionId,
          turnRange: [first.turn, last.turn],
          meta: meta(),
        }
      : { type: 'text', text: content.text, meta: meta() };
  const inTurn = last.role === 'user';
  const out: Message[] = [];
  // Nothing stands before a compaction on demand's block (it starts the history): no note is needed to alternate.
  if (first.role === 'assistant' && !opensWithOnDemandSummary(first))
    out.push({
      id: deps.ids.next('msg'),
      role: 'assistant',
      blocks: [{ type: 'text', text: CONTINUE_NOTE, meta: meta() }],
      turn: first.turn,
    });
  out.push({
    id: deps.ids.next('msg'),
    role: 'user',
    blocks: inTurn ? [...userWords, lead] : [lead, ...userWords],
    turn: inTurn ? last.turn : first.turn,
  });
  if (!inTurn) {
    const ack = content.kind === 'summary' ? SUMMARY_ACK : DROP_ACK;
    out.push({
      id: deps.ids.next('msg'),
      role: 'assistant',
      blocks: [{ type: 'text', text: ack, meta: meta() }],
      turn: last.turn,
    });
  }
  return out;
}

/**
 * The summary block's text: the turn range, the body, left-out messages, and the note on the
 * user's words (`words`: where they stand — after the summary, before it (a region ending
 * inside a turn) or none).
 */
export function summaryText(
  firstTurn: number,
  lastTurn: number,
  body: string,
  leftOut: readonly string[],
  words: boolean | 'after' | 'before' | 'none',
  inTurn = false,
): string {
  const placement = words === true ? 'after' : words === false ? 'none' : words;
  const parts = [`${summaryHeading(firstTurn, lastTurn)}\n\n${stripHeading(body)}`];
  if (leftOut.length > 0) parts.push(`${LEFT_OUT_HEADING}\n${leftOut.map((l) => `- ${l}`).join('\n')}`);
  if (placement === 'after') parts.push(USER_WORDS_NOTE);
  if (placement === 'before') parts.push(USER_WORDS_BEFORE_NOTE);
  if (inTurn) parts.push(IN_TURN_NOTE);
  return parts.join('\n\n');
}

/** The line before the list of messages too large to summarise. */
export const LEFT_OUT_HEADING = 'Left out of this summary because they were too large to summarise:';

/** Start of the recall footer (see recallFooter). */
export const FOOTER_START = '(This summary replaces ';

/** Most identifiers the recall footer lists as not carried by the summary. */
export const FOOTER_MAX_LOST = 20;

/** Start of the footer's line listing what the summary did not carry. */
export const LOST_LINE_START = 'Not carried by this summary, recallable:';

/**
 * The footer every summary ends with: which turns it replaces, its compaction id, that their
 * originals can be searched and read with the recall tool, and up to
 * {@link FOOTER_MAX_LOST} identifiers of the originals the summary did not carry (`lost`,
 * from the retention check, most important first). The identifiers come from untrusted
 * content: our tags in them are neutralised and each is quoted.
 */
export function recallFooter(
  compactionId: string,
  firstTurn: number,
  lastTurn: number,
  lost: readonly string[],
): string {
  const turns = firstTurn === lastTurn ? `turn ${firstTurn}` : `turns ${firstTurn}–${lastTurn}`;
  const lines = [
    `${FOOTER_START}${turns} — compaction ${compactionId}. Their original messages and tool results are kept: search them with the recall tool (query) and read them in full (id or turn).)`,
  ];
  if (lost.length > 0) {
    const shown = lost
      .slice(0, FOOTER_MAX_LOST)
      .map((x) => `\`${neutralizeUntrusted(x).replace(/`/g, "'").replace(/\s+/g, ' ')}\``);
    const more = lost.length > FOOTER_MAX_LOST ? ` (and ${lost.length - FOOTER_MAX_LOST} more)` : '';
    lines.push(`${LOST_LINE_START} ${shown.join(', ')}${more}.`);
  }
  return lines.join('\n');
}

/** `replacement` with the text of its summary block(s) replaced by `text` (same ids and metadata). */
export function withSummaryText(replacement: readonly Message[], text: string): Message[] {
  return replacement.map((m) =>
    m.blocks.some((b) => b.type === 'summary')
      ? { ...m, blocks: m.blocks.map((b) => (b.type === 'summary' ? { ...b, text, meta: { ...b.meta } } : b)) }
      : m,
  );
}

/** The model's text without a heading of its own naming the turn range. */
export function stripHeading(body: string): string {
  return (
    body
      .trim()
      .replace(/^(?:#+\s*)?\**summary of turns?\s+\d+\s*[-–—]?\s*\d*\s*:?\**\s*/i, '')
      .trim() || body.trim()
  );
}
