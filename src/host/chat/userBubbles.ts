/**
 * A user message as the chat shows it: one bubble per block of the user's own words (a
 * compaction keeps the words of every turn it summarised in one message: each question stays
 * its own bubble), the editor context (selection, opened file) as chips on the first bubble,
 * and every `system-reminder` (files re-attached after a compaction, nested instructions, other
 * reminders) as a quiet notice line of its own, not a chip inside the user's words.
 */
import { isReattachReminder } from '../../core/compaction/reattach';
import { isPlanReminder } from '../../core/plan/plan';
import { isUserWords } from '../../core/compaction/regions';
import type { ReattachedFile } from '../../core/compaction/types';
import type { Block, Message } from '../../core/conversation/conversationModel';
import { imageTokens } from '../../core/conversation/imageSize';
import type { ChatItem } from '../../protocol/chatItems';
import { imageRef, injectedOf, isPinned, type TokensOf } from './transcript';

/** Reads the files a re-attach reminder block named, from the compaction that added it; undefined when unknown. */
export type ReattachedOf = (blockId: string) => readonly ReattachedFile[] | undefined;

/** The bubbles of a user message's words and the notice lines of its reminders (see the file comment). */
export interface UserItems {
  readonly bubbles: readonly ChatItem[];
  readonly reminders: readonly ChatItem[];
}

/**
 * The items of a user message. Bubble ids are stable: the message's id for the first words
 * block (as the live chat posts it), `<message id>-<block id>` for the next ones; each carries
 * `messageId`, so its Pin pins the whole message. A bubble's tokens are the message's when it
 * holds only those words (and what went with them), else its own words' tokens.
 */
export function userItems(message: Message, tokensOf?: TokensOf, reattached?: ReattachedOf): UserItems {
  const words = message.blocks.filter(isUserWords);
  const injected = message.blocks.flatMap((b) => {
    const i = injectedOf(b);
    return i && i.tag !== 'system-reminder' ? [i] : [];
  });
  const images = message.blocks.flatMap((b) =>
    b.type === 'image' && b.meta.source === 'user'
      ? [{ ref: imageRef(b.meta.id, b.data), mediaType: b.mediaType, data: b.data, tokens: imageTokens(b.data) }]
      : [],
  );
  const alone = words.length === 1 && !message.blocks.some((b) => b.type === 'summary');
  const bubbles = words.map((w, i): ChatItem => {
    const tokens = !tokensOf ? undefined : alone ? tokensOf(message) : tokensOf.text(w.type === 'text' ? w.text : '');
    return {
      kind: 'user',
      id: i === 0 ? message.id : `${message.id}-${w.meta.id}`,
      messageId: message.id,
      text: w.type === 'text' ? w.text : '',
      injected: i === 0 ? injected : [],
      ...(i === 0 && images.length > 0 ? { images } : {}),
      turn: message.turn,
      pinned: isPinned(message),
      ...(tokens !== undefined ? { tokens: Math.round(tokens) } : {}),
    };
  });
  const reminders = message.blocks.flatMap((b) => {
    const text = reminderLine(b, reattached);
    return text ? [{ kind: 'notice' as const, id: b.meta.id, level: 'info' as const, text }] : [];
  });
  return { bubbles, reminders };
}

/** Longest list of paths a re-attach notice line names before "and N more". */
const MAX_NAMED_FILES = 6;

/**
 * The notice line of a `system-reminder` block; undefined for any other block. A re-attach
 * reminder names its files (from its compaction's record), nested instructions their file,
 * any other reminder its first line.
 */
export function reminderLine(b: Block, reattached?: ReattachedOf): string | undefined {
  const i = injectedOf(b);
  if (!i || i.tag !== 'system-reminder') return undefined;
  if (isReattachReminder(b)) {
    const files = reattached?.(b.meta.id);
    if (!files) return 'Files re-attached after compaction (read fresh from disk)';
    if (files.length === 0)
      return 'Re-attached after compaction: none (the files Claude used are still in the history)';
    const named = files.slice(0, MAX_NAMED_FILES).map((f) => f.path);
    const more = files.length > MAX_NAMED_FILES ? ` and ${files.length - MAX_NAMED_FILES} more` : '';
    return `Re-attached after compaction: ${named.join(', ')}${more}`;
  }
  if (isPlanReminder(b)) return 'Your plan, carried over the compaction for Claude';
  if (b.meta.origin !== undefined) return `Instructions added for this folder: ${b.meta.origin}`;
  return `Reminder for Claude: ${i.label}`;
}
