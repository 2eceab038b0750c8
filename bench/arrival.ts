/**
 * How a transcript's messages enter the replayed history: each tool result passes the
 * compactor's arrival guard as it arrives (as the agent's tool round does it), and a message
 * of the same role as the last is merged into it (a wart of real transcripts); an answer's
 * thinking is bound to the request it answered, as the extension binds it.
 */
import type { Compactor } from '../src/core/compaction/compactor';
import { isUserWords } from '../src/core/compaction/regions';
import { guardToolResultContent } from '../src/core/compaction/toolResultGuard';
import { planPaste } from '../src/core/conversation/paste';
import { bindThinking } from '../src/core/pipeline/thinkingBinding';
import type {
  Block,
  BlockMeta,
  ConversationState,
  Message,
  TextBlock,
} from '../src/core/conversation/conversationModel';

/**
 * Where spills would go. Nothing is written: the replay keeps what the model sees (the preview
 * and the path), as the agent does after writing the file.
 */
export const SPILL_DIRECTORY = '/replay-spill';

/** Tool names by tool_use id, filled from the assistant messages as they arrive. */
export type ToolNames = Map<string, string>;

/**
 * The message with every tool result guarded for a `contextWindow`-token window: a string
 * result through `compactor.guardResult`, a result with parts through guardToolResultContent
 * (text parts guarded, images kept), then the message's results as one round through
 * `compactor.guardRound` against `state` (the history it joins). A changed block is a new
 * block (fresh meta, so its token count is recounted); `guarded` counts the results that changed.
 * The user's words over the paste threshold are saved to a file as the chat does on send
 * (planPaste: a reference with the head and tail); `pastes` counts them.
 */
export function guardArrival(
  m: Message,
  state: ConversationState,
  compactor: Compactor,
  contextWindow: number,
  names: ToolNames,
): { message: Message; guarded: number; pastes: number } {
  if (m.role === 'assistant') {
    for (const b of m.blocks) if (b.type === 'tool_use') names.set(b.id, b.name);
    return { message: m, guarded: 0, pastes: 0 };
  }
  let guarded = 0;
  let pastes = 0;
  const spilled = wordsToSpill(m, state.config.pasteThresholdChars);
  const single = m.blocks.map((b): Block => {
    // The user's words over the paste threshold are saved to a file, as the chat does on send.
    if (isUserWords(b) && b.type === 'text' && spilled.has(b)) {
      const plan = planPaste(b.text, {
        // Chosen by wordsToSpill: saved even when this block alone is under the threshold.
        thresholdChars: 0,
        directory: SPILL_DIRECTORY,
        fileName: `paste-${b.meta.id}.txt`,
      });
      if (!plan.spill) return b;
      pastes++;
      return { ...b, text: plan.text, meta: freshMeta(b.meta) };
    }
    if (b.type !== 'tool_result') return b;
    const opts = {
      contextWindow,
      spillDirectory: SPILL_DIRECTORY,
      fileName: `tool-${b.toolUseId}.txt`,
      toolName: names.get(b.toolUseId) ?? 'tool',
    };
    const content =
      typeof b.content === 'string'
        ? compactor.guardResult(b.content, opts).content
        : guardToolResultContent(b.content, opts).content;
    if (content === b.content) return b;
    return { ...b, content, meta: freshMeta(b.meta) };
  });
  // Then the round as a whole, as the agent's turn loop does (roundGuard.ts).
  const round = single.flatMap((b) =>
    b.type === 'tool_result' ? [{ toolUseId: b.toolUseId, content: b.content, isError: b.isError === true }] : [],
  );
  const fitted =
    round.length === 0
      ? []
      : compactor.guardRound(state, round, {
          spillDirectory: SPILL_DIRECTORY,
          toolName: (id) => names.get(id) ?? 'tool',
        }).results;
  let k = 0;
  const blocks = single.map((b, i): Block => {
    if (b.type !== 'tool_result') return b;
    const content = (fitted[k++] as (typeof fitted)[number]).content;
    const final = content === b.content ? b : { ...b, content, meta: freshMeta(b.meta) };
    if (final !== m.blocks[i]) guarded++;
    return final;
  });
  return guarded === 0 && pastes === 0
    ? { message: m, guarded, pastes }
    : { message: { ...m, blocks }, guarded, pastes };
}

/** Appends a message, merging it into the last one when both have the same role. */
export function appendMerged(messages: readonly Message[], m: Message): Message[] {
  const last = messages.at(-1);
  if (last && last.role === m.role)
    return [...messages.slice(0, -1), { ...last, blocks: [...last.blocks, ...m.blocks] }];
  return [...messages, m];
}

/** A copy of a block's meta without its memoised token count. */
function freshMeta(meta: BlockMeta): BlockMeta {
  const copy: BlockMeta = { ...meta };
  delete copy.tokenCount;
  return copy;
}

/**
 * The blocks of the user's words that the chat would save to a file: the chat sends what was
 * typed as one block, and saves it when it is over the paste threshold; a transcript of
 * another agent may hold the same words as several blocks (files attached one by one), each
 * under the threshold, all of them over it. So blocks are taken largest first until what is
 * left of the message's words is within the threshold (a block over the threshold always).
 */
function wordsToSpill(m: Message, thresholdChars: number): Set<Block> {
  const words = m.blocks.filter((b): b is TextBlock => isUserWords(b) && b.type === 'text');
  let total = words.reduce((n, b) => n + b.text.length, 0);
  const out = new Set<Block>();
  for (const b of [...words].sort((x, y) => y.text.length - x.text.length)) {
    if (b.text.length <= thresholdChars && total <= thresholdChars) break;
    out.add(b);
    total -= b.text.length;
  }
  return out;
}

/** `state` with its last message (the answer, merged with its earlier records) bound to `prefix`. */
export function withBoundAnswer(state: ConversationState, prefix: string): ConversationState {
  const last = state.messages.at(-1);
  if (!last || last.role !== 'assistant') return state;
  const bound = bindThinking(last, prefix);
  return bound === last ? state : { ...state, messages: [...state.messages.slice(0, -1), bound] };
}
