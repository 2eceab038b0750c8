/**
 * What the summariser model reads of a region: not its messages but their transcript
 * (summaryPrompt.ts `renderTranscript`: a header per message, a label per block, each long
 * text, tool input, tool result or thinking cut to a fixed length). Counted per message with
 * the compactor's own token count, as one text, and memoised per message object and count, so a
 * plan that weighs the small route on every request renders each message once. Each message is
 * rendered alone: a tool result is labelled "a tool" rather than by its call's name, a token or
 * two off. Pure apart from the memo.
 */
import type { Message } from '../conversation/conversationModel';
import { renderTranscript } from './summaryPrompt';
import { textTokenCounter } from './textTokens';

const memo = new WeakMap<(m: Message) => number, WeakMap<Message, number>>();

/** Tokens of `messages`' transcript as the small route sends it (see the module comment). */
export function transcriptTokens(messages: readonly Message[], tokensOf: (m: Message) => number): number {
  let counted = memo.get(tokensOf);
  if (!counted) memo.set(tokensOf, (counted = new WeakMap()));
  let textTokens: ((text: string) => number) | undefined;
  let n = 0;
  for (const m of messages) {
    let tokens = counted.get(m);
    if (tokens === undefined) {
      tokens = (textTokens ??= textTokenCounter(tokensOf))(renderTranscript([m]));
      counted.set(m, tokens);
    }
    n += tokens;
  }
  return n;
}
