/**
 * A text's tokens by the compactor's own count, which takes messages: the text as the one block
 * of a probe message, less what the empty message counts. Pure.
 */
import type { Message } from '../conversation/conversationModel';

/** Tokens of a text as one block of a message adds them (the message's own overhead left out). */
export function textTokenCounter(tokensOf: (m: Message) => number): (text: string) => number {
  const probe = (text?: string): Message => ({
    id: 'text_probe',
    role: 'user',
    turn: 0,
    blocks:
      text === undefined
        ? []
        : [
            {
              type: 'text',
              text,
              meta: {
                id: 'text_probe_blk',
                tier: 3,
                source: 'reminder',
                createdAt: 0,
                pinned: false,
                compactable: false,
              },
            },
          ],
  });
  const empty = tokensOf(probe());
  return (text) => Math.max(0, Math.round(tokensOf(probe(text)) - empty));
}
