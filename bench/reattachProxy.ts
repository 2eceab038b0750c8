/**
 * The replay has no disk: the compactor's re-attach reads a file's last-known content from
 * the transcript instead — the most recent successful read result of that path so far (or
 * the content a whole-file write gave it), as the agent saw it. A file never read in the
 * transcript is refused, so it is re-attached as a reference only.
 */
import type { FreshRead } from '../src/core/compaction/reattach';
import { resultText } from '../src/core/compaction/layerContext';
import { normalisePath } from '../src/core/compaction/snip';
import { classifyToolCall } from '../src/core/tools/toolKinds';
import type { Message } from '../src/core/conversation/conversationModel';
import { utf8Length } from '../src/core/platform/text';

/** Last-known file contents, fed with the transcript's messages as they arrive. */
export class LastKnownFiles {
  /** Read calls waiting for their result: tool_use id → normalised path. */
  private readonly pending = new Map<string, string>();
  private readonly content = new Map<string, string>();

  /** Takes in one message of the transcript (before any guard changed its results). */
  observe(m: Message): void {
    for (const b of m.blocks) {
      if (b.type === 'tool_use') {
        const info = classifyToolCall(b);
        if (info.path === undefined) continue;
        const key = keyOf(info.path);
        const input = typeof b.input === 'object' && b.input !== null ? (b.input as Record<string, unknown>) : {};
        if (info.kind === 'read') this.pending.set(b.id, key);
        else if (info.kind === 'edit' && typeof input.content === 'string') this.content.set(key, input.content);
      } else if (b.type === 'tool_result') {
        const key = this.pending.get(b.toolUseId);
        this.pending.delete(b.toolUseId);
        if (key !== undefined && !b.isError) this.content.set(key, resultText(b.content));
      }
    }
  }

  /** The port the compactor reads through. */
  readonly readFresh = async (path: string): Promise<FreshRead> => {
    const text = this.content.get(keyOf(path));
    return text === undefined
      ? { ok: false, reason: 'not read in this transcript (the replay has no disk)' }
      : { ok: true, text, bytes: utf8Length(text) };
  };
}

function keyOf(path: string): string {
  return normalisePath(path.trim().replace(/\\/g, '/'));
}
