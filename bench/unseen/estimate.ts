/**
 * A rough Claude-token estimate of the generator's messages, so the usage it writes for a
 * request fits the history before it: cl100k_base counts × 1.2 (Claude tokens per cl100k
 * token, roughly) with the per-block overheads of the API, and images by their header size
 * (src/core/conversation/imageSize.ts). Not the replay's estimator: the replay calibrates its own
 * from the usage this writes, as it does on a real transcript.
 */
import { imageTokens } from '../../src/core/conversation/imageSize';
import type { Tokenizer } from '../../src/core/platform/platformPorts';
import { isObject, type MessageParam } from './records';

/** Claude tokens per cl100k_base token, roughly. */
export const CLAUDE_PER_CL100K = 1.2;

const F = CLAUDE_PER_CL100K;

/** Estimates tokens of messages, blocks and summaries; a message's estimate is memoised on the object. */
export class MessageEstimate {
  private readonly memo = new WeakMap<object, number>();

  constructor(private readonly tokenizer: Tokenizer) {}

  /** cl100k_base tokens of a text. */
  count(text: string): number {
    return this.tokenizer.count(text);
  }

  /** Tokens of a message: its overhead and its blocks (memoised: do not mutate a message after counting it). */
  message(m: MessageParam): number {
    const hit = this.memo.get(m);
    if (hit !== undefined) return hit;
    let n = 3 * F;
    if (typeof m.content === 'string') n += (1 + this.count(m.content)) * F;
    else if (Array.isArray(m.content)) for (const b of m.content) n += this.block(b);
    this.memo.set(m, n);
    return n;
  }

  /** Tokens of the history after a compaction: its summary as one message. */
  summary(text: string): number {
    return (1 + this.count(text)) * F + 3 * F;
  }

  /** Tokens of one content block (anything not a known block counts as its JSON). */
  block(b: unknown): number {
    if (!isObject(b)) return 0;
    switch (b.type) {
      case 'text':
        return (1 + this.count(String(b.text ?? ''))) * F;
      case 'thinking':
        return (1 + this.count(String(b.thinking ?? ''))) * F;
      case 'redacted_thinking':
        return 1 + String(b.data ?? '').length / 4;
      case 'tool_use':
        return this.toolUse(b.name, b.input);
      case 'tool_result': {
        const c = b.content;
        if (typeof c === 'string') return (17 + this.count(c)) * F;
        if (Array.isArray(c)) return 17 * F + c.reduce((n: number, p: unknown) => n + this.part(p), 0);
        return 17 * F;
      }
      case 'image':
        return 5 + this.image(b.source);
      default:
        return this.count(JSON.stringify(b)) * F;
    }
  }

  /** A tool call: its name, each parameter's name and value, and the API's overheads per call and per parameter. */
  private toolUse(name: unknown, input: unknown): number {
    let t = String(name ?? '');
    let params = 1;
    if (isObject(input)) {
      params = Object.keys(input).length;
      for (const [k, v] of Object.entries(input)) t += `\n${k}\n${typeof v === 'string' ? v : JSON.stringify(v)}`;
    } else t += JSON.stringify(input ?? {});
    return (21 + 6 * params + this.count(t)) * F;
  }

  /** A tool_result part: text, an image, or anything else as its JSON. */
  private part(p: unknown): number {
    if (!p || typeof p !== 'object') return 0;
    const o = p as Record<string, unknown>;
    if (o.type === 'text') return 1 + this.count(String(o.text ?? '')) * F;
    if (o.type === 'image') return 5 + this.image(o.source);
    return this.count(JSON.stringify(p)) * F;
  }

  /** A base64 image by its header, any other source as 1000. */
  private image(source: unknown): number {
    return isObject(source) && source.type === 'base64' ? imageTokens(String(source.data)) : 1000;
  }
}
