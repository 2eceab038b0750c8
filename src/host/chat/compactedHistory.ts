/**
 * The compacted history as the chat shows it: the rounds a summary replaced stay in view as a
 * collapsed group beside its card (counts with the transcript, the items themselves built on
 * demand from the record's originals by the same builders as the live chat), a cleared tool
 * result's original, and the files a re-attach reminder named. Read from the session's
 * compaction records (their originals are kept verbatim). Pure.
 */
import type { CompactionEntryState } from '../../core/agent/sessionCore';
import { isPlaceholder } from '../../core/compaction/layerContext';
import { isUserWords } from '../../core/compaction/regions';
import type { CompactionRecord, ReattachedFile } from '../../core/compaction/types';
import type { Message, ToolResultContent } from '../../core/conversation/conversationModel';
import { compactedItemId, type ChatItem } from '../../protocol/chatItems';

/** The counts a compacted group shows ("40 tool calls · 3 answers · 2 of your messages"). */
export interface CompactedCounts {
  readonly toolCalls: number;
  readonly answers: number;
  readonly userMessages: number;
  readonly summaries: number;
}

/**
 * What `messages` hold: tool calls, answers with words, the user's own messages; an earlier
 * summary among them adds the calls and answers its own record replaced (`nested`; the user's
 * words it kept stand beside it), or counts as one summary when that record is unknown.
 */
export function compactedCounts(
  messages: readonly Message[],
  nested: (compactionId: string) => CompactedCounts | undefined = () => undefined,
): CompactedCounts {
  const n = { toolCalls: 0, answers: 0, userMessages: 0, summaries: 0 };
  for (const m of messages) {
    // An answer with words of its own (not a compactor's note or acknowledgement around a summary).
    if (
      m.role === 'assistant' &&
      m.blocks.some((b) => b.type === 'text' && b.meta.source !== 'compactor' && b.text.trim())
    )
      n.answers++;
    for (const b of m.blocks) {
      if (b.type === 'tool_use') n.toolCalls++;
      else if (isUserWords(b)) n.userMessages++;
      else if (b.type === 'summary') {
        const inner = nested(b.compactionId);
        if (!inner) n.summaries++;
        else {
          // Its user's words were kept verbatim beside it, so they are counted here already.
          n.toolCalls += inner.toolCalls;
          n.answers += inner.answers;
          n.summaries += inner.summaries;
        }
      }
    }
  }
  return n;
}

/**
 * The collapsed group of the rounds `record` replaced, shown beside the summary block
 * `summaryId`, with the counts of everything under it (an earlier summary's rounds included).
 */
export function compactedGroup(summaryId: string, record: CompactionRecord, history: CompactedHistory): ChatItem {
  return { kind: 'compacted', id: `${summaryId}-compacted`, compactionId: record.id, ...history.counts(record) };
}

/**
 * The items of a compacted group: `build` (the transcript's builder) over the record's
 * originals, each id prefixed with the compaction's (compactedItemId), so they never clash
 * with the live chat's items or another group's.
 */
export function compactedItems(
  record: CompactionRecord,
  build: (messages: readonly Message[]) => ChatItem[],
): ChatItem[] {
  return build(record.originals).map((item) => ({ ...item, id: compactedItemId(record.id, item.id) }));
}

/** The session's compaction records, looked up by what the chat asks about. */
export class CompactedHistory {
  private byId: Map<string, CompactionRecord> | undefined;
  private byReminder: Map<string, readonly ReattachedFile[]> | undefined;
  private readonly counted = new Map<string, CompactedCounts>();

  constructor(private readonly entries: readonly CompactionEntryState[]) {}

  /** The record of compaction `id` (in effect or restored); undefined when the session has none such. */
  record(id: string): CompactionRecord | undefined {
    this.byId ??= new Map(this.entries.map((e) => [e.record.id, e.record]));
    return this.byId.get(id);
  }

  /** What `record` replaced, its earlier summaries' rounds included (see compactedCounts); counted once per record. */
  counts(record: CompactionRecord, seen: ReadonlySet<string> = new Set()): CompactedCounts {
    const known = this.counted.get(record.id);
    if (known) return known;
    const inside = new Set([...seen, record.id]);
    const counts = compactedCounts(record.originals, (id) => {
      const inner = inside.has(id) ? undefined : this.record(id);
      return inner ? this.counts(inner, inside) : undefined;
    });
    this.counted.set(record.id, counts);
    return counts;
  }

  /** The files the re-attach reminder block `blockId` named, from the record whose replacement holds it. */
  reattached(blockId: string): readonly ReattachedFile[] | undefined {
    if (!this.byReminder) {
      this.byReminder = new Map();
      for (const { record } of this.entries)
        if (record.reattached)
          for (const m of record.replacement)
            for (const b of m.blocks)
              if (b.meta.source === 'reminder') this.byReminder.set(b.meta.id, record.reattached);
    }
    return this.byReminder.get(blockId);
  }

  /**
   * The original result of the tool call `toolUseId`, before a compaction cleared it: the
   * newest record whose originals hold it as something other than a placeholder; undefined
   * when no record does.
   */
  clearedResult(toolUseId: string): { content: ToolResultContent; isError: boolean } | undefined {
    for (const { record } of [...this.entries].reverse())
      for (const m of record.originals)
        for (const b of m.blocks)
          if (b.type === 'tool_result' && b.toolUseId === toolUseId && !isPlaceholder(b.content))
            return { content: b.content, isError: b.isError ?? false };
    return undefined;
  }
}
