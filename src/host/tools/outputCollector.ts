/**
 * Collects a process's output in bounded memory: the first `maxChars` characters and the
 * last `maxChars`, plus counts of what fell between, then renders it under the cap with a
 * notice (see joinHeadTail). Chunks must be whole characters (decode with a StringDecoder).
 */
import { safeCutIndex } from '../../core/platform/text';
import { countNewlines, joinHeadTail } from '../../core/tools/limits';

/** Head+tail collector of streamed text. Memory stays under about 3 × `maxChars`. */
export class OutputCollector {
  private head = '';
  private tail: string[] = [];
  private tailLength = 0;
  private totalChars = 0;
  private totalLines = 0;

  constructor(private readonly maxChars: number) {}

  /** Appends decoded text. */
  push(chunk: string): void {
    if (chunk.length === 0) return;
    this.totalChars += chunk.length;
    this.totalLines += countNewlines(chunk);
    let rest = chunk;
    if (this.head.length < this.maxChars) {
      const cut = safeCutIndex(rest, this.maxChars - this.head.length);
      this.head += rest.slice(0, cut);
      rest = rest.slice(cut);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailLength += rest.length;
    if (this.tailLength > 2 * this.maxChars) this.compactTail();
  }

  /** Characters pushed so far. */
  get length(): number {
    return this.totalChars;
  }

  /** Everything pushed when it fits in `maxChars`; otherwise head and tail around a notice. */
  text(): string {
    this.compactTail();
    const tail = this.tail.join('');
    const gapChars = this.totalChars - this.head.length - tail.length;
    if (gapChars === 0 && this.head.length + tail.length <= this.maxChars) return this.head + tail;
    const gapLines = this.totalLines - countNewlines(this.head) - countNewlines(tail);
    return joinHeadTail(this.head, tail, gapChars, gapLines, this.maxChars);
  }

  private compactTail(): void {
    let joined = this.tail.join('');
    if (joined.length > this.maxChars) {
      let start = joined.length - this.maxChars;
      const code = joined.charCodeAt(start);
      if (code >= 0xdc00 && code <= 0xdfff) start++; // don't keep half a surrogate pair
      joined = joined.slice(start);
    }
    this.tail = joined.length > 0 ? [joined] : [];
    this.tailLength = joined.length;
  }
}
