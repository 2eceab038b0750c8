/** Fakes for the token-estimation tests: counting tokenizers, block builders, a fake API. */
import type {
  Block,
  BlockMeta,
  ImageBlock,
  Message,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from '../../../src/core/conversation/conversationModel';
import type { Tokenizer } from '../../../src/core/platform/platformPorts';
import { messageRawTokens } from '../../../src/core/tokens/blockTokens';

/** A tokenizer counting whitespace-separated words, recording every call. */
export function countingTokenizer(name = 'words'): Tokenizer & { calls: number; chars: number } {
  const t = {
    name,
    calls: 0,
    chars: 0,
    count(text: string): number {
      t.calls++;
      t.chars += text.length;
      return text.split(/\s+/).filter(Boolean).length;
    },
  };
  return t;
}

let seq = 0;
/** The id of the last tool_use built: a tool_result answers it (histories are valid requests). */
let lastToolUse = 0;
function meta(source: BlockMeta['source'] = 'user'): BlockMeta {
  seq++;
  return { id: `b${seq}`, tier: 1, source, createdAt: seq, pinned: false, compactable: true };
}

/** Builders of fresh blocks and messages (fresh meta, so nothing is memoised yet). */
export const mk = {
  text: (text: string): TextBlock => ({ type: 'text', text, meta: meta() }),
  toolUse: (name: string, input: unknown): ToolUseBlock => ({
    type: 'tool_use',
    id: `toolu_${(lastToolUse = ++seq)}`,
    name,
    input,
    meta: meta('assistant'),
  }),
  toolResult: (content: ToolResultBlock['content']): ToolResultBlock => ({
    type: 'tool_result',
    toolUseId: `toolu_${lastToolUse}`,
    content,
    meta: meta('tool'),
  }),
  image: (data: string, mediaType: ImageBlock['mediaType'] = 'image/png'): ImageBlock => ({
    type: 'image',
    mediaType,
    data,
    meta: meta(),
  }),
  message: (role: Message['role'], blocks: Block[], turn = 1): Message => ({ id: `m${++seq}`, role, blocks, turn }),
};

/** `n` words of filler text. */
export function words(n: number, seed = 0): string {
  return Array.from({ length: n }, (_, i) => `w${(i * 7919 + seed) % 1000}`).join(' ');
}

/**
 * A fake API that counts prompts as `factor` × raw text + fixed + `overhead`, with the raw
 * count of a separate instance of the same tokenizer (so the estimator's memo stays its own).
 * `noise(k)` returns a relative error applied to each added message.
 */
export function fakeApi(
  factor: number,
  overhead: number,
  noise: (k: number) => number = () => 0,
): (messages: readonly Message[]) => number {
  const counter = countingTokenizer('api');
  const cost = new WeakMap<Message, number>();
  let k = 0;
  return (messages) => {
    let total = overhead;
    for (const m of messages) {
      let c = cost.get(m);
      if (c === undefined) {
        const raw = messageRawTokensFresh(m, counter);
        c = (factor * raw.text + raw.fixed) * (1 + noise(k++));
        cost.set(m, c);
      }
      total += c;
    }
    return Math.round(total);
  };
}

/** Raw tokens of a message counted without touching its blocks' memo (a structural copy). */
function messageRawTokensFresh(m: Message, tokenizer: Tokenizer): { text: number; fixed: number } {
  const copy: Message = {
    ...m,
    blocks: m.blocks.map((b) => ({ ...b, meta: { ...b.meta, tokenCount: undefined } }) as Block),
  };
  return messageRawTokens(copy, tokenizer);
}

/** A deterministic pseudo-random generator in [0, 1). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
