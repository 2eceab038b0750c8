/**
 * Splits a region too big for the summariser into chunks, summarised one after the other with
 * each summary handed to the next (rolling). The chunk size adapts to the size of the
 * messages: 40 % of the summariser's window for small messages, down to 15 % for large ones,
 * divided by a 1.2 safety margin, and never more than the window minus room for the output
 * and the rolling summary. A single message too big to go in any chunk is left out.
 */
import type { Message } from '../conversation/conversationModel';
import type { LeftOutMessage } from './summaryPrompt';

/** Largest chunk size, as a fraction of the window (small messages). */
export const CHUNK_MAX_FRACTION = 0.4;
/** Smallest chunk size, as a fraction of the window (large messages). */
export const CHUNK_MIN_FRACTION = 0.15;
/** Token estimates are divided by this margin before packing. */
export const CHUNK_SAFETY_MARGIN = 1.2;
/** Tokens kept for the summariser's system prompt and the request's framing. */
export const PROMPT_OVERHEAD_TOKENS = 2_000;

/** What planChunks needs. */
export interface ChunkOptions {
  /** The summariser's context window, in tokens. */
  readonly window: number;
  readonly tokensOf: (m: Message) => number;
  /** The summariser's max_tokens; the same room is kept for the rolling summary it receives. */
  readonly outputReserve: number;
}

/** Chunks to summarise in order, and the messages left out of every chunk. */
export interface ChunkPlan {
  readonly chunks: Message[][];
  readonly leftOut: LeftOutMessage[];
  /** Token budget each chunk was packed to. */
  readonly budget: number;
}

/**
 * Chunk size as a fraction of the window: 40 % when the average message is tiny, falling
 * linearly to 15 % once the average message reaches a tenth of the window.
 */
export function chunkFraction(averageMessageTokens: number, window: number): number {
  const ratio = window > 0 ? averageMessageTokens / window : 1;
  const f = CHUNK_MIN_FRACTION + (CHUNK_MAX_FRACTION - CHUNK_MIN_FRACTION) * (1 - Math.min(1, ratio / 0.1));
  return Math.max(CHUNK_MIN_FRACTION, Math.min(CHUNK_MAX_FRACTION, f));
}

/** Tokens a single chunk may hold when its messages average `averageMessageTokens`. */
export function chunkBudget(
  averageMessageTokens: number,
  opts: Pick<ChunkOptions, 'window' | 'outputReserve'>,
): number {
  const byFraction = chunkFraction(averageMessageTokens, opts.window) * opts.window;
  const room = opts.window - 2 * opts.outputReserve - PROMPT_OVERHEAD_TOKENS;
  return Math.max(1, Math.floor(Math.min(byFraction, room) / CHUNK_SAFETY_MARGIN));
}

/** Largest message that may go in a chunk at all: half the window, or less when the room is smaller. */
export function maxSingleMessageTokens(opts: Pick<ChunkOptions, 'window' | 'outputReserve'>): number {
  const room = opts.window - 2 * opts.outputReserve - PROMPT_OVERHEAD_TOKENS;
  return Math.max(1, Math.min(Math.floor(opts.window / 2), Math.floor(room / CHUNK_SAFETY_MARGIN)));
}

/**
 * Packs messages, in order, into chunks of at most the adaptive budget (a message bigger
 * than the budget but small enough to send goes alone in its chunk); a message over
 * `maxSingleMessageTokens` is left out, to be named in the summary.
 */
export function planChunks(messages: readonly Message[], opts: ChunkOptions): ChunkPlan {
  const sized = messages.map((message) => ({ message, tokens: opts.tokensOf(message) }));
  const maxSingle = maxSingleMessageTokens(opts);
  const leftOut = sized.filter((x) => x.tokens > maxSingle);
  const kept = sized.filter((x) => x.tokens <= maxSingle);
  const average = kept.length > 0 ? kept.reduce((n, x) => n + x.tokens, 0) / kept.length : 0;
  const budget = chunkBudget(average, opts);
  const chunks: Message[][] = [];
  let current: Message[] = [];
  let size = 0;
  for (const x of kept) {
    if (current.length > 0 && size + x.tokens > budget) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(x.message);
    size += x.tokens;
  }
  if (current.length > 0) chunks.push(current);
  return { chunks, leftOut, budget };
}
