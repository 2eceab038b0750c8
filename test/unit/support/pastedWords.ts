/**
 * A real session as a user who pastes code into every message would have had it: each user
 * message with words gets a block of distinct code appended (each under the chat's paste
 * threshold, so it stays inline, and all of them together more than a 100k window holds).
 * Compaction keeps the user's words verbatim, so only the tail guard can bound them.
 */
type Json = Record<string, unknown>;

/** `chars` characters of distinct code for message `n`. */
function pastedCode(n: number, chars: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < chars; i++) {
    const line = `  const v${n}_${i} = compute${(n * 31 + i * 7) % 997}(input, ${i % 89}); // step ${i}`;
    lines.push(line);
    size += line.length + 1;
  }
  return `Here is the code I mean:\n\`\`\`ts\n${lines.join('\n')}\n\`\`\``;
}

/** The transcript `text` (JSONL) with `chars` characters of code appended to every user message with words. */
export function pasteIntoEveryMessage(text: string, chars: number): string {
  let n = 0;
  return (
    text
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => {
        const r = JSON.parse(l) as Json;
        const m = r.kind === 'message' ? (r.message as { role?: string; content?: unknown }) : undefined;
        if (m?.role !== 'user') return l;
        const blocks: Json[] =
          typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as Json[]);
        if (!blocks.some((b) => b.type === 'text')) return l;
        m.content = [...blocks, { type: 'text', text: pastedCode(++n, chars) }];
        return JSON.stringify(r);
      })
      .join('\n') + '\n'
  );
}
