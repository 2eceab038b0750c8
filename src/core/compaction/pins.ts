/**
 * Pins: what the user marked as never compacted — whole messages (the chat's Pin toggle) and
 * single blocks (a selection sent with Pin Selection). Pure changes of the conversation (the
 * agent session persists them as `pin` / `unpin` entries of the block ids), and the list of
 * pinned regions the Context Budget panel shows.
 */
import type { Block, ConversationState, Message, Role } from '../conversation/conversationModel';
import { blockPreviewText } from '../pipeline/ledger';
import type { Tokenizer } from '../platform/platformPorts';
import { headChars } from '../platform/text';
import type { Calibration } from '../tokens/calibration';
import { calibratedBlockTokens, calibratedMessageTokens } from '../tokens/calibratedTokens';

/** The conversation after a pin change and the ids of the blocks to persist, or why it cannot be made. */
export type PinChange =
  | { readonly ok: true; readonly state: ConversationState; readonly blockIds: readonly string[] }
  | { readonly ok: false; readonly reason: string };

/** Whether every block of a message is pinned: the chat shows such a message as Pinned. */
export function isMessagePinned(m: Message): boolean {
  return m.blocks.length > 0 && m.blocks.every((b) => b.meta.pinned);
}

/**
 * Pins or unpins every block of message `messageId`. The message is replaced by a copy with
 * the new flags (blocks are immutable values); `blockIds` lists all its blocks.
 */
export function pinMessage(state: ConversationState, messageId: string, pinned: boolean): PinChange {
  const index = state.messages.findIndex((m) => m.id === messageId);
  const message = state.messages[index];
  if (!message)
    return { ok: false, reason: 'That message is no longer in the conversation (it may have been compacted).' };
  const blocks = message.blocks.map((b) => withPin(b, pinned));
  return {
    ok: true,
    state: replaceMessage(state, index, { ...message, blocks }),
    blockIds: message.blocks.map((b) => b.meta.id),
  };
}

/**
 * Pins or unpins the one block `blockId` (e.g. a pinned selection), leaving the rest of its
 * message as it is. Refused when no message of the conversation holds the block.
 */
export function pinBlock(state: ConversationState, blockId: string, pinned: boolean): PinChange {
  const index = state.messages.findIndex((m) => m.blocks.some((b) => b.meta.id === blockId));
  const message = state.messages[index];
  if (!message)
    return { ok: false, reason: 'That block is no longer in the conversation (it may have been compacted).' };
  const blocks = message.blocks.map((b) => (b.meta.id === blockId ? withPin(b, pinned) : b));
  return { ok: true, state: replaceMessage(state, index, { ...message, blocks }), blockIds: [blockId] };
}

function withPin(b: Block, pinned: boolean): Block {
  return b.meta.pinned === pinned ? b : ({ ...b, meta: { ...b.meta, pinned } } as Block);
}

function replaceMessage(state: ConversationState, index: number, message: Message): ConversationState {
  const messages = [...state.messages];
  messages[index] = message;
  return { ...state, messages };
}

/** Something pinned in the conversation: a whole message, or one pinned block of a message that is not wholly pinned. */
export interface PinnedRegion {
  readonly kind: 'message' | 'block';
  /** The message id (kind `message`) or the block id (kind `block`): what Unpin acts on. */
  readonly id: string;
  readonly messageId: string;
  readonly role: Role;
  readonly turn: number;
  /** What it is: `file:lines` of a pinned selection, else the block's type. Empty for a whole message. */
  readonly label: string;
  /** Its first line of text (at most `PREVIEW_CHARS`). */
  readonly preview: string;
  /** Calibrated tokens of the message or block. */
  readonly tokens: number;
}

/** Longest preview of a pinned region. */
export const PREVIEW_CHARS = 120;
const SELECTION = /selected the lines (\d+) to (\d+) from (.*?):\n([\s\S]*)$/;

/**
 * `path:start-end` and the first line of the code, when `b` is an `<ide_selection>` block: from
 * its structured `meta.injection`; a block saved before that existed is parsed from its text
 * (so pinned selections of older sessions keep their labels).
 */
export function selectionOf(b: Block): { label: string; firstLine: string } | undefined {
  if (b.type !== 'text' || b.meta.source !== 'ide_selection') return undefined;
  const ref = b.meta.injection;
  if (ref?.path !== undefined && ref.startLine !== undefined && ref.endLine !== undefined)
    return {
      label: `${ref.path}:${ref.startLine}-${ref.endLine}`,
      firstLine: firstLine(b.text.slice(ref.contentStart ?? 0)),
    };
  const m = SELECTION.exec(b.text);
  if (!m) return undefined;
  return { label: `${m[3]}:${m[1]}-${m[2]}`, firstLine: firstLine(m[4] ?? '') };
}

/**
 * Every pinned region of `messages`, in conversation order: each wholly pinned message once,
 * then, in the other messages, each pinned block on its own. Tokens are counted with the
 * session's tokenizer and calibration (memoised counts, so this is cheap).
 */
export function pinnedRegions(
  messages: readonly Message[],
  tokenizer: Tokenizer,
  calibration: Calibration,
): PinnedRegion[] {
  const out: PinnedRegion[] = [];
  for (const m of messages) {
    const base = { messageId: m.id, role: m.role, turn: m.turn };
    if (isMessagePinned(m)) {
      out.push({
        ...base,
        kind: 'message',
        id: m.id,
        label: '',
        preview: messagePreview(m),
        tokens: Math.round(calibratedMessageTokens(m, tokenizer, calibration)),
      });
      continue;
    }
    for (const b of m.blocks) {
      if (!b.meta.pinned) continue;
      const sel = selectionOf(b);
      const tokens = calibratedBlockTokens(b, tokenizer, calibration);
      out.push({
        ...base,
        kind: 'block',
        id: b.meta.id,
        label: sel?.label ?? b.type.replace('_', ' '),
        preview: sel?.firstLine ?? firstLine(blockPreviewText(b)),
        tokens,
      });
    }
  }
  return out;
}

/** The user's words of a user message, else its first text; one line. */
function messagePreview(m: Message): string {
  const texts = m.blocks.flatMap((b) =>
    b.type === 'text' || b.type === 'summary' ? [{ text: b.text, source: b.meta.source }] : [],
  );
  const words = texts.find((t) => t.source === 'user' || t.source === 'assistant') ?? texts[0];
  const first = m.blocks[0];
  return firstLine(words?.text ?? (first ? blockPreviewText(first) : ''));
}

function firstLine(text: string): string {
  const line =
    text
      .split('\n')
      .find((l) => l.trim().length > 0)
      ?.trim() ?? '';
  return line.length > PREVIEW_CHARS ? `${headChars(line, PREVIEW_CHARS - 1)}…` : line;
}
