/** The last lines a server wrote to stderr, kept for a failed state. No `vscode`. */

/** Lines kept by default. */
export const STDERR_TAIL_LINES = 40;
/** Longest line kept, in characters. */
const MAX_LINE_CHARS = 2000;

/** A bounded tail of text lines, fed with chunks as they arrive. */
export class StderrTail {
  private readonly lines: string[] = [];
  private partial = '';

  constructor(private readonly maxLines = STDERR_TAIL_LINES) {}

  /** Adds a chunk of output (split into lines; a partial last line waits for its end). */
  push(chunk: string): void {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = (parts.pop() ?? '').slice(-MAX_LINE_CHARS);
    for (const line of parts) this.add(line);
  }

  /** The kept lines (and any partial last line), joined by newlines. */
  text(): string {
    return [...this.lines, ...(this.partial ? [this.partial] : [])].join('\n');
  }

  private add(line: string): void {
    this.lines.push(line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line);
    if (this.lines.length > this.maxLines) this.lines.splice(0, this.lines.length - this.maxLines);
  }
}
