/**
 * What the recall tool searches: the original messages of every compaction of the session
 * (in effect, restored or orphaned alike), the summaries that stood in for them, the outputs
 * the session saved to its folder (spilled pastes and tool results) and, in a session handed
 * off from another (core/handoff), that old session's whole history: its compactions and its
 * conversation as it was left, each item labelled by the session. One item per block, in
 * conversation order. Pure: the files are read by the host (ports).
 */
import type { CompactionRecord } from '../compaction/types';
import type { Block, Message, ToolResultContent } from '../conversation/conversationModel';
import { RECALL_TOOL_NAME } from './recallSpec';

/** A file the session saved to its folder (a large paste or tool result), with its text. */
export interface SpilledOutput {
  /** Absolute path, as the spill notice in the conversation names it. */
  readonly path: string;
  readonly text: string;
}

/**
 * Reads the session's saved outputs (host work: files). Never throws: a folder that does not
 * exist or cannot be read gives an empty list.
 */
export interface SpillReader {
  read(): Promise<readonly SpilledOutput[]>;
}

/** The session a recall source comes from when it is not this one: a session this one continues. */
export interface PastLabel {
  readonly sessionId: string;
  readonly title: string;
  /** The old session's conversation as it was left (not one of its compactions). */
  readonly history?: true;
}

/**
 * What recall searches and reads: a compaction of this session, or of a session it continues
 * (`past`), or that session's conversation as it was left (its record's id is the session's id).
 */
export interface RecallSource {
  readonly record: Pick<CompactionRecord, 'id' | 'originals' | 'replacement'>;
  readonly past?: PastLabel;
}

/** A session this one continues (handed off from it), as recall reads it: read-only. */
export interface PastSession {
  readonly sessionId: string;
  readonly title: string;
  /** Its conversation as it was left. */
  readonly messages: readonly Message[];
  /** Its compactions, oldest first (a Retry's or Edit's rewind left out). */
  readonly compactions: readonly { readonly record: CompactionRecord }[];
}

/**
 * Reads the session this one continues (host work: its file, read-only, once). Never throws:
 * undefined when there is none or it cannot be read.
 */
export interface PastSessionReader {
  read(): Promise<PastSession | undefined>;
}

/**
 * A past session as recall sources: its compactions, then its conversation as it was left
 * (a source whose id is the session's id), each labelled by the session.
 */
export function pastSources(past: PastSession): RecallSource[] {
  const label = { sessionId: past.sessionId, title: past.title };
  return [
    ...past.compactions.filter((c) => c.record.layer !== 'rewind').map((c) => ({ record: c.record, past: label })),
    {
      record: { id: past.sessionId, originals: past.messages, replacement: [] },
      past: { ...label, history: true as const },
    },
  ];
}

/** What an item is: a block of an original message, a summary, or a saved output. */
export type RecallItemKind = 'text' | 'thinking' | 'tool_use' | 'tool_result' | 'summary' | 'spill';

/** One searchable piece: a block of an original message, a summary, or a saved file. */
export interface RecallItem {
  readonly kind: RecallItemKind;
  /** The compaction that holds it (absent for saved outputs; an old session's id for its conversation). */
  readonly compactionId?: string;
  /** The session it comes from, when it is not this one. */
  readonly past?: PastLabel;
  readonly turn?: number;
  readonly role?: Message['role'];
  readonly messageId?: string;
  readonly blockId?: string;
  /** For tool calls and results: the call's id and the tool's name (when known). */
  readonly toolUseId?: string;
  readonly toolName?: string;
  /** For saved outputs: the file. */
  readonly path?: string;
  readonly text: string;
}

/**
 * The searchable items and what they came from, for messages that say what was searched (the
 * counts are this session's: an old session's sources are not counted).
 */
export interface RecallCorpus {
  readonly items: readonly RecallItem[];
  readonly compactions: number;
  readonly messages: number;
  readonly summaries: number;
  readonly spills: number;
}

/** The text of a tool result (images as a placeholder). */
export function resultText(content: ToolResultContent): string {
  return typeof content === 'string'
    ? content
    : content.map((p) => (p.type === 'text' ? p.text : `[image ${p.mediaType}]`)).join('\n');
}

