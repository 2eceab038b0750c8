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

/** What `messages` hold: tool calls, answers with words, the user's own messages, summaries. */
export function compactedCounts(messages: readonly Message[]): CompactedCounts {
  let toolCalls = 0;
  let answers = 0;
  let userMessages = 0;
  let summaries = 0;
  for (const m of messages) {
    if (m.role === 'assistant' && m.blocks.some((b) => b.type === 'text' && b.text.trim() !== '')) answers++;
    for (const b of m.blocks) {
      if (b.type === 'tool_use') toolCalls++;
      else if (b.type === 'summary') summaries++;
      else if (isUserWords(b)) userMessages++;
    }
  }
  return { toolCalls, answers, userMessages, summaries };
}

/** The collapsed group of the rounds `record` replaced, shown beside the summary block `summaryId`. */
export function compactedGroup(summaryId: string, record: CompactionRecord): ChatItem {
  return {
    kind: 'compacted',
    id: `${summaryId}-compacted`,
    compactionId: record.id,
    ...compactedCounts(record.originals),
  };
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

  constructor(private readonly entries: readonly CompactionEntryState[]) {}

  /** The record of compaction `id` (in effect or restored); undefined when the session has none such. */
  record(id: string): CompactionRecord | undefined {
    this.byId ??= new Map(this.entries.map((e) => [e.record.id, e.record]));
    return this.byId.get(id);
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