/** Whether a text block is one of the compactor's own notes (acknowledgements, drop markers). */
function isCompactorNote(b: Block): boolean {
  return b.type === 'text' && b.meta.source === 'compactor';
}

/**
 * Builds the corpus. Each block is listed once, under the first (oldest) compaction holding
 * it: a summary that a later compaction replaced again stays attributed to its own. Calls of
 * recall itself and their results are left out, so a search never finds its own echoes; so
 * are the compactor's notes. `spills` are listed after the messages, in the order given.
 */
export function buildCorpus(compactions: readonly RecallSource[], spills: readonly SpilledOutput[] = []): RecallCorpus {
  const items: RecallItem[] = [];
  const seen = new Set<string>();
  const recallCalls = new Set<string>();
  const toolNames = new Map<string, string>();
  for (const { record } of compactions) {
    for (const m of record.originals) {
      for (const b of m.blocks) {
        if (b.type !== 'tool_use') continue;
        toolNames.set(b.id, b.name);
        if (b.name === RECALL_TOOL_NAME) recallCalls.add(b.id);
      }
    }
  }
  let messages = 0;
  let summaries = 0;
  for (const { record, past } of compactions) {
    // Ids are unique within a session: an old session's are kept apart from this one's.
    const key = (id: string) => (past ? `${past.sessionId}/${id}` : id);
    for (const m of record.originals) {
      let counted = false;
      for (const b of m.blocks) {
        if (seen.has(key(b.meta.id)) || isCompactorNote(b)) continue;
        const item = blockItem(record.id, m, b, toolNames, recallCalls, past);
        if (!item) continue;
        seen.add(key(b.meta.id));
        items.push(item);
        if (past) continue;
        if (item.kind === 'summary') summaries++;
        else if (!counted) {
          messages++;
          counted = true;
        }
      }
    }
    for (const m of record.replacement) {
      for (const b of m.blocks) {
        if (b.type !== 'summary' || seen.has(key(b.meta.id))) continue;
        seen.add(key(b.meta.id));
        if (!past) summaries++;
        items.push({
          kind: 'summary',
          compactionId: record.id,
          ...(past ? { past } : {}),
          turn: b.turnRange[0],
          role: m.role,
          messageId: m.id,
          blockId: b.meta.id,
          text: b.text,
        });
      }
    }
  }
  for (const s of spills) items.push({ kind: 'spill', path: s.path, text: s.text });
  const own = compactions.filter((c) => !c.past).length;
  return { items, compactions: own, messages, summaries, spills: spills.length };
}

function blockItem(
  compactionId: string,
  m: Message,
  b: Block,
  toolNames: ReadonlyMap<string, string>,
  recallCalls: ReadonlySet<string>,
  past: PastLabel | undefined,
): RecallItem | undefined {
  const base = {
    compactionId,
    turn: m.turn,
    role: m.role,
    messageId: m.id,
    blockId: b.meta.id,
    ...(past ? { past } : {}),
  };
  switch (b.type) {
    case 'text':
      return { kind: 'text', ...base, text: b.text };
    case 'thinking':
      return { kind: 'thinking', ...base, text: b.thinking };
    case 'summary':
      return { kind: 'summary', ...base, text: b.text };
    case 'tool_use':
      return recallCalls.has(b.id)
        ? undefined
        : {
            kind: 'tool_use',
            ...base,
            toolUseId: b.id,
            toolName: b.name,
            text: `${b.name} ${JSON.stringify(b.input) ?? ''}`,
          };
    case 'tool_result': {
      if (recallCalls.has(b.toolUseId)) return undefined;
      const name = toolNames.get(b.toolUseId);
      return {
        kind: 'tool_result',
        ...base,
        toolUseId: b.toolUseId,
        ...(name ? { toolName: name } : {}),
        text: resultText(b.content),
      };
    }
    // A tool search and what it found are in the summary; the blocks hold no content to recall.
    case 'image':
    case 'server_tool':
      return undefined;
  }
}
